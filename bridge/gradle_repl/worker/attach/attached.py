"""An attached session: snippets compile here, in the worker's K2 REPL, and run in a JVM that is already running.

The worker loads gradle-repl's agent into the target (the attach API's VirtualMachine.loadAgent, from this worker's
JVM) unless it already listens there, connects to it (worker/attach/agent_wire.py), and for each snippet sends the classes
the REPL compiled. The target never loads the compiler; the session's state (its snippets' instances) lives there.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import psutil

from gradle_repl.errors import WorkerFailed
from gradle_repl.frames import (
    AddedLibraries,
    DisplayFrame,
    ErrorResult,
    EvalRequest,
    SessionDescription,
    StartRequest,
    SuccessResult,
    TestRunRequest,
    TestRunResult,
    UpdateResult,
)
from gradle_repl.stopping import paused
from gradle_repl.worker.artifacts.agent_jar import agent_package, build_agent_jar
from gradle_repl.worker.artifacts.agent_socket import socket_path
from gradle_repl.worker.attach.agent_wire import (
    AgentAnswer,
    AgentConnection,
    AgentCut,
    AgentDisplay,
    AgentError,
    AgentGone,
    AgentImageValue,
    AgentOutput,
    AgentRead,
    AgentReply,
    AgentRuntime,
    AgentStopped,
    AgentUnit,
    AgentValue,
    AgentValues,
)
from gradle_repl.worker.attach.snippet_mirror import SnippetMirror
from gradle_repl.worker.deadlines import COMPILE_AFTER_CANCEL_SECONDS, INTERRUPT_GRACE_SECONDS, REPLY_SECONDS
from gradle_repl.worker.interruption import stopped_before_running, why_stopped
from gradle_repl.worker.java import JavaException, JavaObject, Renderer, RunningSnippet, java_class
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
from gradle_repl.worker.runner import POLL_INTERVAL_MS, Describe, SnippetRecords, StoredValue, TestProgress
from gradle_repl.worker.snippet_names import WARM_UP_SNIPPETS, SnippetCounter

__all__ = [
    "ATTACHED_LIBRARIES_UNAVAILABLE",
    "AttachedRunner",
    "attach_agent",
    "attached_display_api",
    "warm_up_attached",
]

ATTACHED_LIBRARIES_UNAVAILABLE = "an attached session can't add libraries: the running application's classpath is fixed"
# Connecting to a listening agent and reading its hello: it answers at once unless the JVM is stopped or hung.
CONNECT_TIMEOUT_SECONDS = 10.0
# After a cancel, how long the agent may take to say how the snippet ended: its grace, and a margin that ends before
# the host gives up on this worker (deadlines.STOPPED_ANSWER_SECONDS).
_CANCEL_ANSWER_SECONDS = INTERRUPT_GRACE_SECONDS + REPLY_SECONDS - 1.0
_POLL_SECONDS = POLL_INTERVAL_MS / 1000
# The display calls of an attached session's snippets (jvm-worker/runs-in-app/agent Display.java, in the package of the agent's
# build), imported into each by name: an explicit import outranks the facade's `gradlerepl.runtime.*`, whose display
# functions can't load in the app.
_DISPLAY_CALLS = ("display", "markdown", "html", "image")


def attached_display_api(java_home: str) -> tuple[list[str], list[str]]:
    """What an attached session's snippets compile against to show things (the agent's jar, which the app's side
    hands to snippets' loaders), and the imports that name its calls."""
    jar = build_agent_jar(java_home)
    return [str(jar)], [f"{agent_package(jar)}.Display.{call}" for call in _DISPLAY_CALLS]


