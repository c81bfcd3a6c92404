"""Snippets run in this JVM: the facade's driver compiles and evaluates each, ReplOutput captures what it prints and
shows, the exit guard turns System.exit into an answer, HeapWatch warns before the heap runs out, and @file:DependsOn
adds libraries. The session (worker/repl/session.py) drives it as its SnippetRunner (worker/runner.py)."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass

from gradle_repl.frames import (
    AddedLibraries,
    ErrorResult,
    EvalRequest,
    SessionDescription,
    SnippetTimes,
    StartRequest,
    SuccessResult,
    TestRunRequest,
    TestRunResult,
    UpdateResult,
)
from gradle_repl.settings import DEFAULTS
from gradle_repl.worker.deadlines import FIRST_COMPILE_SECONDS
from gradle_repl.worker.interruption import stop_snippet
from gradle_repl.worker.java import ExitGuard, JavaObject, Renderer, ReplDriver, ReplOutput, SnippetOutcome, java_class
from gradle_repl.worker.repl.failure_frames import explained_frames, frame_probes, rerun_selector
from gradle_repl.worker.repl.memory import HeapWatch
from gradle_repl.worker.repl.project_tests import ProjectTestRunner
from gradle_repl.worker.results.outcomes import snippet_result
from gradle_repl.worker.results.output_frames import Send, SnippetOutput
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.runner import (
    POLL_INTERVAL_MS,
    ClassUpdates,
    DeclaringSnippet,
    Describe,
    ProbeError,
    RerunProbes,
    SnippetRecords,
    TestProgress,
)
from gradle_repl.worker.snippet_names import SnippetCounter

__all__ = ["Facade", "LocalRunner"]

# An explained failure's run again needs at least this much of the request's time left.
_EXPLAIN_AT_LEAST_MS = 1_000


@dataclass(frozen=True)
class Facade:
    """The jvm-worker facade's objects that run snippets in this JVM (Kotlin, through JPype)."""

    driver: ReplDriver
    output: ReplOutput
    renderer: Renderer
    exit_guard: ExitGuard


