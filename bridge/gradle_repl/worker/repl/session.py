"""One REPL session inside the worker: compiles each snippet, has its runner run it (worker/runner.py: in this JVM or
in an attached one), and answers checks, completion and describe from what the snippets declared."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

from gradle_repl.errors import GradleReplError
from gradle_repl.frames import (
    AddProbeRequest,
    CheckRequest,
    CheckResult,
    CodeDiagnostic,
    CompleteRequest,
    CompletionResult,
    DescribeRequest,
    DescriptionResult,
    ErrorResult,
    EvalRequest,
    ProbesResult,
    ReadProbesRequest,
    RemoveProbeRequest,
    StartRequest,
    SuccessResult,
    TestRunRequest,
    TestRunResult,
    UpdateRequest,
    UpdateResult,
)
from gradle_repl.worker.java import ReplDriver
from gradle_repl.worker.repl.analysis import check_result
from gradle_repl.worker.repl.completion import SessionCompletion
from gradle_repl.worker.repl.declarations import Declarations
from gradle_repl.worker.repl.failures import FailedSnippets
from gradle_repl.worker.repl.memory import heap_nearly_full
from gradle_repl.worker.repl.plugin_hints import Hint
from gradle_repl.worker.results.outcomes import ExplainFailedUse, failure_details
from gradle_repl.worker.results.output_frames import Send
from gradle_repl.worker.runner import DeclaringSnippet, ProbeError, SessionProbes, SnippetRunner, TestProgress
from gradle_repl.worker.snippet_names import SnippetCounter, users_number

__all__ = ["ReplSession", "LIBRARIES_NOT_CHECKED"]


# Said with a check of code naming a library: resolving it would add it to the session.
_LIBRARIES_NOTE = (
    "a check does not resolve @file:DependsOn (that would add the library to the session): run the snippet to add "
    "it; until then, uses of the library may read as unresolved here"
)
LIBRARIES_NOT_CHECKED = CodeDiagnostic(severity="warning", message=_LIBRARIES_NOTE, text=f"warning: {_LIBRARIES_NOTE}")


class _Records:
    """The session's SnippetRecords (worker/runner.py): what each snippet declared and how it failed, told by the
    runner that ran it."""

    def __init__(self, declarations: Declarations, hints: list[Hint]) -> None:
        self._declarations = declarations
        self._failures = FailedSnippets(declarations, hints)

    def explainer(self, code: str, number: int) -> ExplainFailedUse:
        return self._failures.explainer(code, number)

    def remember(self, number: int, code: str, result: ErrorResult, *, compiled: bool, ran: bool = True) -> ErrorResult:
        return self._failures.remember(number, code, result, compiled=compiled, ran=ran)

    def record(self, snippet: DeclaringSnippet, code: str, number: int, *, failed: bool) -> None:
        try:
            found = snippet()
            if found is not None:
                self._declarations.record(*found, users_number(number), code, failed=failed)
        except Exception as error:  # noqa: BLE001 - describing less must never cost the snippet its reply
            print(f"reading the declarations of snippet {number} failed: {error}", file=sys.stderr)


class ReplSession:
    """Made by worker.boot; evaluate() answers one request; exit_code set means: reply, then exit.

    Compiling, checking, completing and what the snippets declared are the session's, here; where a snippet runs (this
    JVM, or one the session is attached to) is its runner's."""

    def __init__(
        self,
        request: StartRequest,
        driver: ReplDriver,
        snippets: SnippetCounter,
        runner: SnippetRunner,
        *,
        libraries_unavailable: str | None,
        hints: list[Hint],
        completion: SessionCompletion,
        probes: SessionProbes,
    ) -> None:
        self._request = request
        self._driver = driver
        self._snippets = snippets
        self._runner = runner
        # Why @file:DependsOn can't be used in this session; None when it can.
        self._libraries_unavailable = libraries_unavailable
        self._completion = completion
        # The session's probes, in its own JVM or in the app it is attached to.
        self._probes = probes
        self._declarations = Declarations()
        self._records = _Records(self._declarations, hints)
        self._lost = False  # an answer said the session's state is lost: the worker exits after it

    @property
    def exit_code(self) -> int | None:
        """What the worker exits with once it has replied: the runner's (System.exit's status), 0 after an answer
        that lost the session's state, None while the session goes on."""
        if self._runner.exit_code is not None:
            return self._runner.exit_code
        return 0 if self._lost else None

    def evaluate(self, request: EvalRequest, send: Send, cancel: threading.Event) -> SuccessResult | ErrorResult:
        """Runs one snippet, sending its output as it comes; its result. A timeout or a set `cancel` stops it the same
        way (interrupt, then give up on the JVM)."""
        if (refused := self._refuse_libraries(request.code)) is not None:
            return refused
        result = self._runner.run(request, send, cancel, self._records)
        lost = self._lose_if(result)
        return result.model_copy(
            update={"declared": len(self._declarations), "libraries": None if lost else self._runner.libraries()}
        )

    def throwaway_compile(self, code: str) -> str | None:
        """Compiles `code` as a run would and takes it back (worker/repl/idle_warm_up.py); why it could not, or None.
        Not on a nearly full heap, where the compile's garbage could push the session's own threads out of memory."""
        if heap_nearly_full():
            return "the session's heap is nearly full"
        running = self._snippets.throwaway(code)
        running.join(0)  # Thread.join(0): wait until done
        outcome = running.getOutcome()
        if outcome is not None and outcome.compiled and outcome.internalError is None:
            return None
        return "; ".join(failure_details(outcome)) or "it did not compile"

    def run_tests(
        self, request: TestRunRequest, progress: TestProgress, cancel: threading.Event
    ) -> TestRunResult | ErrorResult:
        """Runs the project's tests where the snippets run (the runner's), progress as tests finish; the result."""
        return self._runner.run_tests(request, progress, cancel)

    def add_probe(self, request: AddProbeRequest) -> ProbesResult | ErrorResult:
        """A probe set until it is removed, reaches its maxHits or expires."""
        return self._with_probes(lambda probes: probes.add(request))

    def read_probes(self, request: ReadProbesRequest) -> ProbesResult | ErrorResult:
        """The session probes' hits since the last read, and their states."""
        return self._with_probes(lambda probes: probes.read(request.probe_id))

    def remove_probe(self, request: RemoveProbeRequest) -> ProbesResult | ErrorResult:
        """A session probe taken out of the code, with its hits not yet read."""
        return self._with_probes(lambda probes: probes.remove(request.probe_id))

    def after_reply(self) -> None:
        """What an answer left to do once it is sent (worker/__main__.py calls it after each)."""
        self._probes.after_reply()

    def _with_probes(self, act: Callable[[SessionProbes], ProbesResult]) -> ProbesResult | ErrorResult:
        try:
            return act(self._probes)
        except (ProbeError, GradleReplError) as error:  # GradleReplError: an attached app's connection lost meanwhile
            return ErrorResult(error_kind="probe", message=str(error))

    def update(self, request: UpdateRequest) -> UpdateResult:
        """Between snippets, the project's rebuilt classes brought into the JVM the snippets run in (or why not)."""
        return self._runner.update()

    def check(self, request: CheckRequest) -> CheckResult | ErrorResult:
        """What compiling the code as the next snippet reports, and its value's type; the session is left as it was."""
        if (refused := self._refuse_libraries(request.code)) is not None:
            return refused
        self._completion.load()  # the analysis add-on ends the check before the backend, when this Kotlin has it
        running = self._snippets.check(request.code)
        running.join(0)  # Thread.join(0): until done; a compilation can't be interrupted, and always ends
        result = check_result(running.getOutcome(), request.code)
        if isinstance(result, CheckResult) and self._driver.namesLibraries(request.code):
            result.diagnostics.append(LIBRARIES_NOT_CHECKED)
        return result

    def complete(self, request: CompleteRequest) -> CompletionResult | ErrorResult:
        """What fits at the cursor, from the compiler's resolution of the code in the session's state; nothing runs."""
        if request.cursor > len(request.code):
            return ErrorResult(error_kind="internal", message=f"cursor {request.cursor} is past the code's end")
        earlier = self._declarations.names()
        return self._completion.complete(
            request.code, request.cursor, self._snippets.next_file(), earlier, imported=self._declarations.imports()
        )

    def describe(self, request: DescribeRequest) -> DescriptionResult | ErrorResult:
        """The names the snippets declared, with their types, and their values where they live."""
        description = self._runner.describe(request.id, self._declarations.describe)
        if isinstance(description, ErrorResult):
            self._lose_if(description)
            return description
        description.libraries = self._runner.libraries().coordinates
        description.probes = self._probes.states()
        return DescriptionResult(description=description, declared=len(self._declarations))

    def _lose_if(self, result: object) -> bool:
        """Whether `result` lost the session's state; the worker then exits once it has replied."""
        lost = isinstance(result, ErrorResult) and result.state_lost
        self._lost = self._lost or lost
        return lost

    def _refuse_libraries(self, code: str) -> ErrorResult | None:
        """An error when the code names a library with @file:DependsOn and this session can't add libraries."""
        if self._libraries_unavailable is None or not self._driver.namesLibraries(code):
            return None
        message = f"{self._libraries_unavailable}. Add the library to the build instead; the next call picks up the changed build."
        return ErrorResult(error_kind="compile", message=message)
