"""Which session a call means and the project it runs in: the five names every front end hands the manager.

The defaults are the ones a tool call (and the CLI) gets when it names none (settings.py); nothing else writes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradle_repl.environment import BuildToolChoice, ReplEnvironment
from gradle_repl.settings import DEFAULT_BUILD_TOOL, DEFAULT_PROJECT_PATH, DEFAULT_SESSION_ID, DEFAULT_SOURCE_SET

__all__ = ["SessionTarget"]


@dataclass(frozen=True)
class SessionTarget:
    """A session by its id, and the project, project path, source set and build tool it runs."""

    project_root: str
    project_path: str = DEFAULT_PROJECT_PATH
    source_set: str = DEFAULT_SOURCE_SET
    build_tool: BuildToolChoice = DEFAULT_BUILD_TOOL
    session_id: str = DEFAULT_SESSION_ID

    @classmethod
    def of(cls, environment: ReplEnvironment, session_id: str) -> SessionTarget:
        """The target that resolves to `environment` again (a restart of the session that runs it)."""
        return cls(
            environment.project_root,
            environment.project_path,
            environment.source_set,
            environment.build_tool or "auto",
            session_id,
        )