class LocalRunner:
    """Runs the session's snippets in this worker's JVM."""

    def __init__(
        self,
        request: StartRequest,
        facade: Facade,
        snippets: SnippetCounter,
        classes: ClassUpdates,
        tests: ProjectTestRunner,
        probes: RerunProbes,
    ) -> None:
        self._request = request
        self._tests = tests
        self._probes = probes
        self._facade = facade
        self._snippets = snippets
        self._classes = classes
        self._heap = HeapWatch()
        self.exit_code: int | None = None
        # Without the boot's warm-up, the session's first run compiles on a compiler nothing has compiled with yet.
        self._first_compile_pending = not request.warm_up

    def run(
        self, request: EvalRequest, send: Send, cancel: threading.Event, records: SnippetRecords
    ) -> SuccessResult | ErrorResult:
        output = SnippetOutput(self._facade.renderer, self._request.frame_limit_bytes)
        try:
            with self._probes.during(request.probes) as probes:
                self._facade.output.beginSnippet(self._request.output_limit_bytes)
                result = self._run(request, output, send, cancel, records)
        except ProbeError as error:
            return ErrorResult(error_kind="probe", message=str(error))
        self._forward(output, send)
        result = self._unless_exit_requested(result)
        return result.model_copy(
            update={
                "truncated_bytes": output.truncated + int(self._facade.output.droppedBytes()),
                "heap_warning": self._heap.warning(),
                "probe_hits": probes.hits(),
                "probe_notes": probes.notes(),
            }
        )

    def run_tests(
        self, request: TestRunRequest, progress: TestProgress, cancel: threading.Event
    ) -> TestRunResult | ErrorResult:
        """Runs the project's tests (worker/repl/project_tests.py) here. A test's System.exit is refused by the exit guard as a
        snippet's is: the result says so, then the worker ends."""
        if self._tests.unavailable is not None:
            return ErrorResult(error_kind="runtime", message=f"Can't run tests: {self._tests.unavailable}.")
        # The request's timeout covers its explained failures' runs too: the host waits that long for the answer.
        deadline = time.monotonic() + request.timeout_ms / 1000
        try:
            with self._probes.during(request.probes) as probes:
                result = self._tests.run(request, progress, cancel)
        except ProbeError as error:
            return ErrorResult(error_kind="probe", message=str(error))
        self._facade.output.drain()  # what ran outside any test (a static initialiser's print) is no snippet's output
        if isinstance(result, ErrorResult):
            return result
        result = result.model_copy(update={"probe_hits": probes.hits(), "probe_notes": probes.notes()})
        if request.explain_failures and result.failures and not result.stopped:
            result = self._explained(request, result, cancel, deadline)
        status = self._facade.exit_guard.requestedStatus()
        if status is not None:
            self.exit_code = int(status)
            result = result.model_copy(
                update={
                    "state_lost": True,
                    "notices": [
                        *result.notices,
                        (
                            f"A test called System.exit({int(status)}): it was refused (the test saw a SecurityException), and the "
                            "session's JVM is stopped as after a snippet's System.exit; the next call starts a fresh session."
                        ),
                    ],
                }
            )
        elif result.state_lost:
            self.exit_code = 0
        return result

    def _explained(
        self, request: TestRunRequest, result: TestRunResult, cancel: threading.Event, deadline: float
    ) -> TestRunResult:
        """The run with its first failures explained: each failed test run again alone with probes at its frames
        (worker/repl/failure_frames.py), within what is left of the request's timeout; what each frame held goes into
        the failure, when it failed again."""
        failures = list(result.failures)
        notes = list(result.probe_notes)
        for position, failure in enumerate(failures[: DEFAULTS.explained_failures]):
            probes = frame_probes(failure)
            left_ms = int((deadline - time.monotonic()) * 1000)
            if cancel.is_set() or left_ms < _EXPLAIN_AT_LEAST_MS:
                notes.append(f"{failure.test} was not explained: the run's timeout left no time to run it again")
                continue
            if not probes:
                continue
            again = TestRunRequest(
                id=request.id, selectors=[rerun_selector(failure)], timeout_ms=left_ms, probes=probes
            )
            # The test's own classes load afresh where they can: their probes go in as they load, with no retransform
            # (a safepoint of tens of ms in this JVM, several times the rerun).
            afresh = self._probes.rerun_loader(probes, self._tests.test_outputs)
            try:
                with self._probes.during(probes, afresh) as set_probes:
                    rerun = self._tests.run(again, lambda _: None, cancel, afresh)
            except ProbeError as error:
                notes.append(f"{failure.test} could not be explained: {error}")
                continue
            if not isinstance(rerun, TestRunResult) or rerun.failed == 0:
                notes.append(f"{failure.test} did not fail when run again alone: its frames are not shown")
                continue
            frames = explained_frames(probes, set_probes.every_hit())
            failures[position] = failure.model_copy(update={"frames": frames})
        self._facade.output.drain()
        if len(result.failures) > DEFAULTS.explained_failures:
            notes.append(
                f"the first {DEFAULTS.explained_failures} of {len(result.failures)} failures were explained; "
                "run the others by name to explain them"
            )
        return result.model_copy(update={"failures": failures, "probe_notes": notes})

    def describe(self, request_id: int, describe: Describe) -> SessionDescription:
        return describe(None)  # the values are here: the session's declarations read them

    def libraries(self) -> AddedLibraries:
        driver = self._facade.driver
        return AddedLibraries(
            repositories=[jstr(url) for url in driver.addedRepositories()],
            coordinates=[jstr(coordinate) for coordinate in driver.addedLibraries()],
        )

    def update(self) -> UpdateResult:
        return self._classes.update()

    def _forward(self, output: SnippetOutput, send: Send) -> None:
        """Sends everything the snippet produced since the last call, in order."""
        output.forward(self._facade.output.drain(), send)

    def _run(
        self,
        request: EvalRequest,
        output: SnippetOutput,
        send: Send,
        cancel: threading.Event,
        records: SnippetRecords,
    ) -> SuccessResult | ErrorResult:
        number, running = self._snippets.start(request.code)
        started, timeout = time.monotonic(), request.timeout_ms / 1000
        deadline = started + timeout
        # Loading the compiler is the worker's start, not the snippet's time: the timeout counts from its compile's end.
        first_compile_until = started + FIRST_COMPILE_SECONDS if self._first_compile_pending else None
        self._first_compile_pending = False
        while not running.join(POLL_INTERVAL_MS):
            self._forward(output, send)
            if first_compile_until is not None and not running.getEvaluating():
                deadline = min(time.monotonic(), first_compile_until) + timeout
            if cancel.is_set() or time.monotonic() > deadline:
                stopped = stop_snippet(
                    running, request_id=request.id, timeout_ms=request.timeout_ms, cancelled=cancel.is_set()
                )
                outcome = running.getOutcome()
                if outcome is not None and outcome.cancelledBeforeEvaluation:
                    # It never ran, yet the REPL's history holds it: a later use of its declarations says so.
                    return records.remember(
                        number, request.code, _unless_unkept(outcome, stopped), compiled=True, ran=False
                    )
                return stopped
        outcome = running.getOutcome()
        if outcome is None:  # the snippet's thread ended without reporting (an error outside the facade's own handling)
            return ErrorResult(
                error_kind="internal", message="the snippet ended without an outcome; the worker log may say why"
            )
        result = snippet_result(
            outcome,
            request.code,
            output,
            heap_mb=self._request.heap_mb,
            explain=records.explainer(request.code, number),
        ).model_copy(update={"times": _times(outcome)})
        if isinstance(result, ErrorResult):
            result = records.remember(number, request.code, result, compiled=bool(outcome.compiled))
        records.record(_ran(outcome), request.code, number, failed=isinstance(result, ErrorResult))
        return result

    def _unless_exit_requested(self, result: SuccessResult | ErrorResult) -> SuccessResult | ErrorResult:
        """After a snippet called System.exit (refused by the exit guard): reply, then end with its status."""
        status = self._facade.exit_guard.requestedStatus()
        if status is None:
            return result
        self.exit_code = int(status)
        return ErrorResult(
            error_kind="exited",
            state_lost=True,
            message=f"The snippet called System.exit({int(status)}): the session's JVM is stopped and its state is lost "
            "(shutdown hooks a snippet registered don't run). The next call starts a fresh session.",
        )


