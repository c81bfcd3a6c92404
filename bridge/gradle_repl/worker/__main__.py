"""Entry point of a session's worker process; see gradle_repl.worker.

Two threads: the request reader owns the request pipe and the main thread runs snippets. The
reader is also the worker's lifeline: the request pipe reaches end-of-file when the server closes
it *or dies* (the OS closes a dead process's pipes on every platform), and the worker then exits at
once, even in the middle of a snippet. On Linux PR_SET_PDEATHSIG is a second line of defence.
"""

from __future__ import annotations

import ctypes
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic import ValidationError

from gradle_repl.errors import GradleReplError
from gradle_repl.frames import (
    AddProbeRequest,
    CancelRequest,
    CheckRequest,
    CompileRequest,
    CompleteRequest,
    DescribeRequest,
    ErrorResult,
    EvalRequest,
    ExitingFrame,
    ReadProbesRequest,
    RemoveProbeRequest,
    Result,
    StartRequest,
    TestRunRequest,
    UpdateRequest,
    WorkerRequest,
    decode_request,
)
from gradle_repl.worker.channel import FrameChannel
from gradle_repl.worker.repl.idle_warm_up import IdleWarmUp
from gradle_repl.worker.results.output_frames import Send

if TYPE_CHECKING:
    from gradle_repl.worker.classes.edit_compiler import EditCompiler
    from gradle_repl.worker.repl.session import ReplSession

RequestT = TypeVar("RequestT", bound=WorkerRequest[Any])

_PR_SET_PDEATHSIG = 1
# Set to 1 to leave PDEATHSIG off, so tests can prove the lifeline alone suffices.
NO_PDEATHSIG_ENV = "GRADLE_REPL_NO_PDEATHSIG"
# The launcher names the worker's log here; fds 1 and 2 are drained into it.
LOG_PATH_ENV = "GRADLE_REPL_WORKER_LOG"
# How long System.exit's shutdown (the snippet's own hooks) may take before we end the process.
EXIT_GRACE_SECONDS = 30.0


def _exiting() -> bool:
    from gradle_repl.worker.jvm import jvm_is_exiting  # JPype is loaded only after a valid start request

    try:
        return jvm_is_exiting()
    except Exception:  # noqa: BLE001 - a JVM too far gone to ask is exiting too
        return True


def _die_with_parent_on_linux() -> None:
    if sys.platform.startswith("linux") and os.environ.get(NO_PDEATHSIG_ENV) != "1":
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass


class Requests:
    """Reads requests on its own thread; cancels reach the running snippet while it runs.

    A cancel can arrive before the main thread begins its snippet (the client cancels right after sending, or while an
    earlier request still runs): it is remembered for that snippet, which then begins cancelled.
    """

    def __init__(self, channel: FrameChannel) -> None:
        self._channel = channel
        self.pending: queue.Queue[bytes] = queue.Queue()
        self.cancel = threading.Event()
        self._lock = threading.Lock()
        self._running_id: int | None = None
        # Evals read and queued for the main thread, not begun yet; and those of them a cancel already came for.
        self._waiting: set[int] = set()
        self._cancelled_early: set[int] = set()

    def start(self) -> None:
        threading.Thread(target=self._read, name="requests", daemon=True).start()

    def _read(self) -> None:
        for line in self._channel.requests():
            self.receive(line)
        # The server closed the pipe or is gone: nobody is left to answer.
        os._exit(0)

    def receive(self, line: bytes) -> None:
        """Takes one request line: a cancel is applied (or kept for its eval), anything else queued for the main thread."""
        try:
            request = decode_request(line)
        except ValidationError:
            self.pending.put(line)  # the main thread answers it with a clear error
            return
        with self._lock:
            if isinstance(request, CancelRequest):
                if request.id == self._running_id:
                    self.cancel.set()
                elif request.id in self._waiting:
                    self._cancelled_early.add(request.id)
                return  # otherwise its eval already answered
            if isinstance(request, WorkerRequest) and request.interruptible:
                self._waiting.add(request.id)  # before the main thread can take it
        self.pending.put(line)

    def begin(self, request_id: int) -> None:
        """The main thread starts eval `request_id`: `cancel` is set when a cancel for it came first."""
        with self._lock:
            self._running_id = request_id
            self._waiting.discard(request_id)
            if request_id in self._cancelled_early:
                self._cancelled_early.discard(request_id)
                self.cancel.set()
            else:
                self.cancel.clear()

    def end(self) -> None:
        with self._lock:
            self._running_id = None


def _start_failure(error: Exception) -> str:
    """One line for what stopped the worker's start: the error's kind and text (no repr of it), and where its log is."""
    text = " ".join(str(error).split()) or "no message"
    log = os.environ.get(LOG_PATH_ENV)
    where = f"; the worker's log has the details: {log}" if log else ""
    return f"the session's worker failed to start ({type(error).__name__}: {text}){where}"


# What answers a request: its result, the frames it sends on the way (output, progress) through the Send it is given,
# stopped when the event is set (an interruptible request's cancel). Typed per request by _on.
_Handler = Callable[[Any, Send, threading.Event], Result]


def _on(kind: type[RequestT], handle: Callable[[RequestT, Send, threading.Event], Result]) -> tuple[type, _Handler]:
    """One row of the table: the request type and its handler, whose parameter type must be that request's."""
    return kind, cast(_Handler, handle)