def attach_agent(pid: int, java_home: str, runtime_jars: list[str] | None = None) -> AgentConnection:
    """A connection to gradle-repl's agent in JVM `pid`, loading the agent there first when it isn't listening yet
    (a second attach finds the first one's agent). Only the agent of this worker's build is talked to: its hello must
    name its package. `runtime_jars` (snippet_runtime.py) are lent to the session's snippets in an app without Kotlin."""
    jar = build_agent_jar(java_home)
    path = socket_path(pid, jar)
    connection: AgentConnection | None = None
    if Path(path).exists():
        try:
            connection = AgentConnection.connect(path, agent=agent_package(jar), timeout=CONNECT_TIMEOUT_SECONDS)
        except OSError:
            pass  # left by an earlier JVM with this pid, or an agent that is gone: load it (again)
    if connection is None:
        _load_agent(pid, jar, path)
        try:
            connection = AgentConnection.connect(path, agent=agent_package(jar), timeout=CONNECT_TIMEOUT_SECONDS)
        except OSError as error:
            raise WorkerFailed(
                f"gradle-repl's agent was loaded into JVM {pid} but does not answer on {path} ({error.strerror or error}); "
                "if the app is stopped or busy, attach again once it runs",
            ) from error
    if runtime_jars:
        _lend_runtime(connection, pid, runtime_jars)
    return connection


def _lend_runtime(connection: AgentConnection, pid: int, jars: list[str]) -> None:
    """Has the agent open the Kotlin runtime for this session's snippets (snippet_runtime.py); one sentence if it can't."""
    connection.runtime(0, jars)
    deadline = time.monotonic() + CONNECT_TIMEOUT_SECONDS
    while (left := deadline - time.monotonic()) > 0:
        answer = connection.receive(left)
        if isinstance(answer, AgentRuntime):
            if answer.state == "failed":
                connection.close()
                raise WorkerFailed(_runtime_unseen(pid, jars, answer.detail))
            return
    connection.close()
    raise WorkerFailed(
        f"JVM {pid} did not answer gradle-repl's agent within {CONNECT_TIMEOUT_SECONDS:g} s (is it stopped or hung?): "
        "attach again once it runs"
    )


def _runtime_unseen(pid: int, jars: list[str], detail: str | None) -> str:
    """Why the app could not open the lent Kotlin runtime, as one sentence: the jar it can't see, as the agent names
    it from inside the app (the worker reads these very files, so the app sees another file tree: a container's, a
    mount namespace of its own, another user's)."""
    unseen = [jar for jar in jars if jar in (detail or "")]
    if not unseen:
        return (
            f"JVM {pid} has no Kotlin of its own and could not open the Kotlin runtime gradle-repl lends its snippets "
            f"({detail}); start the app with kotlin-stdlib on its class path, or attach again"
        )
    return (
        f"JVM {pid} has no Kotlin of its own and can't see {unseen[0]}, the Kotlin runtime gradle-repl lends its "
        "snippets (does it run in a container?): let the app see that file at the same path, or start it with "
        "kotlin-stdlib on its class path"
    )


# How long a JVM whose connection closed may take to be marked exited before it counts as running on: the kernel
# closes a killed process's files first, then marks it; moments, even on a loaded machine.
EXIT_SETTLE_SECONDS = 2.0


# Loading the agent: VirtualMachine.attach waits up to 10 s for a JVM to start its attach listener, then the agent's
# agentmain only opens its socket. A JVM stopped meanwhile never answers, and the attach API has no deadline of its
# own: past this, the worker gives up (its exit ends the blocked call).
LOAD_AGENT_TIMEOUT_SECONDS = 30.0


def _stopped(pid: int) -> str | None:
    """That JVM `pid` is stopped, as one sentence with what to do; None when it runs (or is gone)."""
    phrase = paused(pid)
    return f"JVM {pid} is {phrase}" if phrase is not None else None


