"""Where the suite's files and directories are: the repository, its test projects, the public surface's snapshot, and
the run's own directories (state, cache, Kotlin daemons) beside the caches shared across runs."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE_PROJECT = REPO / "sample-project"
PROJECTS = REPO / "tests" / "projects"
# The plain Java app of the attach tests: a counter in a static, read and changed over its stdin.
COUNTER_APP = PROJECTS / "attach-java-plain"
# What tools/list publishes, kept as a snapshot (repo/test_tool_schemas.py; GRADLE_REPL_UPDATE_SCHEMAS=1 rewrites it).
TOOL_SCHEMAS = REPO / "tests" / "tool_schemas.json"
# A test app's Maven build: minutes the first time on a machine (Maven downloads its plugins and the web starter),
# seconds after.
APP_BUILD_TIMEOUT_SECONDS = 900


# Caches keyed by content alone (Kotlin version + sources, Maven coordinates, JDK + jars, extension sources) can't make one
# run see another's state, only skip minutes of identical work: they persist across runs here.
CONTENT_ADDRESSED_CACHES = ("facade", "toolchain", "class-data", "maven-extension", "agent", "app-classpath")


def persistent_test_cache() -> Path:
    """GRADLE_REPL_TEST_CACHE, else ~/.cache/gradle-repl-tests."""
    override = os.environ.get("GRADLE_REPL_TEST_CACHE")
    return Path(override) if override else Path.home() / ".cache" / "gradle-repl-tests"


def run_state_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This test run's own directory, one for all of pytest-xdist's workers: they share the environment
    cache, so a project is built once per run (buildlock.py queues the others) and never rebuilt under a
    JVM that another worker runs on its classes."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # each worker's basetemp is a directory of the run's own
    state = base / "gradle-repl-state"
    state.mkdir(exist_ok=True)
    return state


def kotlin_daemons_dir(run_state: Path) -> Path:
    """The run directory of this test run's Kotlin daemons (one for all of pytest-xdist's workers, as the environment
    cache they share is keyed by MAVEN_OPTS)."""
    return run_state / "kotlin-daemons"


def link_once(link: Path, target: Path) -> None:
    """A symlink that another xdist worker may have made first."""
    try:
        link.symlink_to(target, target_is_directory=True)
    except FileExistsError:
        pass


def run_cache_dir(run_state: Path) -> Path:
    """The run's GRADLE_REPL_CACHE_DIR: its own, with the content-addressed caches linked in."""
    cache = run_state / "cache"
    cache.mkdir(exist_ok=True)
    for name in CONTENT_ADDRESSED_CACHES:
        shared = persistent_test_cache() / name
        shared.mkdir(parents=True, exist_ok=True)
        link_once(cache / name, shared)
    return cache


def build_classpath(classpath: list[str]) -> list[str]:
    """A resolved class path as the build tool gave it: gradle-repl's own class directories for edits a session compiles
    (project/session_classes.py; a test source set's and its main's), which a Maven environment carries first, left out."""
    return [entry for entry in classpath if "session-classes" not in Path(entry).parts]


def copy_project(source: Path, destination: Path) -> Path:
    """A private copy of a test project without build outputs, for tests that edit or build it."""
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns("target", "build", ".gradle"))
    return destination
