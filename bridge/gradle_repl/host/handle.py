"""The owner of one worker: its handshake, its requests and its end.

One request is in flight at a time, and every frame must carry that request's id. A request is
read to its own result before the next may start, even when the caller is cancelled (an MCP
client's cancel, a timeout of its own): the exchange runs in a task of its own that tells the
worker to stop the snippet, reads up to the result and only then lets the next request in. When
the worker does not answer, sends a frame it can't decode or one for another request, the worker
is stopped and its state is declared lost — a reply is never shifted onto the wrong call.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from pydantic import ValidationError

from gradle_repl.environment import SessionSpec
from gradle_repl.errors import WorkerFailed
from gradle_repl.frames import (
    AddedLibraries,
    AddProbeRequest,
    CancelRequest,
    CheckRequest,
    CheckResult,
    CompileRequest,
    CompileResult,
    CompleteRequest,
    CompletionResult,
    DescribeRequest,
    DescriptionResult,
    DisplayFrame,
    ErrorKind,
    ErrorResult,
    EvalRequest,
    ExitingFrame,
    Probe,
    ProbesResult,
    ReadProbesRequest,
    ReadyFrame,
    RemoveProbeRequest,
    Result,
    StartRequest,
    StreamFrame,
    SuccessResult,
    TestProgressFrame,
    TestRunRequest,
    TestRunResult,
    UpdateRequest,
    UpdateResult,
    WorkerOptions,
    WorkerRequest,
    decode_frame,
    encode,
)
from gradle_repl.host.launcher import SubprocessLauncher, WorkerLauncher, WorkerRole, WorkerTransport
from gradle_repl.host.logs import tail
from gradle_repl.host.notices import Notice
from gradle_repl.stopping import ShutdownPath, stop_worker
from gradle_repl.worker.deadlines import FIRST_COMPILE_SECONDS, STOPPED_ANSWER_SECONDS

__all__ = [
    "WorkerHandle",
    "Reply",
    "Analysis",
    "OnFrame",
    "TestReply",
    "ProbeReply",
    "OnTestProgress",
    "WORKER_START_TIMEOUT_SECONDS",
    "RESULT_MARGIN_SECONDS",
]

# Starting a JVM, loading the compiler and (first time per Kotlin version) compiling the facade.
WORKER_START_TIMEOUT_SECONDS = 180.0
# Beyond a snippet's own timeout: the worker stops it as it stops a cancelled one, and answers.
RESULT_MARGIN_SECONDS = STOPPED_ANSWER_SECONDS
# After a cancel: the worker stops the snippet (worker/deadlines.py) and answers; past this it is killed.
CANCEL_ANSWER_SECONDS = STOPPED_ANSWER_SECONDS
# Reading a session's declarations is reflection on classes already loaded: seconds at the very most.
DESCRIBE_TIMEOUT_SECONDS = 30.0

OnFrame = Callable[[StreamFrame | DisplayFrame], None]
# A test of a running test run finished: `12/40 shop.CartTest.oneItem`.
OnTestProgress = Callable[[str], None]
# The frames a request produced, and the result that closed it.
_Exchanged = tuple[tuple[StreamFrame | DisplayFrame, ...], Result]


@dataclass(frozen=True)
class Reply:
    """The frames one snippet produced, its result, and what the user must know besides (a restart)."""

    frames: tuple[StreamFrame | DisplayFrame, ...]
    result: SuccessResult | ErrorResult
    notices: tuple[Notice, ...] = field(default=())

    @property
    def state_lost(self) -> bool:
        """The session's JVM is gone, and its state with it."""
        return isinstance(self.result, ErrorResult) and self.result.state_lost


@dataclass(frozen=True)
class TestReply:
    """A test run's result (or why it could not run), and what the user must know besides (a restart, an edit's path)."""

    __test__ = False

    result: TestRunResult | ErrorResult
    notices: tuple[Notice, ...] = field(default=())

    @property
    def state_lost(self) -> bool:
        return self.result.state_lost


@dataclass(frozen=True)
class ProbeReply:
    """A session probe's answer (set, hits read, removed), or why it could not be had, and what the user must know
    besides (a session started or restarted for it)."""

    result: ProbesResult | ErrorResult
    notices: tuple[Notice, ...] = field(default=())


# Setting a probe compiles its expressions with the session's compiler: seconds at the most on a loaded machine.
PROBE_TIMEOUT_SECONDS = 60.0
# A request's declared answer (frames.WorkerRequest[Answer]); an error may answer any request.
AnswerT = TypeVar("AnswerT", bound=Result)
# Reading the class outputs and one redefinition: seconds at the very most, even for thousands of classes.
UPDATE_TIMEOUT_SECONDS = 60.0
# An edit's files compiled by the warm compiler: well under a second, a minute for the first compile of a big file.
COMPILE_TIMEOUT_SECONDS = 120.0


