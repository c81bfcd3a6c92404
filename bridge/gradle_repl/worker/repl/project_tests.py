"""Runs the project's tests inside the session: the facade's test runner on its own thread, polled like a snippet.

What the build configures for its test JVM (`ReplEnvironment.test_settings`) applies: system properties are set for
the run and restored after it; class-name includes/excludes filter a run of every test; tags filter every run. A
timeout or a cancel interrupts the running test; one that ignores the interrupt is stopped where the JDK still can
(Thread.stop, before JDK 20); past that the worker must go. A failure's stack keeps the project's own frames only.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import ErrorResult, TestFailureDetail, TestProgressFrame, TestRunRequest, TestRunResult
from gradle_repl.testrun_settings import TestRunSettings
from gradle_repl.worker.deadlines import INTERRUPT_GRACE_SECONDS
from gradle_repl.worker.interruption import why_stopped
from gradle_repl.worker.java import JavaObject, TestFailure, TestRun, java_class, string_array, test_runs
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.runner import TestProgress

__all__ = ["ProjectTestRunner", "class_name_pattern", "scanned_roots", "test_outputs"]

_POLL_MS = 50
# One failing test's printed output kept in the JVM; the host's result limit cuts further.
_OUTPUT_PER_TEST_BYTES = 16_000
# Frames of a failure kept per exception in its chain, the project's own.
_FRAMES_KEPT = 12


class ProjectTestRunner:
    """The session's test runner, or why it has none (`unavailable`)."""

    def __init__(self, environment: ReplEnvironment, snippet_loader: JavaObject, *, unavailable: str | None) -> None:
        self.unavailable = unavailable
        self._environment = environment
        self._loader = snippet_loader
        self._settings = environment.test_settings or TestRunSettings()
        self._roots = scanned_roots(environment.classpath)

    @property
    def test_outputs(self) -> list[str]:
        """The class directories of the test sources (a failed test's rerun may load its classes from them afresh)."""
        return test_outputs(self._environment.classpath)

    def run(
        self,
        request: TestRunRequest,
        progress: TestProgress,
        cancel: threading.Event,
        loader: JavaObject | None = None,
    ) -> TestRunResult | ErrorResult:
        """Runs the tests, sending a progress frame per finished test; the result is returned, not sent (the worker
        stamps its id and duration, as every answer's). `loader`: where the tests' classes load, the session's unless
        a failed test's rerun loads its own afresh (gradlerepl.probes.RerunLoader)."""
        started = time.monotonic()
        settings = self._settings
        restore = _set_properties(settings.system_properties)
        try:
            run = test_runs(self._loader).start(
                string_array(request.selectors),
                string_array(self._roots),
                string_array([class_name_pattern(p) for p in settings.includes]),
                string_array([class_name_pattern(p) for p in settings.excludes]),
                string_array(settings.include_tags),
                string_array(settings.exclude_tags),
                request.failed_only,
                string_array(request.known_failing),
                _OUTPUT_PER_TEST_BYTES,
                loader if loader is not None else self._loader,
            )
            deadline = started + request.timeout_ms / 1000
            stopped: str | None = None
            lost = False
            while not run.join(_POLL_MS):
                _progress(run, request.id, progress)
                if cancel.is_set() or time.monotonic() > deadline:
                    stopped, lost = _stop(run, timeout_ms=request.timeout_ms, cancelled=cancel.is_set())
                    break
            _progress(run, request.id, progress)
        finally:
            restore()
        refusal = run.getRefusal()
        if refusal is not None:
            return ErrorResult(error_kind="runtime", message=f"Can't run tests: {jstr(refusal)}.")
        notices = [f"not applied from the build's test settings: {line}" for line in settings.not_applied]
        broken = run.getInternalError()
        if broken is not None:
            notices.append(f"the test runner failed: {jstr(broken.toString())}")
        return TestRunResult(
            passed=int(run.getPassed()),
            failed=int(run.getFailed()),
            skipped=int(run.getSkipped()),
            aborted=int(run.getAborted()),
            failures=[self._detail(failure) for failure in run.failureList()],
            stopped=stopped,
            state_lost=lost,
            known_failing=[jstr(test) for test in run.knownFailing()],
            failed_only_notes=[jstr(note) for note in run.notes()],
            notices=notices,
        )

    def _detail(self, failure: TestFailure) -> TestFailureDetail:
        exception = failure.getException()
        return TestFailureDetail(
            test=jstr(failure.getTest()),
            display_name=jstr(failure.getDisplayName()),
            message=jstr(exception.toString()) if exception is not None else "failed without an exception",
            stack=self._own_frames(exception),
            output=jstr(failure.getOutput()),
        )

    def _own_frames(self, exception: JavaObject | None) -> list[str]:
        """The frames of the exception and its causes that are in the project's own classes, `Class.method(File.kt:12)`."""
        frames: list[str] = []
        seen = 0
        while exception is not None and seen < 8:
            kept = [
                _frame(element) for element in exception.getStackTrace() if self._is_own(jstr(element.getClassName()))
            ]
            if seen > 0 and kept:
                frames.append(f"Caused by: {jstr(exception.toString())}")
            frames += kept[:_FRAMES_KEPT]
            cause = exception.getCause()
            exception = None if cause is None or cause.equals(exception) else cause
            seen += 1
        return frames

    def _is_own(self, class_name: str) -> bool:
        return _in_directories(class_name, tuple(self._directories))

    @property
    def _directories(self) -> list[str]:
        return [entry for entry in self._environment.classpath if Path(entry).is_dir()]