def _load_agent(pid: int, jar: Path, path: str) -> None:
    """Loads the agent into JVM `pid` within LOAD_AGENT_TIMEOUT_SECONDS, or one sentence saying why it can't."""
    if (stopped := _stopped(pid)) is not None:
        raise WorkerFailed(stopped)
    outcome: list[Exception | None] = []

    def load() -> None:
        try:
            outcome.append(_attach_and_load(pid, jar, path))
        except Exception as error:  # noqa: BLE001 - handed to the waiting thread, which raises it
            outcome.append(error)

    loading = threading.Thread(target=load, name="gradle-repl-load-agent", daemon=True)
    loading.start()
    loading.join(LOAD_AGENT_TIMEOUT_SECONDS)
    if loading.is_alive():
        raise WorkerFailed(
            _stopped(pid)
            or f"JVM {pid} did not load gradle-repl's agent within {LOAD_AGENT_TIMEOUT_SECONDS:g} s (is it hung?): "
            "attach again once it runs"
        )
    if outcome[0] is not None:
        raise outcome[0]


def _attach_and_load(pid: int, jar: Path, path: str) -> WorkerFailed | None:
    """The attach API's calls, on a thread of their own (_load_agent bounds them): what failed, or None."""
    virtual_machine = java_class("com.sun.tools.attach.VirtualMachine")
    try:
        target = virtual_machine.attach(str(pid))
    except JavaException as error:
        return WorkerFailed(
            f"cannot attach to JVM {pid} ({_java_reason(error)}); check that it runs as this user on a JDK 17+ and was "
            "not started with -XX:+DisableAttachMechanism, or start it with `gradle-repl agent-path`'s option"
        )
    try:
        target.loadAgent(str(jar), str(Path(path).parent))
    except JavaException as error:
        return WorkerFailed(
            f"JVM {pid} did not load gradle-repl's agent ({_java_reason(error)}); start the app with `gradle-repl "
            "agent-path`'s -javaagent option and attach again"
        )
    finally:
        target.detach()
    return None


def _java_reason(thrown: JavaObject) -> str:
    """A Java throwable's message, else its class's name."""
    return jstr(thrown.getMessage()) or jstr(thrown.getClass().getSimpleName())


def warm_up_attached(snippets: SnippetCounter, connection: AgentConnection, code: str, mirror: SnippetMirror) -> None:
    """The worker's warm-up snippets, compiled here and run in the target: the first snippet carries what the REPL
    shares with every later one, so it must run there too (and be in the mirror describe reflects on)."""
    for _ in range(WARM_UP_SNIPPETS):
        _, running = snippets.compile_only(code)
        running.join(0)  # Thread.join(0): until compiled
        outcome = running.getOutcome()
        if outcome is None or outcome.compiledScript is None:
            why = [jstr(d.getMessage()) for d in outcome.diagnostics] if outcome is not None else []
            raise WorkerFailed(
                f"the Kotlin REPL could not compile an attached session's first snippet ({'; '.join(why) or 'no diagnostics'}); "
                "this is gradle-repl's fault: please report it with the worker log",
            )
        mirror.add(outcome.compiledScript)
        ran = _run_there(
            connection,
            0,
            outcome.compiledScript,
            output_limit=1_000,
            deadline=time.monotonic() + CONNECT_TIMEOUT_SECONDS,
        )
        if not isinstance(ran.reply, (AgentUnit, AgentValue)):
            raise WorkerFailed(_warm_up_failure(ran.reply))


def _warm_up_failure(reply: AgentAnswer | None) -> str:
    """Why the attached JVM could not run the session's first snippet, as one sentence with what to do."""
    if isinstance(reply, AgentError) and reply.chain:
        first = reply.chain[0]
        if first.class_name == "java.lang.NoClassDefFoundError" and (first.message or "").startswith("kotlin/"):
            return (
                f"the attached JVM cannot load Kotlin's {first.message} for the session's snippets (is its kotlin-stdlib "
                "older than the snippets' Kotlin?); attach with the app's project (`--project`) so snippets compile for its Kotlin"
            )
        what = f"{first.class_name}: {first.message}" if first.message else first.class_name
        return f"the attached JVM could not run the session's first snippet ({what}); see the app's console, and attach again"
    if reply is None:
        return (
            f"the attached JVM did not run the session's first snippet within {CONNECT_TIMEOUT_SECONDS:g} s (is it stopped "
            "(SIGSTOP) or hung?): attach again once it runs"
        )
    return "the attached JVM stopped the session's first snippet; attach again"


