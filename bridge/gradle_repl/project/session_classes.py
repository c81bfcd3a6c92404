"""gradle-repl's own class output for a source set: where the session compiles edits of its sources.

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
from gradle_repl.settings import DEFAULT_SOURCE_SET

__all__ = ["output_dir", "with_session_classes", "drop_session_classes"]


def output_dir(build_tool: str | None, project_root: str, project_path: str, source_set: str) -> Path:
    """The directory of one source set's classes compiled in sessions."""
    name = hashlib.sha256(f"{build_tool}\0{project_root}\0{project_path}\0{source_set}".encode()).hexdigest()[:16]
    return cache_dir() / "session-classes" / name


def with_session_classes(environment: ReplEnvironment) -> ReplEnvironment:
    """The environment just built by the build tool, its source set's session-compiled classes dropped (the build's
    output wins) and their directory first on the class path, empty, for the next edit. Changed in place, returned."""
    sources = environment.edit_sources
    if sources is None:
        return environment
    directory = str(_fresh(environment, environment.source_set))
    sources.output_dir = directory
    ours = [directory]
    main = sources.main_sources
    if main is not None:
        # A test session's edits of main sources go to the main source set's own directory, which a main session of
        # the project reads too (one truth); the build's test-compile compiled main as well, so it is dropped here too.
        main_directory = str(_fresh(environment, DEFAULT_SOURCE_SET))
        main.output_dir = main_directory
        main.hidden_dirs = list(dict.fromkeys([*main.hidden_dirs, directory]))
        sources.friend_dirs = list(dict.fromkeys([*sources.friend_dirs, main_directory]))
        ours.append(main_directory)
    # In the build's own order (test before main), each ahead of the build's output it stands for.
    environment.classpath = [*ours, *(p for p in environment.classpath if p not in ours)]
    return environment


def _fresh(environment: ReplEnvironment, source_set: str) -> Path:
    directory = output_dir(environment.build_tool, environment.project_root, environment.project_path, source_set)
    drop_session_classes(directory)
    return directory


def drop_session_classes(directory: Path) -> None:
    """Empties the directory (it stays, as a class path entry must)."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True, exist_ok=True)
