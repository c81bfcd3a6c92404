"""One built copy of a test project per run and source set, for the tests that only read it.

A private copy costs a Maven build (and its Kotlin compile) per test. The run's environment cache is shared by all of
pytest-xdist's workers and keyed by the project's path (paths.run_state_dir), so every test resolving the same copy
after the first is served from the cache: the project is built once per run, whichever module comes first.

A shared copy is kept to one source set: building a project's test source set recompiles its main classes, which a
JVM of another test may be loading from that very copy at that moment. Its readers never write into it; a test that
edits, breaks or rebuilds a project takes a private copy (paths.copy_project)."""

from __future__ import annotations

import fcntl
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from support.paths import copy_project, run_state_dir

if TYPE_CHECKING:
    import pytest

__all__ = ["shared_copy"]


def shared_copy(project: Path, source_set: Literal["main", "test"], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's copy of `project` for reading its `source_set`, made by whichever test asks first."""
    shared = run_state_dir(tmp_path_factory) / "shared-projects"
    shared.mkdir(exist_ok=True)
    copy = shared / source_set / project.name
    with (shared / f"{source_set}-{project.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another xdist worker may be copying it right now
        if not copy.exists():
            partial = shared / source_set / f".{project.name}.partial"
            shutil.rmtree(partial, ignore_errors=True)  # a copy an interrupted test left half made
            copy_project(project, partial)
            partial.rename(copy)
    return copy
