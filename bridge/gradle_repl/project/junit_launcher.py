"""The JUnit Platform Launcher a test session runs its tests with, at the version of the project's own platform.

Builds declare test engines (junit-jupiter-engine, the vintage engine, kotlin.test's) and leave the launcher to the build
tool's runner (surefire, Gradle's test task bring their own). A session runs the tests itself, so when the classpath has
`junit-platform-engine` and no `junit-platform-launcher`, the launcher of that exact version is fetched from Maven
Central and put on the classpath, next to the engines, in the project's own class loader. Optional: a launcher that
can't be fetched leaves the session as it is, with a warning saying why tests can't run.
"""

from __future__ import annotations

import re
from pathlib import Path

from gradle_repl.environment import ReplEnvironment
from gradle_repl.errors import GradleReplError
from gradle_repl.project.dependency_support import why_not_fetched
from gradle_repl.project.process import ProgressCallback
from gradle_repl.project.toolchain import Coordinate, resolve_jars

__all__ = ["add_test_launcher", "platform_version", "TESTS_UNAVAILABLE"]

# How a warning saying why a test session can't run its tests begins.
TESTS_UNAVAILABLE = "run_project_tests is unavailable in this session"
_ENGINE = re.compile(r"junit-platform-engine-(?P<version>\d[\w.+-]*?)\.jar")
_LAUNCHER = re.compile(r"junit-platform-launcher-\d[\w.+-]*\.jar")


def platform_version(classpath: list[str]) -> str | None:
    """The version of the JUnit Platform's engine API on the classpath, or None when no engine can run there."""
    for entry in classpath:
        found = _ENGINE.fullmatch(Path(entry).name)
        if found is not None:
            return found.group("version")
    return None


def add_test_launcher(environment: ReplEnvironment, on_progress: ProgressCallback | None = None) -> None:
    """Appends the launcher to a test session's classpath when it has an engine and no launcher (the environment is
    changed, not copied); a launcher that can't be fetched is said in a warning."""
    version = platform_version(environment.classpath)
    if environment.source_set == "main" or version is None:
        return
    if any(_LAUNCHER.fullmatch(Path(entry).name) for entry in environment.classpath):
        return
    launcher = Coordinate("org.junit.platform", "junit-platform-launcher", version, transitive=False)
    try:
        jars = resolve_jars({"junit-launcher": [launcher]}, on_progress=on_progress)
    except GradleReplError as error:
        environment.warnings.append(
            f"{TESTS_UNAVAILABLE}: the JUnit Platform launcher {version} could not be fetched ({why_not_fetched(str(error))})"
        )
        return
    environment.classpath = [*environment.classpath, *jars.by_request["junit-launcher"]]
