"""A test session's test runner: the facade's JUnit Platform part (jvm-worker/runs-in-worker/junit), compiled against
the project's own launcher and engine API, on the snippets' classpath (it runs the project's tests in the project's
class loader, so a test sees the classes snippets see) and a default import (`lastTestFailures`). A session whose
classpath has no JUnit Platform engine has no runner, and says why in one line."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gradle_repl.environment import ReplEnvironment
from gradle_repl.errors import WorkerFailed
from gradle_repl.worker.artifacts.facade import build_junit_addon

__all__ = ["JunitAddon", "junit_addon", "NO_ENGINE"]

# The runner's package, imported into every snippet of a session that has it: lastTestFailures, TestFailure.
_IMPORT = "gradlerepl.junit.*"
_ENGINE = re.compile(r"junit-platform-engine-\d[\w.+-]*\.jar")
_LAUNCHER = re.compile(r"junit-platform-launcher-\d[\w.+-]*\.jar")
NO_ENGINE = (
    "this session's classpath has no JUnit Platform test engine (junit-jupiter-engine, junit-vintage-engine for JUnit 4, "
    "kotlin-test-junit5): a project on TestNG alone or Spock 1 runs its tests through its build tool"
)


@dataclass(frozen=True)
class JunitAddon:
    jar: Path | None = None
    unavailable: str = NO_ENGINE  # why this session can't run tests; read only when jar is None

    @property
    def imports(self) -> list[str]:
        return [_IMPORT] if self.jar is not None else []

    @property
    def classpath(self) -> list[str]:
        return [str(self.jar)] if self.jar is not None else []


def junit_addon(environment: ReplEnvironment, compile_classpath: list[str]) -> JunitAddon:
    """The runner of this session, compiled on first use; or why there is none."""
    names = [Path(entry).name for entry in environment.classpath]
    if not any(_ENGINE.fullmatch(name) for name in names):
        return JunitAddon()
    if not any(_LAUNCHER.fullmatch(name) for name in names):
        said = next(
            (w for w in environment.warnings if "launcher" in w), "the JUnit Platform launcher is not on its classpath"
        )
        return JunitAddon(unavailable=said)
    try:
        jar, _ = build_junit_addon(environment.kotlin_version, compile_classpath)
    except WorkerFailed as error:
        detail = next((line for line in str(error).splitlines()[1:] if line.strip()), str(error).splitlines()[0])
        return JunitAddon(
            unavailable=f"the test runner did not compile against the project's JUnit Platform ({detail.strip()})"
        )
    return JunitAddon(jar=jar)
