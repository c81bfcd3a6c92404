"""An attached session's runner: snippets compile here, in the worker's K2 REPL, and run in a JVM that is already running.

The worker loads gradle-repl's agent into the target (agent_loading.py) unless it already listens there, connects to
it (agent_wire.py), and for each snippet sends the classes the REPL compiled (run_in_app.py). The target never loads
the compiler; the session's state (its snippets' instances) lives there.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from gradle_repl.frames import (
    AddedLibraries,
    ErrorResult,
    EvalRequest,
    SessionDescription,
    StartRequest,
    SuccessResult,
    TestRunRequest,
    TestRunResult,
    UpdateResult,
)
from gradle_repl.worker.attach.app_link import AppLink
from gradle_repl.worker.attach.run_in_app import POLL_SECONDS, Ran, run_in_app, shown, snippet_classes
from gradle_repl.worker.attach.snippet_mirror import SnippetMirror
from gradle_repl.worker.deadlines import COMPILE_AFTER_CANCEL_SECONDS, REPLY_SECONDS
from gradle_repl.worker.interruption import stopped_before_running, why_stopped
from gradle_repl.worker.java import Renderer, RunningSnippet
from gradle_repl.worker.link.agent_wire import (
    AgentConnection,
    AgentError,
    AgentGone,
    AgentImageValue,
    AgentRead,
    AgentStopped,
    AgentValue,
    AgentValues,
)
from gradle_repl.worker.results.kotlin_types import kotlin_type_name
from gradle_repl.worker.results.outcomes import ExplainFailedUse, snippet_result
from gradle_repl.worker.results.output_frames import Send, SnippetOutput
from gradle_repl.worker.results.report import format_throwable
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.results.value_text import (
    DESCRIBE_SECONDS,
    VALUE_LIMIT_CHARS,
    VALUE_SECONDS,
    shown_value,
    unfinished,
    unreadable,
)
from gradle_repl.worker.runner import (
    POLL_INTERVAL_MS,
    CallProbes,
    Describe,
    ProbeError,
    SnippetRecords,
    StoredValue,
    TestProgress,
)
from gradle_repl.worker.snippet_names import SnippetCounter

__all__ = ["ATTACHED_LIBRARIES_UNAVAILABLE", "AttachedRunner"]

ATTACHED_LIBRARIES_UNAVAILABLE = "an attached session can't add libraries: the running application's classpath is fixed"


def _await_compile(running: RunningSnippet, cancel: threading.Event, deadline: float) -> bool | None:
    """Waits for the snippet's compile, which can't be interrupted: True when a cancel or the deadline came first (the
    snippet must not run), False when not, None when the compile went on COMPILE_AFTER_CANCEL_SECONDS past that (the
    host gives up on the worker soon after)."""
    stopped_at: float | None = None
    while not running.join(POLL_INTERVAL_MS):
        now = time.monotonic()
        if stopped_at is None and (cancel.is_set() or now > deadline):
            stopped_at = now
        elif stopped_at is not None and now - stopped_at > COMPILE_AFTER_CANCEL_SECONDS:
            return None
    return cancel.is_set() or time.monotonic() > deadline


def _value_text(read: AgentRead) -> str:
    """One value the agent read, as a session's own describe shows it."""
    if read.state == "read":
        return shown_value(read.text, read.number)
    if read.state == "threw":
        return unreadable(read.text)
    if read.state == "unfinished":
        return unfinished(read.number / 1000)
    return f"<not found in the attached JVM: {read.text}>"