@dataclass(frozen=True)
class _Ran:
    reply: AgentAnswer | None  # None: the agent said nothing, even after the cancel
    stopped: bool  # a cancel was sent (the client's, or the timeout's)
    dropped: int  # bytes of output the agent's output limit cut (what the frame limit cut, `output` counts)


def _classes(script: Any) -> dict[str, bytes]:
    """The compiled snippet's classes by binary name, from the REPL's in-memory module (the module of this snippet
    alone: earlier snippets' classes are already in the target)."""
    files = script.getCompiledModule().getCompilerOutputFiles()
    classes: dict[str, bytes] = {}
    for entry in files.entrySet():
        path = jstr(entry.getKey())
        if path.endswith(".class"):
            classes[path.removesuffix(".class").replace("/", ".")] = bytes(entry.getValue())
    return classes


def _run_there(
    connection: AgentConnection,
    request_id: int,
    script: Any,
    *,
    output_limit: int,
    deadline: float,
    cancel: threading.Event | None = None,
    output: SnippetOutput | None = None,
    send: Send | None = None,
) -> _Ran:
    """Sends the compiled snippet to the agent and waits for its one answer, forwarding what it prints and shows as
    it comes (frames fitted by `output`; without it, as during warm-up, they are dropped); at the deadline or on a
    cancel, asks the agent to stop it and waits for its word on that."""
    result_field = script.getResultField()
    connection.evaluate(
        request_id,
        output_limit=output_limit,
        class_name=jstr(script.getScriptClassFQName()),
        result_field=jstr(result_field.getFirst()) if result_field is not None else None,
        # Kotlin 2.3+ records the value's declared type; the agent boxes a value class's value by it (2.2: by the mangled body).
        result_type=jstr(result_field.getSecond().getTypeName()) if result_field is not None else None,
        classes=_classes(script),
    )
    stopped_at: float | None = None
    dropped = 0
    printed = _Printed(output, send)
    while True:
        if not connection.buffered():
            printed.flush()  # before waiting: what arrived is sent as it arrived
        message = connection.receive(_POLL_SECONDS)
        now = time.monotonic()
        # Checked whatever came: a snippet that prints all the time must still meet its deadline.
        if stopped_at is None and ((cancel is not None and cancel.is_set()) or now > deadline):
            connection.cancel(request_id, grace_seconds=INTERRUPT_GRACE_SECONDS)
            stopped_at = now
        elif stopped_at is not None and now - stopped_at > _CANCEL_ANSWER_SECONDS:
            return _Ran(None, True, dropped)
        if not isinstance(message, AgentReply) or message.id != request_id:
            continue  # nothing yet, a describe's values, or the late answer of a snippet given up on earlier
        if isinstance(message, AgentOutput):
            printed.add(message)
            continue
        printed.flush()
        if isinstance(message, AgentCut):
            dropped += message.dropped
        elif isinstance(message, AgentDisplay):
            if output is not None and send is not None:
                send(_shown(output, message))
        else:
            return _Ran(message, stopped_at is not None, dropped)