@dataclass(frozen=True)
class Analysis:
    """A check's or a completion's answer, and what the user must know besides (a restart)."""

    result: CheckResult | CompletionResult | ErrorResult
    notices: tuple[Notice, ...] = field(default=())


class WorkerHandle:
    def __init__(self, transport: WorkerTransport, ready: ReadyFrame) -> None:
        self._transport = transport
        self.ready = ready
        # Started without the warm-up: until an eval answers with its compile's times, the next compile may load the
        # compiler, which an eval's timeout doesn't count (the worker's LocalRunner); the host waits that much longer.
        self._first_compile_pending = ready.first_compile_pending
        self.started = time.monotonic()
        self.shutdown_path: ShutdownPath | None = None
        # Why the worker's state is gone when no reply could say so (a cancelled call's snippet).
        self.lost_notice: str | None = None
        self._lock = asyncio.Lock()
        self._last_id = 0
        self._closing: str | None = None
        self._stopping: asyncio.Task[ShutdownPath] | None = None
        # The worker's last heap warning, kept to explain a later silence (a JVM stuck collecting garbage).
        self._heap_warning: str | None = None
        # What the session's snippets added with @file:DependsOn, as the worker last reported it.
        self.libraries = AddedLibraries()

    @property
    def pid(self) -> int:
        return self._transport.pid

    @property
    def transport(self) -> WorkerTransport:
        return self._transport

    @property
    def alive(self) -> bool:
        return self._transport.returncode is None and self._stopping is None

    @property
    def busy(self) -> bool:
        return self._lock.locked()

    def rss_bytes(self) -> int | None:
        return self._transport.rss_bytes()

    async def settled(self) -> None:
        """Returns once no request is in flight (a cancelled one may still be draining)."""
        async with self._lock:
            pass

    @classmethod
    async def launch(
        cls,
        spec: SessionSpec,
        options: WorkerOptions,
        *,
        label: str,
        launcher: WorkerLauncher | None = None,
        keep_logs: set[Path] | None = None,
        on_spawn: Callable[[WorkerTransport], None] | None = None,
        role: WorkerRole = "session",
        warm_up: bool = True,
    ) -> WorkerHandle:
        """Spawns a worker for the spec and waits until it is ready; on_spawn sees it the moment it exists.

        A class-data worker writes the class-data archive after 'ready' and exits; a preparing one has compiled the
        facade by 'ready', and exits. `warm_up=False` is for a worker a call waits for (StartRequest.warm_up)."""
        transport = await (launcher or SubprocessLauncher()).spawn(
            spec, label=label, keep_logs=keep_logs or set(), role=role
        )
        if on_spawn is not None:
            on_spawn(transport)
        request = StartRequest(
            spec=spec,
            train_class_data=role == "class-data",
            prepare_only=role == "prepare",
            warm_up=warm_up,
            **options.model_dump(),
        )
        return await cls.start(transport, request)

    @classmethod
    async def start(
        cls, transport: WorkerTransport, request: StartRequest, *, timeout_seconds: float = WORKER_START_TIMEOUT_SECONDS
    ) -> WorkerHandle:
        """Sends the start request and waits for 'ready'. Any failure or cancellation kills the worker."""
        try:
            await transport.write(encode(request))
            line = await asyncio.wait_for(transport.readline(), timeout_seconds)
            if not line:
                code = await transport.wait()
                raise WorkerFailed(
                    f"the worker exited with code {code} while starting; log: {transport.log_path}\n{tail(transport.log_path)}"
                )
            frame = decode_frame(line)
        except asyncio.TimeoutError:
            await _discard(transport)
            raise WorkerFailed(
                f"the worker did not start within {timeout_seconds:g} s; log: {transport.log_path}"
            ) from None
        except (ConnectionError, ValueError, ValidationError) as error:
            await _discard(transport)
            raise WorkerFailed(f"the worker failed while starting ({error}); log: {transport.log_path}") from None
        except BaseException:
            # Cancelled mid-start: nobody will ever own this process.
            transport.send_signal("kill")
            raise
        if isinstance(frame, ErrorResult):
            await _discard(transport)
            raise WorkerFailed(frame.message)
        if not isinstance(frame, ReadyFrame):
            await _discard(transport)
            raise WorkerFailed(f"the worker sent {frame.event!r} before 'ready'")
        return cls(transport, frame)

    async def request(
        self,
        code: str,
        *,
        timeout_seconds: float,
        on_frame: OnFrame | None = None,
        notices: Sequence[Notice] = (),
        probes: Sequence[Probe] = (),
    ) -> Reply:
        """Runs one snippet; the reply carries `notices`, what the caller must tell besides. If the caller is
        cancelled, the snippet is cancelled too and the worker is still read up to its result (or stopped)
        before another request can start."""
        frames, result = await self._ask(
            lambda request_id: EvalRequest(
                id=request_id, code=code, timeout_ms=int(timeout_seconds * 1000), probes=list(probes)
            ),
            timeout_seconds,
            on_frame,
            compile_allowance_seconds=self._compile_allowance(),
        )
        if result.times is not None:  # it compiled: the compiler is loaded
            self._first_compile_pending = False
        return Reply(frames, result, tuple(notices))

    def _compile_allowance(self) -> float:
        """How much longer than a request's timeout its answer may take because its compile may load the compiler."""
        return FIRST_COMPILE_SECONDS if self._first_compile_pending else 0.0

    async def run_tests(
        self,
        selectors: Sequence[str],
        *,
        failed_only: bool,
        known_failing: Sequence[str] = (),
        timeout_seconds: float,
        on_progress: OnTestProgress | None = None,
        notices: Sequence[Notice] = (),
        probes: Sequence[Probe] = (),
        explain_failures: bool = False,
    ) -> TestReply:
        """Runs the project's tests in the session; cancelled, the run is stopped as a snippet is."""
        _, result = await self._ask(
            lambda request_id: TestRunRequest(
                id=request_id,
                selectors=list(selectors),
                failed_only=failed_only,
                known_failing=list(known_failing),
                timeout_ms=int(timeout_seconds * 1000),
                probes=list(probes),
                explain_failures=explain_failures,
            ),
            timeout_seconds,
            None,
            on_progress,
        )
        return TestReply(result, tuple(notices))

    async def describe(self) -> DescriptionResult | ErrorResult:
        """What the session holds (frames.SessionDescription), read between snippets."""
        _, result = await self._ask(lambda request_id: DescribeRequest(id=request_id), DESCRIBE_TIMEOUT_SECONDS, None)
        return result

    async def add_probe(self, probe: Probe, *, expires_seconds: float) -> ProbesResult | ErrorResult:
        """Sets a probe that outlives calls (until removed, past its maxHits or its expiry)."""
        _, result = await self._ask(
            lambda request_id: AddProbeRequest(id=request_id, probe=probe, expires_seconds=expires_seconds),
            PROBE_TIMEOUT_SECONDS,
            None,
        )
        return result

    async def read_probes(self, probe_id: int | None) -> ProbesResult | ErrorResult:
        """The session probes' hits since the last read (of one, or all), and their states; answered at once."""
        _, result = await self._ask(
            lambda request_id: ReadProbesRequest(id=request_id, probe_id=probe_id), PROBE_TIMEOUT_SECONDS, None
        )
        return result

    async def remove_probe(self, probe_id: int) -> ProbesResult | ErrorResult:
        """Takes a session probe out of the code; its hits not read yet."""
        _, result = await self._ask(
            lambda request_id: RemoveProbeRequest(id=request_id, probe_id=probe_id), PROBE_TIMEOUT_SECONDS, None
        )
        return result

    async def update_classes(self) -> UpdateResult | ErrorResult:
        """Brings the project's rebuilt classes into the session in place, or says why it can't (nothing changed)."""
        _, result = await self._ask(lambda request_id: UpdateRequest(id=request_id), UPDATE_TIMEOUT_SECONDS, None)
        return result

    async def compile_edits(self, request: CompileRequest) -> CompileResult | ErrorResult:
        """Compiles edited project sources with the session's compiler into gradle-repl's class directory."""
        _, result = await self._ask(
            lambda request_id: request.model_copy(update={"id": request_id}), COMPILE_TIMEOUT_SECONDS, None
        )
        return result

    async def check(self, code: str, *, timeout_seconds: float, notices: Sequence[Notice] = ()) -> Analysis:
        """What compiling `code` as the next snippet reports; nothing runs and the session is left as it was.
        The compile can't be stopped midway: a cancelled check is read to its end and its answer dropped."""
        _, result = await self._ask(
            lambda request_id: CheckRequest(id=request_id, code=code),
            timeout_seconds,
            None,
            compile_allowance_seconds=self._compile_allowance(),
        )
        return Analysis(result, tuple(notices))

    async def complete(
        self, code: str, cursor: int, *, timeout_seconds: float, notices: Sequence[Notice] = ()
    ) -> Analysis:
        """What may be written at `cursor` in `code`, in the session's state; nothing runs or changes. Cancelled, it
        is read to its end as a check is."""
        _, result = await self._ask(
            lambda request_id: CompleteRequest(id=request_id, code=code, cursor=cursor),
            timeout_seconds,
            None,
            compile_allowance_seconds=self._compile_allowance(),
        )
        return Analysis(result, tuple(notices))

    async def _ask(
        self,
        make: Callable[[int], WorkerRequest[AnswerT]],
        timeout_seconds: float,
        on_frame: OnFrame | None,
        on_test: OnTestProgress | None = None,
        *,
        compile_allowance_seconds: float = 0.0,
    ) -> tuple[tuple[StreamFrame | DisplayFrame, ...], AnswerT | ErrorResult]:
        """Sends the request `make` builds with the next id, and reads the frames up to its answer: its declared kind
        or an error (_exchange checks it, or ends the worker); the one way every request goes."""
        await self._lock.acquire()
        self._last_id += 1
        try:
            request = make(self._last_id)
        except BaseException:
            self._lock.release()
            raise
        cancel = asyncio.Event()
        exchange = asyncio.create_task(
            self._exchange(request, timeout_seconds, on_frame, cancel, on_test, compile_allowance_seconds)
        )
        exchange.add_done_callback(lambda _: self._lock.release())
        try:
            frames, result = await asyncio.shield(exchange)
        except asyncio.CancelledError:
            cancel.set()
            raise
        return frames, cast("AnswerT | ErrorResult", result)  # _exchange accepted only request.answer_types()

    async def _exchange(
        self,
        request: WorkerRequest[Any],
        timeout_seconds: float,
        on_frame: OnFrame | None,
        cancel: asyncio.Event,
        on_test: OnTestProgress | None = None,
        compile_allowance_seconds: float = 0.0,
    ) -> _Exchanged:
        frames: list[StreamFrame | DisplayFrame] = []
        request_id = request.id
        # The snippet's System.exit is ending the worker: its end, not a result, answers.
        exiting = False
        try:
            await self._transport.write(encode(request))
        except ConnectionError:
            return (), await self._ended_result(system_exit=False)
        deadline = time.monotonic() + timeout_seconds + RESULT_MARGIN_SECONDS + compile_allowance_seconds
        reading: asyncio.Task[bytes] | None = None
        cancelled = asyncio.create_task(cancel.wait())
        cancel_sent = False
        try:
            while True:
                if cancel.is_set() and not cancel_sent:
                    cancel_sent = True
                    # The worker compiles a check or a completion on its main loop, where no cancel is read: cutting
                    # the deadline would kill a session for a compile that is about to answer. It keeps its own.
                    if request.interruptible:
                        deadline = min(deadline, time.monotonic() + CANCEL_ANSWER_SECONDS)
                        await self._send_cancel(request_id)
                if reading is None:
                    reading = asyncio.create_task(self._transport.readline())
                waiting = {reading} if cancel_sent else {reading, cancelled}
                done, _ = await asyncio.wait(
                    waiting, timeout=max(deadline - time.monotonic(), 0.0), return_when=asyncio.FIRST_COMPLETED
                )
                if reading not in done:
                    if cancelled in done:
                        continue  # the top of the loop tells the worker
                    return await self._fail(
                        frames,
                        "timeout",
                        f"Timed out after {timeout_seconds:g} s and the worker stopped answering; it was killed "
                        "and the session's state is lost. The next call starts a fresh session.",
                        cancelled=cancel.is_set(),
                    )
                try:
                    line = reading.result()
                except ValueError:
                    return await self._fail(frames, "protocol", "the worker sent a frame over the size limit")
                reading = None
                if not line:
                    return await self._finish(
                        frames, await self._ended_result(system_exit=exiting), cancelled=cancel.is_set()
                    )
                try:
                    frame = decode_frame(line)
                except ValidationError as error:
                    return await self._fail(
                        frames, "protocol", f"the worker sent an undecodable frame ({error.error_count()} errors)"
                    )
                if getattr(frame, "id", None) != request_id:
                    return await self._fail(
                        frames,
                        "protocol",
                        f"the worker answered request {getattr(frame, 'id', '?')} while {request_id} was due",
                    )
                if isinstance(frame, Result):
                    if not isinstance(frame, request.answer_types()):
                        return await self._fail(
                            frames,
                            "protocol",
                            f"the worker answered a {request.op} request with a {getattr(frame, 'type', '?')} result",
                        )
                    return await self._finish(frames, frame, cancelled=cancel.is_set())
                if isinstance(frame, ExitingFrame):
                    exiting = True
                elif isinstance(frame, TestProgressFrame):
                    if on_test is not None and not cancel.is_set():
                        try:
                            on_test(frame.line)
                        except Exception:  # noqa: BLE001 - a listener's failure must not cost the reply
                            pass
                elif isinstance(frame, (StreamFrame, DisplayFrame)):
                    frames.append(frame)
                    if on_frame is not None and not cancel.is_set():
                        try:
                            on_frame(frame)
                        except Exception:  # noqa: BLE001 - a listener's failure must not cost the reply
                            pass
        finally:
            for task in (reading, cancelled):
                if task is not None and not task.done():
                    task.cancel()

    async def _send_cancel(self, request_id: int) -> None:
        try:
            await self._transport.write(encode(CancelRequest(id=request_id)))
        except ConnectionError:
            pass

    async def _finish(self, frames: list[StreamFrame | DisplayFrame], result: Result, *, cancelled: bool) -> _Exchanged:
        if isinstance(result, (SuccessResult, ErrorResult)):
            self._heap_warning = result.heap_warning
            if result.libraries is not None:
                self.libraries = result.libraries
        if isinstance(result, (ErrorResult, TestRunResult)) and result.state_lost:
            await self.stop()
            if cancelled:
                if isinstance(result, ErrorResult):
                    self.lost_notice = f"[the cancelled snippet ended its session's JVM: {result.message}]"
                else:
                    said = result.stopped or "a test ended it"
                    self.lost_notice = f"[the cancelled test run ended its session's JVM: {said}]"
        return tuple(frames), result

    async def _fail(
        self, frames: list[StreamFrame | DisplayFrame], kind: ErrorKind, message: str, *, cancelled: bool = False
    ) -> _Exchanged:
        """Stops a worker that broke the protocol or stopped answering; its state is lost."""
        await self.stop()
        if kind == "timeout" and self._heap_warning is not None:
            # A JVM that stops answering with a nearly full heap is, almost surely, collecting garbage forever.
            message = f"{message} Its heap was nearly full, which is the likely cause: {self._heap_warning}"
        if kind == "protocol":
            message = (
                f"{message}; the worker was stopped and the session's state is lost "
                f"(log: {self._transport.log_path}). The next call starts a fresh session."
            )
        if cancelled:
            self.lost_notice = f"[the cancelled snippet's JVM had to be killed; the session's state is lost: {message}]"
        return tuple(frames), ErrorResult(error_kind=kind, state_lost=True, message=message)

    async def _ended_result(self, *, system_exit: bool) -> ErrorResult:
        """Why the worker's process ended mid-request; `system_exit`: the worker said a snippet's System.exit ends it."""
        code = await self._transport.wait()
        log = tail(self._transport.log_path, 5)
        if self._closing is not None:
            message = f"The session was {self._closing} while this snippet ran; its state is gone."
        elif system_exit:
            how = (
                f"with code {code}"
                if code >= 0
                else f"(its exit code was lost: the process ended by signal {_signal_name(code)} while exiting)"
            )
            message = (
                f"The snippet called System.exit: the session's JVM exited {how}; the session's state is lost. "
                "The next call starts a fresh session."
            )
        elif code < 0:
            message = (
                f"The session's JVM was killed by signal {_signal_name(code)}; the session's state is lost. "
                "The next call starts a fresh session."
            )
        else:
            detail = " (System.exit or a crash)" if code else ""
            message = (
                f"The session's JVM exited with code {code}{detail}; the session's state is lost. "
                f"The next call starts a fresh session.\n{log}".rstrip()
            )
        return ErrorResult(error_kind="exited", state_lost=True, message=message)

    async def stop(self, *, reason: str | None = None) -> ShutdownPath:
        """Stops the worker (once, shielded from cancellation) and records which step ended it."""
        if reason is not None and self._closing is None:
            self._closing = reason
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(stop_worker(self._transport))
            self._stopping.add_done_callback(self._record_path)
        return await asyncio.shield(self._stopping)

    def _record_path(self, task: asyncio.Task[ShutdownPath]) -> None:
        if not task.cancelled() and task.exception() is None:
            self.shutdown_path = task.result()

    def log_path(self) -> Path | None:
        return self._transport.log_path


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return str(-returncode)


async def _discard(transport: WorkerTransport) -> None:
    """Kills a worker that failed to start and reaps it, so no process or pipe outlives the failure."""
    transport.send_signal("kill")
    await transport.wait()
