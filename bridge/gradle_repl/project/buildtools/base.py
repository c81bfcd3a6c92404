"""What a build tool must offer gradle-repl: tell its projects apart, name what a resolved
environment depends on, and resolve one. Gradle and Maven are the two implementations; a third
(sbt, Bazel) is one more module registered in buildtools/__init__.py.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gradle_repl.environment import BuildToolChoice, BuildToolName, ReplJarsReady

if TYPE_CHECKING:
    from gradle_repl.environment import ReplEnvironment
    from gradle_repl.project.build_inputs import Inputs
    from gradle_repl.project.process import ProgressCallback

__all__ = ["BuildTool", "BuildToolChoice", "BuildToolName", "wrapper_command"]


def wrapper_command(directories: list[Path], name: str) -> list[str] | None:
    """The command that runs a build's own wrapper script (gradlew, mvnw): the first of directories holding it.
    On Windows the script is name.bat/name.cmd as the tool ships it; elsewhere a wrapper without its executable
    bit (a zip download, a checkout on some file systems) runs through `sh`."""
    names = [f"{name}.bat", f"{name}.cmd"] if os.name == "nt" else [name]
    for directory in directories:
        for candidate in (directory / n for n in names):
            if candidate.is_file():
                if os.name != "nt" and not os.access(candidate, os.X_OK):
                    return ["sh", str(candidate)]
                return [str(candidate)]
    return None


class BuildTool(Protocol):
    name: BuildToolName
    # Names the files that make a directory this tool's project, for messages ("pom.xml").
    build_files: str

    def detect(self, root: Path) -> bool:
        """Whether root holds this tool's build."""
        ...

    def check_runnable(self, root: Path) -> None:
        """Raises BuildToolNotFound, saying how to fix it, when the tool can't run here."""
        ...

    def is_build_input(self, path: Path, tree: Path) -> bool:
        """Whether a file in an input tree shapes the build itself (hashed, not just stat'ed)."""
        ...

    def inputs(self, root: Path) -> Inputs:
        """What a build of root reads: root and the directories outside it the build names, and single
        files such as user-level settings (every file there counts, except build output)."""
        ...

    def project_key(self, root: Path, project_path: str) -> str:
        """project_path as one spelling, so `app`, `:app` and (Maven) the module's artifactId share one cached
        environment instead of building it once per spelling."""
        ...

    def facts(self) -> dict[str, str]:
        """Settings outside the project that change what a resolve returns (environment variables, the
        shipped init script), for the cache key."""
        ...

    def resolve(
        self,
        root: Path,
        *,
        project_path: str,
        source_set: str,
        on_progress: ProgressCallback | None = None,
        on_repl_jars: ReplJarsReady | None = None,
    ) -> ReplEnvironment:
        """Builds the project and reports the environment its source set's code runs in; calls `on_repl_jars` when it
        has the REPL's jars before its build ends (environment.ReplJarsReady), if it ever does."""
        ...

    def recompile(
        self, root: Path, *, project_path: str, source_set: str, on_progress: ProgressCallback | None = None
    ) -> bool:
        """Only compiles the source set again, for a build whose build files did not change since it was resolved
        (its environment stays what it was: project/recompile.py). Raises BuildFailed when the sources don't compile (a
        full resolve would fail the same way); False when it failed otherwise or this tool can't do only that: the
        caller then resolves as usual."""
        ...
