"""One REPL session inside the worker: runs each snippet, streams what it prints, and answers with its result."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from gradle_repl.frames import (
    AddedLibraries,
    CheckRequest,
    CheckResult,
    CodeDiagnostic,
    CompleteRequest,
    CompletionResult,
    DescribeRequest,
    DescriptionResult,
    ErrorResult,
    EvalRequest,
    StartRequest,
    SuccessResult,
    UpdateRequest,
    UpdateResult,
)
from gradle_repl.worker.classes.class_updates import ClassUpdater
from gradle_repl.worker.interruption import stop_snippet
from gradle_repl.worker.java import ExitGuard, JavaObject, Renderer, ReplDriver, ReplOutput, SnippetOutcome, java_class
from gradle_repl.worker.outcomes import snippet_result
from gradle_repl.worker.output_frames import Send, SnippetOutput
from gradle_repl.worker.repl.analysis import check_result
from gradle_repl.worker.repl.completion import SessionCompletion
from gradle_repl.worker.repl.declarations import Declarations
from gradle_repl.worker.repl.failures import FailedSnippets
from gradle_repl.worker.repl.memory import HeapWatch
from gradle_repl.worker.repl.plugin_hints import Hint
from gradle_repl.worker.safety import jstr
from gradle_repl.worker.snippet_names import SnippetCounter, users_number

__all__ = ["Facade", "ReplSession", "LIBRARIES_NOT_CHECKED"]

# Said with a check of code naming a library: resolving it would add it to the session.
_LIBRARIES_NOTE = (
    "a check does not resolve @file:DependsOn (that would add the library to the session): run the snippet to add "
    "it; until then, uses of the library may read as unresolved here"
)
LIBRARIES_NOT_CHECKED = CodeDiagnostic(severity="warning", message=_LIBRARIES_NOTE, text=f"warning: {_LIBRARIES_NOTE}")

# How often the loop collects output while a snippet runs: short enough that ordering across
# threads stays tight, long enough not to burn a core.
POLL_INTERVAL_MS = 20


@dataclass(frozen=True)
class Facade:
    """The jvm-worker facade's objects a session drives (Kotlin, through JPype)."""

    driver: ReplDriver
    output: ReplOutput
    renderer: Renderer
    exit_guard: ExitGuard