def _handlers(session: ReplSession, edits: EditCompiler) -> dict[type, _Handler]:
    """Every request the worker answers after its start, with what answers it: one row per WorkerRequest (frames.py);
    tests/worker/test_worker_requests.py holds the table complete."""
    return dict(
        [
            _on(EvalRequest, session.evaluate),
            _on(TestRunRequest, session.run_tests),
            _on(DescribeRequest, lambda request, send, cancel: session.describe(request)),
            _on(CheckRequest, lambda request, send, cancel: session.check(request)),
            _on(CompleteRequest, lambda request, send, cancel: session.complete(request)),
            _on(UpdateRequest, lambda request, send, cancel: session.update(request)),
            _on(CompileRequest, lambda request, send, cancel: edits.compile(request)),
            _on(AddProbeRequest, lambda request, send, cancel: session.add_probe(request)),
            _on(ReadProbesRequest, lambda request, send, cancel: session.read_probes(request)),
            _on(RemoveProbeRequest, lambda request, send, cancel: session.remove_probe(request)),
        ]
    )


def _answer(request: WorkerRequest[Any], handler: _Handler, channel: FrameChannel, requests: Requests) -> None:
    """Answers one request with exactly one result frame, stamped with its id and how long it took: the handler's,
    or an error when the handler fails (a bug there costs one reply, not the session). An interruptible request
    begins cancelled when its cancel came first, and is stopped by one that comes while it runs."""
    from gradle_repl.worker.interruption import cancelled_before_start

    channel.current_id = request.id
    if request.interruptible:
        requests.begin(request.id)
    began = time.monotonic()
    try:
        if request.interruptible and requests.cancel.is_set():
            result: Result = cancelled_before_start()  # nothing of it compiled: the session is as it was
        else:
            result = handler(request, channel.send, requests.cancel)
        channel.send(
            result.model_copy(update={"id": request.id, "duration_ms": int((time.monotonic() - began) * 1000)})
        )
    except Exception as error:  # noqa: BLE001 - a bug here must cost one reply, not the session
        if _exiting():
            # System.exit in the snippet: the JVM interrupts us while it shuts down and will end this process with the
            # snippet's code, which the host reports. No result may race it; the exiting frame tells the host why the
            # process ends, even when the JVM's exit is torn down by a signal (native libraries' exit handlers) and
            # the code is lost.
            channel.send(ExitingFrame(id=request.id))
            print("[gradle-repl] the snippet called System.exit; the JVM is shutting down", file=sys.stderr, flush=True)
            time.sleep(EXIT_GRACE_SECONDS)
            os._exit(1)
        if channel.answered_id != request.id:
            channel.send(
                ErrorResult(id=request.id, error_kind="internal", message=f"the {request.op} request failed: {error!r}")
            )
    finally:
        if request.interruptible:
            requests.end()


def main() -> None:
    channel = FrameChannel.take_over_stdio(os.environ.get(LOG_PATH_ENV))
    _die_with_parent_on_linux()
    requests = Requests(channel)
    requests.start()
    try:
        start = decode_request(requests.pending.get())
        if not isinstance(start, StartRequest):
            raise GradleReplError("the first request to a worker must be 'start'")
        channel.frame_limit = start.frame_limit_bytes
        if start.prepare_only:
            from gradle_repl.worker.prepare import accepted, prepare  # JPype loads only once the request is valid

            channel.send(accepted(start))
            prepare(start)
            os._exit(0)
        from gradle_repl.worker.boot import boot  # JPype loads only once the request is known to be valid
        from gradle_repl.worker.classes.edit_compiler import EditCompiler

        session, ready, class_data = boot(start)
        edits = EditCompiler(start.spec.environment)
    except (GradleReplError, ValidationError) as error:
        channel.send(ErrorResult(error_kind="internal", message=str(error)))
        os._exit(1)
    except Exception as error:  # noqa: BLE001 - anything else still has to reach the user as a frame
        channel.send(ErrorResult(error_kind="internal", message=_start_failure(error)))
        os._exit(1)
    channel.send(ready)
    if start.train_class_data:
        try:
            class_data.write()
        except Exception as error:  # noqa: BLE001 - the host sees the exit code; the log says why
            print(f"writing the class-data archive failed: {error!r}", file=sys.stderr)
            os._exit(1)
        os._exit(0)
    handlers = _handlers(session, edits)
    idle = IdleWarmUp(session.throwaway_compile, start.idle_warm_up_compiles)
    while True:
        line = idle.next_request(requests.pending)
        try:
            request = decode_request(line)
        except ValidationError as error:
            channel.send(ErrorResult(error_kind="internal", message=f"bad request: {error}"))
            continue
        if not isinstance(request, WorkerRequest) or (handler := handlers.get(type(request))) is None:
            channel.send(ErrorResult(error_kind="internal", message=f"the worker is already started ({request.op})"))
            continue
        _answer(request, handler, channel, requests)
        if session.exit_code is not None:
            break  # the session's JVM is gone (System.exit, an attached JVM that exited): the answer was its last
        try:
            session.after_reply()
        except Exception as error:  # noqa: BLE001 - the reply is out; the session goes on, the log says why
            print(f"after the reply to request {request.id}: {error!r}", file=sys.stderr, flush=True)
    # The JVM may hold non-daemon threads a snippet started: leave without waiting for them.
    os._exit(session.exit_code or 0)


if __name__ == "__main__":
    main()