def _frame(element: JavaObject) -> str:
    line = int(element.getLineNumber())
    where = jstr(element.getFileName()) if element.getFileName() is not None else "unknown source"
    return f"{jstr(element.getClassName())}.{jstr(element.getMethodName())}({where}{f':{line}' if line >= 0 else ''})"


@cache
def _in_directories(class_name: str, directories: tuple[str, ...]) -> bool:
    """Whether the class (its outer class: a lambda's, a nested class's) is a class file of one of the directories."""
    relative = class_name.split("$", 1)[0].replace(".", "/") + ".class"
    return any((Path(directory) / relative).is_file() for directory in directories)


def _progress(run: TestRun, request_id: int, progress: TestProgress) -> None:
    for line in run.drainFinished():
        progress(TestProgressFrame(id=request_id, line=jstr(line)))


def _stop(run: TestRun, *, timeout_ms: int, cancelled: bool) -> tuple[str, bool]:
    """Interrupts the running test; Thread.stop where the interrupt is ignored. Why it stopped, and whether the
    worker must go (the test still runs)."""
    why, _ = why_stopped(timeout_ms=timeout_ms, cancelled=cancelled)
    run.cancel()
    if run.join(int(INTERRUPT_GRACE_SECONDS * 500)):
        return f"{why}: the running test was interrupted", False
    if run.forceStop() and run.join(int(INTERRUPT_GRACE_SECONDS * 500)):
        return f"{why}: the running test ignored the interrupt and was stopped (Thread.stop)", False
    return (
        f"{why}: the running test ignored the interrupt and this JDK can't stop a thread; the session's state is lost",
        True,
    )


def _set_properties(properties: dict[str, str]) -> Callable[[], None]:
    """Sets the system properties; the function returned puts back what was there."""
    system = java_class("java.lang.System")
    before = {name: system.getProperty(name) for name in properties}
    for name, value in properties.items():
        system.setProperty(name, value)

    def restore() -> None:
        for name, value in before.items():
            if value is None:
                system.clearProperty(name)
            else:
                system.setProperty(name, value)

    return restore


def scanned_roots(classpath: list[str]) -> list[str]:
    """The class directories a run of every test scans: the test outputs; else all of them."""
    return test_outputs(classpath) or [entry for entry in classpath if Path(entry).is_dir()]


def test_outputs(classpath: list[str]) -> list[str]:
    """The test sources' class directories (Maven's target/test-classes, Gradle's build/classes/kotlin/test, a KMP
    jvmTest's), named for tests by their last part."""
    return [entry for entry in classpath if Path(entry).is_dir() and "test" in Path(entry).name.lower()]


def class_name_pattern(pattern: str) -> str:
    """A build's include/exclude pattern as the regular expression over class names JUnit's ClassNameFilter takes:
    surefire's `**/*Test.java` and Gradle's `shop.*Test` alike; one that reads as a regular expression already
    (`%regex[...]`) is taken as it is."""
    if pattern.startswith("%regex[") and pattern.endswith("]"):
        return pattern[len("%regex[") : -1]
    text = re.sub(r"\.(java|kt|class)$", "", pattern.strip()).replace("/", ".")
    out = []
    index = 0
    while index < len(text):
        if text.startswith("**.", index):
            out.append(r"(?:.*\.)?")
            index += 3
        elif text.startswith("**", index):
            out.append(".*")
            index += 2
        elif text[index] == "*":
            out.append(r"[^.]*")
            index += 1
        elif text[index] == "?":
            out.append(r"[^.]")
            index += 1
        else:
            out.append(re.escape(text[index]))
            index += 1
    # A pattern without a package matches the simple name in any package, as surefire's does.
    prefix = "" if "." in text.replace("**.", "") else r"(?:.*\.)?"
    return prefix + "".join(out)