def _times(outcome: SnippetOutcome) -> SnippetTimes:
    return SnippetTimes(
        compile_ms=int(outcome.compileNanos) / 1e6,
        evaluate_ms=int(outcome.evaluateNanos) / 1e6,
        render_ms=int(outcome.renderNanos) / 1e6,
        depended_modules=int(outcome.dependedModules),
    )


def _ran(outcome: SnippetOutcome) -> DeclaringSnippet:
    """The snippet's Java class and instance, once it ran (read when the session records its declarations)."""

    def ran() -> tuple[JavaObject, JavaObject] | None:
        evaluated = outcome.result
        script_class = evaluated.getScriptClass() if evaluated is not None else None
        if evaluated is None or script_class is None:
            return None
        return java_class("kotlin.jvm.JvmClassMappingKt").getJavaClass(script_class), evaluated.getScriptInstance()

    return ran


def _unless_unkept(outcome: SnippetOutcome, stopped: ErrorResult) -> ErrorResult:
    """The answer for a snippet stopped before it ran, saying so when its classes could not join the session's
    (SnippetLoaders.configurationFor): later snippets then compile against declarations they can't load."""
    if outcome.internalError is None:
        return stopped
    why = jstr(outcome.internalError.toString())
    print(f"[gradle-repl] a snippet stopped before it ran could not be kept: {why}", file=sys.stderr, flush=True)
    return stopped.model_copy(
        update={
            "message": f"{stopped.message} Its classes could not be kept for later snippets ({why}): declare what it declared again."
        }
    )