class AttachedRunner:
    """Runs the session's snippets in the attached JVM (the session's SnippetRunner, worker/runner.py): each is compiled
    here only and its classes sent to the agent; describe reflects on the snippets' classes here (SnippetMirror) and
    reads their values there."""

    def __init__(
        self,
        request: StartRequest,
        snippets: SnippetCounter,
        renderer: Renderer,
        *,
        connection: AgentConnection,
        link: AppLink,
        mirror: SnippetMirror,
        probes: CallProbes,
    ) -> None:
        self._request = request
        self._probes = probes
        self._snippets = snippets
        self._renderer = renderer
        self._connection = connection
        self._link = link
        self._mirror = mirror
        self.exit_code: int | None = None

    def run(
        self, request: EvalRequest, send: Send, cancel: threading.Event, records: SnippetRecords
    ) -> SuccessResult | ErrorResult:
        output = SnippetOutput(self._renderer, self._request.frame_limit_bytes)
        try:
            with self._probes.during(request.probes) as probes:
                result = self._run(request, output, send, cancel, records)
            hits, notes = probes.hits(), probes.notes()
        except ProbeError as error:
            return ErrorResult(error_kind="probe", message=str(error))
        except AgentGone as gone:  # while the probes were set or taken out
            return self._gone(gone)
        return result.model_copy(update={"truncated_bytes": output.truncated, "probe_hits": hits, "probe_notes": notes})

    def describe(self, request_id: int, describe: Describe) -> SessionDescription | ErrorResult:
        """The names the snippets declared, with their types, and their values as the app holds them now."""
        try:
            return describe(lambda values: self._read_there(request_id, values))
        except AgentGone as gone:
            return self._gone(gone)

    def libraries(self) -> AddedLibraries:
        return AddedLibraries()  # ATTACHED_LIBRARIES_UNAVAILABLE: the app's classpath is fixed

    def update(self) -> UpdateResult:
        return UpdateResult(
            refused="an attached session runs the application's own classes: they are not updated in place"
        )

    def run_tests(
        self, request: TestRunRequest, progress: TestProgress, cancel: threading.Event
    ) -> TestRunResult | ErrorResult:
        return ErrorResult(
            error_kind="runtime",
            message=(
                "Can't run tests in an attached session: its snippets run in the app, which has no test classes; run them "
                "in a session of the project's test source set (run_project_tests with the app's projectRoot)."
            ),
        )

    def _read_there(self, request_id: int, values: list[StoredValue]) -> list[str]:
        """Each value's text, read in the attached JVM; a JVM that doesn't answer in time (stopped, hung) leaves each
        value saying so, and the names and types are listed all the same."""
        if not values:
            return []
        self._connection.describe(
            request_id,
            [(v.snippet_class, v.field, v.value_class) for v in values],
            limit_chars=VALUE_LIMIT_CHARS,
            value_seconds=VALUE_SECONDS,
            total_seconds=DESCRIBE_SECONDS,
        )
        deadline = time.monotonic() + DESCRIBE_SECONDS + REPLY_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            message = self._connection.receive(min(left, POLL_SECONDS * 10))
            if isinstance(message, AgentValues) and message.id == request_id:
                return [_value_text(read) for read in message.values]
            # anything else: the late answer or output of a snippet given up on earlier
        waited = DESCRIBE_SECONDS + REPLY_SECONDS
        return [f"<not read: {self._link.name} did not answer within {waited:g} s; is it stopped or hung?>"] * len(
            values
        )

    def _gone(self, gone: AgentGone) -> ErrorResult:
        """The connection closed: the JVM exited, or the channel broke; either way the session ends."""
        self.exit_code = 0
        return ErrorResult(error_kind="exited", state_lost=True, message=self._link.lost(gone))

    def _run(
        self,
        request: EvalRequest,
        output: SnippetOutput,
        send: Send,
        cancel: threading.Event,
        records: SnippetRecords,
    ) -> SuccessResult | ErrorResult:
        number, running = self._snippets.compile_only(request.code)
        # The timeout counts from the request, compile included, as in a session's own JVM.
        deadline = time.monotonic() + request.timeout_ms / 1000
        stopped = _await_compile(running, cancel, deadline)
        if stopped is None:
            why, kind = why_stopped(timeout_ms=request.timeout_ms, cancelled=cancel.is_set())
            print(
                f"[gradle-repl] snippet {request.id} still compiling {COMPILE_AFTER_CANCEL_SECONDS:g} s after it was stopped:\n"
                f"{jstr(running.stack())}",
                file=sys.stderr,
                flush=True,
            )
            return ErrorResult(
                error_kind=kind,
                state_lost=True,
                message=f"{why} while the snippet compiled, and the compiler went on for {COMPILE_AFTER_CANCEL_SECONDS:g} s more; "
                "the worker was stopped and the session's state in the app released. Attach again to go on.",
            )
        outcome = running.getOutcome()
        assert outcome is not None  # set by the compiling thread before it ends
        if outcome.compiledScript is None:
            refused = snippet_result(
                outcome, request.code, output, heap_mb=self._request.heap_mb, explain=lambda _: None
            )
            if isinstance(refused, ErrorResult):
                # The REPL keeps even a refused snippet's declarations: a later use of one says so, as in a session's own JVM.
                refused = records.remember(number, request.code, refused, compiled=bool(outcome.compiled))
            return refused
        class_name = self._mirror.add(outcome.compiledScript)
        if stopped:
            # It never runs, but the REPL's history holds it: later snippets may name its classes, which the app's
            # session's classes must then have (uninitialised, as in a session's own JVM), and its declarations, which say so.
            try:
                self._connection.keep(
                    request.id, class_name=class_name, classes=snippet_classes(outcome.compiledScript)
                )
            except AgentGone as gone:
                return self._gone(gone)
            never_ran = stopped_before_running(timeout_ms=request.timeout_ms, cancelled=cancel.is_set())
            return records.remember(number, request.code, never_ran, compiled=True, ran=False)
        try:
            ran = run_in_app(
                self._connection,
                request.id,
                outcome.compiledScript,
                output_limit=self._request.output_limit_bytes,
                deadline=deadline,
                cancel=cancel,
                output=output,
                send=send,
            )
        except AgentGone as gone:
            return self._gone(gone)
        output.truncated += ran.dropped
        result = self._result(
            ran,
            outcome.compiledScript,
            request,
            output,
            cancelled=cancel.is_set(),
            explain=records.explainer(request.code, number),
        )
        if isinstance(result, ErrorResult):
            result = records.remember(number, request.code, result, compiled=True)
        # Its values live in the app: no instance here.
        records.record(
            lambda: (self._mirror.snippet_class(class_name), None),
            request.code,
            number,
            failed=isinstance(result, ErrorResult),
        )
        return result

    def _result(
        self,
        ran: Ran,
        script: Any,
        request: EvalRequest,
        output: SnippetOutput,
        *,
        cancelled: bool,
        explain: ExplainFailedUse,
    ) -> SuccessResult | ErrorResult:
        why, kind = why_stopped(timeout_ms=request.timeout_ms, cancelled=cancelled)
        reply = ran.reply
        if reply is None:
            return ErrorResult(
                error_kind=kind,
                message=f"{why}, and {self._link.name} did not answer: is it stopped (SIGSTOP) or hung? "
                "The session stays attached; its next snippet runs once the JVM answers again.",
            )
        if isinstance(reply, AgentStopped):
            return ErrorResult(
                error_kind=kind,
                message=f"{why}; the snippet ignored its interrupt and was {reply.note}. The application keeps running.",
            )
        if ran.stopped:  # whatever it came to after its interrupt, as a session's own snippet answers
            return ErrorResult(
                error_kind=kind, message=f"{why}; the snippet was interrupted and stopped. The session's state is kept."
            )
        if isinstance(reply, AgentError):
            if (use := explain(reply.chain)) is not None:
                # A declaration of a snippet that failed or never ran: the message says it all, as in a session's own JVM.
                return ErrorResult(error_kind="runtime", message=use.message())
            headline, stack = format_throwable(reply.chain)
            return ErrorResult(error_kind="runtime", message=headline, stack=stack)
        if isinstance(reply, (AgentValue, AgentImageValue)):
            # Kotlin 2.3+ records the value's declared type with the compiled snippet; 2.2 only in the eval method's signature.
            result_field = script.getResultField()
            declared = jstr(result_field.getSecond().getTypeName()) if result_field is not None else reply.return_type
            # Fitted to the frame limit as a session's own value is, what is cut counted with its output's.
            value = (
                shown(output, reply.shown)
                if isinstance(reply, AgentImageValue)
                else output.item("text", "text/plain", reply.text, None)
            )
            return SuccessResult(value=value, value_type=kotlin_type_name(declared))
        return SuccessResult(value_type="kotlin.Unit")