class ReplSession:
    """Made by worker.boot; evaluate() answers one request; exit_code set means: reply, then exit."""

    def __init__(
        self, request: StartRequest, facade: Facade, snippets: SnippetCounter, *, libraries_unavailable: str | None,
        hints: list[Hint], completion: SessionCompletion, classes: ClassUpdater,
    ) -> None:
        self._request = request
        self._facade = facade
        self._snippets = snippets
        # Why @file:DependsOn can't be used in this session; None when it can.
        self._libraries_unavailable = libraries_unavailable
        self._completion = completion
        self._classes = classes
        self._heap = HeapWatch()
        self._declarations = Declarations()
        self._failures = FailedSnippets(self._declarations, hints)
        self.exit_code: int | None = None

    def evaluate(self, request: EvalRequest, send: Send, cancel: threading.Event) -> None:
        """Runs one snippet, sending its output as it comes and its result last; a timeout or a set
        `cancel` stops it the same way (interrupt, then give up on the JVM)."""
        started = time.monotonic()
        if (refused := self._refuse_libraries(request.code)) is not None:
            send(refused)
            return
        output = SnippetOutput(self._facade.output, self._facade.renderer, self._request.frame_limit_bytes)
        self._facade.output.beginSnippet(self._request.output_limit_bytes)
        result = self._run(request, output, send, cancel)
        output.forward(send)
        result = self._unless_exit_requested(result)
        lost = isinstance(result, ErrorResult) and result.state_lost
        if lost and self.exit_code is None:
            self.exit_code = 0
        send(result.model_copy(update={
            "truncated_bytes": output.truncated + int(self._facade.output.droppedBytes()),
            "heap_warning": self._heap.warning(),
            "duration_ms": int((time.monotonic() - started) * 1000),
            "declared": len(self._declarations),
            "libraries": None if lost else self._added_libraries(),
        }))

    def answer(
        self, request: DescribeRequest | CheckRequest | CompleteRequest | UpdateRequest,
    ) -> DescriptionResult | CheckResult | CompletionResult | UpdateResult | ErrorResult:
        """A question about the session, answered without running anything or changing it; or, between snippets, the
        project's rebuilt classes brought into the session."""
        if isinstance(request, UpdateRequest):
            started = time.monotonic()
            return self._classes.update().model_copy(update={"id": request.id, "duration_ms": int((time.monotonic() - started) * 1000)})
        if isinstance(request, DescribeRequest):
            return self.describe(request)
        if isinstance(request, CheckRequest):
            return self.check(request)
        return self.complete(request)

    def check(self, request: CheckRequest) -> CheckResult | ErrorResult:
        """What compiling the code as the next snippet reports, and its value's type; the session is left as it was."""
        started = time.monotonic()
        if (refused := self._refuse_libraries(request.code)) is not None:
            return refused.model_copy(update={"id": request.id})
        self._completion.load()  # the analysis add-on ends the check before the backend, when this Kotlin has it
        running = self._snippets.check(request.code)
        running.join(0)  # Thread.join(0): until done; a compilation can't be interrupted, and always ends
        result = check_result(running.getOutcome(), request.code)
        if isinstance(result, CheckResult) and self._facade.driver.namesLibraries(request.code):
            result.diagnostics.append(LIBRARIES_NOT_CHECKED)
        return result.model_copy(update={"id": request.id, "duration_ms": int((time.monotonic() - started) * 1000)})

    def complete(self, request: CompleteRequest) -> CompletionResult | ErrorResult:
        """What fits at the cursor, from the compiler's resolution of the code in the session's state; nothing runs."""
        started = time.monotonic()
        if request.cursor > len(request.code):
            return ErrorResult(id=request.id, error_kind="internal", message=f"cursor {request.cursor} is past the code's end")
        earlier = self._declarations.names()
        result = self._completion.complete(
            request.code, request.cursor, self._snippets.next_file(), earlier, imported=self._declarations.imports()
        )
        return result.model_copy(update={"id": request.id, "duration_ms": int((time.monotonic() - started) * 1000)})

    def describe(self, request: DescribeRequest) -> DescriptionResult:
        description = self._declarations.describe()
        description.libraries = [jstr(c) for c in self._facade.driver.addedLibraries()]
        return DescriptionResult(id=request.id, description=description, declared=len(self._declarations))

    def _refuse_libraries(self, code: str) -> ErrorResult | None:
        """An error when the code names a library with @file:DependsOn and this session can't add libraries."""
        if self._libraries_unavailable is None or not self._facade.driver.namesLibraries(code):
            return None
        message = f"{self._libraries_unavailable}. Add the library to the build instead; the next call picks up the changed build."
        return ErrorResult(error_kind="compile", message=message)

    def _run(self, request: EvalRequest, output: SnippetOutput, send: Send, cancel: threading.Event) -> SuccessResult | ErrorResult:
        number, running = self._snippets.start(request.code)
        deadline = time.monotonic() + request.timeout_ms / 1000
        while not running.join(POLL_INTERVAL_MS):
            output.forward(send)
            if cancel.is_set() or time.monotonic() > deadline:
                stopped = stop_snippet(running, request_id=request.id, timeout_ms=request.timeout_ms, cancelled=cancel.is_set())
                outcome = running.getOutcome()
                if outcome is not None and outcome.cancelledBeforeEvaluation:
                    # It never ran, yet the REPL's history holds it: a later use of its declarations says so.
                    return self._failures.remember(number, request.code, _unless_unkept(outcome, stopped), compiled=True, ran=False)
                return stopped
        outcome = running.getOutcome()
        if outcome is None:  # the snippet's thread ended without reporting (an error outside the facade's own handling)
            return ErrorResult(error_kind="internal", message="the snippet ended without an outcome; the worker log may say why")
        result = snippet_result(
            outcome, request.code, output, heap_mb=self._request.heap_mb, explain=self._failures.explainer(request.code, number)
        )
        if isinstance(result, ErrorResult):
            result = self._failures.remember(number, request.code, result, compiled=bool(outcome.compiled))
        self._record_declarations(outcome, request.code, number, failed=isinstance(result, ErrorResult))
        return result

    def _record_declarations(self, outcome: SnippetOutcome, code: str, number: int, *, failed: bool) -> None:
        def ran() -> tuple[JavaObject, JavaObject] | None:
            evaluated = outcome.result
            script_class = evaluated.getScriptClass() if evaluated is not None else None
            if evaluated is None or script_class is None:
                return None
            return java_class("kotlin.jvm.JvmClassMappingKt").getJavaClass(script_class), evaluated.getScriptInstance()

        self._record(ran, code, number, failed=failed)

    def _record(self, snippet: Callable[[], tuple[JavaObject, JavaObject] | None], code: str, number: int, *, failed: bool) -> None:
        """Records what the snippet (its Java class and instance, when it has them) declared."""
        try:
            found = snippet()
            if found is not None:
                self._declarations.record(*found, users_number(number), code, failed=failed)
        except Exception as error:  # noqa: BLE001 - describing less must never cost the snippet its reply
            print(f"reading the declarations of snippet {number} failed: {error}", file=sys.stderr)

    def _added_libraries(self) -> AddedLibraries:
        driver = self._facade.driver
        return AddedLibraries(
            repositories=[jstr(url) for url in driver.addedRepositories()],
            coordinates=[jstr(coordinate) for coordinate in driver.addedLibraries()],
        )

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


def _unless_unkept(outcome: SnippetOutcome, stopped: ErrorResult) -> ErrorResult:
    """The answer for a snippet stopped before it ran, saying so when its classes could not join the session's loader
    chain (ReplDriver's chainWithoutRunning): later snippets then compile against declarations they can't load."""
    if outcome.internalError is None:
        return stopped
    why = jstr(outcome.internalError.toString())
    print(f"[gradle-repl] a snippet stopped before it ran could not be kept: {why}", file=sys.stderr, flush=True)
    return stopped.model_copy(update={
        "message": f"{stopped.message} Its classes could not be kept for later snippets ({why}): declare what it declared again."
    })
