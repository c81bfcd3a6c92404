"""gradle-repl's own class output for a source set: where the session compiles edits of its sources (issue 42).

One directory per project, module and source set under gradle-repl's cache dir, first on the session's class path
from the first resolve on (so the session's loader sees what is compiled into it later, without a new JVM). It holds
classes only while the sources match what a session compiled; every build of the build tool (a full resolve, a
compile-only build) empties it: the build's output wins. The project's target/ or build/ is never written to.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from gradle_repl.environment import ReplEnvironment
from gradle_repl.paths import cache_dir

__all__ = ["output_dir", "with_session_classes", "drop_session_classes"]


def output_dir(build_tool: str, project_root: str, project_path: str, source_set: str) -> Path:
    """The directory of one source set's classes compiled in sessions."""
    name = hashlib.sha256(f"{build_tool}\0{project_root}\0{project_path}\0{source_set}".encode()).hexdigest()[:16]
    return cache_dir() / "session-classes" / name


def with_session_classes(environment: ReplEnvironment) -> ReplEnvironment:
    """The environment just built by the build tool, its source set's session-compiled classes dropped (the build's
    output wins) and their directory first on the class path, empty, for the next edit. Changed in place, returned."""
    if environment.edit_sources is None:
        return environment
    directory = output_dir(
        environment.build_tool, environment.project_root, environment.project_path, environment.source_set
    )
    drop_session_classes(directory)
    environment.edit_sources.output_dir = str(directory)
    environment.classpath = [str(directory), *(p for p in environment.classpath if p != str(directory))]
    return environment


def drop_session_classes(directory: Path) -> None:
    """Empties the directory (it stays, as a class path entry must)."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True, exist_ok=True)