class _Printed:
    """Chunks of one stream that arrived back to back, sent together once no more are waiting or a frame's worth has
    gathered: the agent sends a chunk per line, and a snippet printing thousands of lines would otherwise cost a frame
    each. SnippetOutput.streams splits the merged text into frames within the limit, so merging never makes a cut."""

    def __init__(self, output: SnippetOutput | None, send: Send | None) -> None:
        self._output = output
        self._send = send
        self._stream: Literal["stdout", "stderr"] = "stdout"
        self._parts: list[str] = []
        self._chars = 0

    def add(self, chunk: AgentOutput) -> None:
        if chunk.stream != self._stream or (self._output is not None and self._chars >= self._output.frame_limit):
            self.flush()
        self._stream = chunk.stream
        self._parts.append(chunk.text)
        self._chars += len(chunk.text)

    def flush(self) -> None:
        if self._parts and self._output is not None and self._send is not None:
            for frame in self._output.streams(self._stream, "".join(self._parts)):
                self._send(frame)
        self._parts = []
        self._chars = 0


def _shown(output: SnippetOutput, item: AgentDisplay) -> DisplayFrame:
    return output.item(item.kind, item.mime, item.text, item.data)


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


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.NoSuchProcess:
        return False


def _still_running(pid: int) -> bool:
    """Whether the process runs on after its connection closed (a killed one its parent hasn't waited for yet is a
    zombie: it has exited). A process being killed closes its sockets before the kernel marks it exited, so a
    closed connection is followed by that mark within moments: looked for until EXIT_SETTLE_SECONDS have passed."""
    deadline = time.monotonic() + EXIT_SETTLE_SECONDS
    while _running(pid):
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.05)
    return False


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
        pid: int,
        mirror: SnippetMirror,
    ) -> None:
        self._request = request
        self._snippets = snippets
        self._renderer = renderer
        self._connection = connection
        self._pid = pid
        self._mirror = mirror
        self.exit_code: int | None = None

    def run(
        self, request: EvalRequest, send: Send, cancel: threading.Event, records: SnippetRecords
    ) -> SuccessResult | ErrorResult:
        output = SnippetOutput(self._renderer, self._request.frame_limit_bytes)
        result = self._run(request, output, send, cancel, records)
        return result.model_copy(update={"truncated_bytes": output.truncated})

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
            message = self._connection.receive(min(left, _POLL_SECONDS * 10))
            if isinstance(message, AgentValues) and message.id == request_id:
                return [_value_text(read) for read in message.values]
            # anything else: the late answer or output of a snippet given up on earlier
        waited = DESCRIBE_SECONDS + REPLY_SECONDS
        return [
            f"<not read: the attached JVM (pid {self._pid}) did not answer within {waited:g} s; is it stopped or hung?>"
        ] * len(values)

    def _gone(self, gone: AgentGone) -> ErrorResult:
        """The connection closed: the JVM exited, or the channel broke; either way the session ends."""
        self.exit_code = 0
        if _still_running(self._pid):
            message = (
                f"The connection to the attached JVM (pid {self._pid}) was lost: {gone}; the session's state in it "
                "is released. Attach again to go on."
            )
        else:
            message = f"The attached JVM (pid {self._pid}) exited; the session's state in it is gone. Attach again to a running JVM."
        return ErrorResult(error_kind="exited", state_lost=True, message=message)

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
            # loader chain must then have (uninitialised, as in a session's own JVM), and its declarations, which say so.
            try:
                self._connection.keep(request.id, class_name=class_name, classes=_classes(outcome.compiledScript))
            except AgentGone as gone:
                return self._gone(gone)
            never_ran = stopped_before_running(timeout_ms=request.timeout_ms, cancelled=cancel.is_set())
            return records.remember(number, request.code, never_ran, compiled=True, ran=False)
        try:
            ran = _run_there(
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
        ran: _Ran,
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
                message=f"{why}, and the attached JVM (pid {self._pid}) did not answer: is it stopped (SIGSTOP) or hung? "
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
                _shown(output, reply.shown)
                if isinstance(reply, AgentImageValue)
                else output.item("text", "text/plain", reply.text, None)
            )
            return SuccessResult(value=value, value_type=kotlin_type_name(declared))
        return SuccessResult(value_type="kotlin.Unit")
