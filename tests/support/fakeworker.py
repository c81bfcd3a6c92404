"""Fake workers for session-policy tests: the real protocol over in-memory pipes, misbehaving on cue.

A fake speaks the worker's frames (ready, stream, result, each with its request id) so the real
WorkerHandle and SessionManager run against it unchanged. What a snippet does is its code:

    "sleep S:V"   answers V after S seconds, or a 'cancelled' result as soon as a cancel arrives
    "stubborn S:V" answers V after S seconds and ignores cancels (a busy loop)
    "hang"         never answers and ignores cancels
    "print T:V"    prints T on stdout, then answers V
    "garbage"      sends a line that is not a frame
    "huge"         sends a line longer than the host's frame limit
    "wrong-id"     answers with another request's id
    "exit N"       exits with code N before answering
    "heap V"       answers V with a nearly-full-heap warning, as a real worker does past 85%
    "system-exit"  says a snippet's System.exit is ending it, then dies by SIGABRT (native exit handlers)
    "libraries V"  answers V, reporting a library added (frames.AddedLibraries)
    "fail V"       fails at run time with message V
    anything else  answers the code itself as the value

A check request is answered as the compiler would: code containing "missing" has an unresolved reference on
line 1, "compiling S" takes S seconds whatever cancels arrive (the real worker compiles on its main loop), anything
else compiles to a kotlin.String; nothing is run or counted as a snippet. A complete request offers each earlier
snippet's code (its "val"), as a completion of the session's names would. An update request (the project rebuilt)
is answered with `sample.Changed` redefined, or refused with the transport's `update_refusal` when set.

`fake_resolver` stands in for the project side: every project root resolves at once to the same
kind of environment, so session policy and the front ends run without a build.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from gradle_repl.environment import ReplEnvironment, SessionSpec
from gradle_repl.frames import (
    AddedLibraries,
    CancelRequest,
    CheckRequest,
    CheckResult,
    CodeDiagnostic,
    CompleteRequest,
    Completion,
    CompletionResult,
    Declaration,
    DescribeRequest,
    DescriptionResult,
    DisplayFrame,
    ErrorResult,
    EvalRequest,
    ExitingFrame,
    ReadyFrame,
    SessionDescription,
    SnippetTimes,
    StartRequest,
    StreamFrame,
    SuccessResult,
    UpdateRequest,
    UpdateResult,
    decode_request,
    encode,
)
from gradle_repl.host.launcher import FRAME_READ_LIMIT, Signal

_PIDS = itertools.count(900_000)


@dataclass
class FakeResolved:
    """What a resolver hands the host: the environment, no build tool that could not run, made without a build."""

    environment: ReplEnvironment
    notices: tuple[str, ...] = ()

    def origin(self) -> str:
        return "faked"


def fake_resolver(project_root: str, **_: object) -> FakeResolved:
    """Resolves any project root, without a build, to a Maven environment on Kotlin 2.3.21."""
    return FakeResolved(
        ReplEnvironment(
            build_tool="maven",
            project_root=project_root,
            java_executable="/j/bin/java",
            java_home="/j",
            kotlin_version="2.3.21",
            repl_host_classpath=["/h.jar"],
        )
    )


class FakeTransport:
    def __init__(self, *, start_delay: float, crash_on_start: bool) -> None:
        self.pid = next(_PIDS)
        self.log_path: Path | None = None
        self.process = None
        self.returncode: int | None = None
        self._out = asyncio.StreamReader(limit=FRAME_READ_LIMIT)
        self._requests: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._evals: asyncio.Queue[EvalRequest] = asyncio.Queue()
        self._answered: list[str] = []
        self._cancelled: set[int] = set()
        self._cancel_arrived = asyncio.Event()
        self._exited = asyncio.Event()
        self._first_compile_pending = False
        # Whether its start asked for the warm-up snippet (StartRequest.warm_up); None until the start request came.
        self.warm_up: bool | None = None
        # Answers describe requests as if they were snippets (a broken worker).
        self.describe_as_snippet = False
        # Why an update request is refused (the JVM can't redefine the classes); None: updated in place.
        self.update_refusal: str | None = None
        self.updates_seen = 0
        # Snippets that fail at run time in this worker (FakeLauncher.failing).
        self.failing: set[str] = set()
        self._start_delay = start_delay
        self._crash_on_start = crash_on_start
        self.requests_seen: list[str] = []
        self.checks_seen: list[str] = []
        # What it was spawned as (launcher.WorkerRole).
        self.role = "session"
        # Each eval's timeout as the worker was told it.
        self.timeouts_ms: list[int] = []
        self._tasks = [asyncio.ensure_future(self._read()), asyncio.ensure_future(self._run())]

    # --- the transport, as the host sees it ---------------------------------------------------
    async def write(self, data: bytes) -> None:
        if self.returncode is not None:
            raise ConnectionError("fake worker is gone")
        for line in data.splitlines():
            self._requests.put_nowait(line)

    async def readline(self) -> bytes:
        return await self._out.readline()

    async def wait(self) -> int:
        await self._exited.wait()
        assert self.returncode is not None
        return self.returncode

    def close_input(self) -> None:
        self._requests.put_nowait(None)

    def send_signal(self, how: Signal) -> None:
        self._exit(-9 if how == "kill" else -15)

    def rss_bytes(self) -> int | None:
        return None if self.returncode is not None else 123_456_789

    # --- the fake worker ----------------------------------------------------------------------
    def _exit(self, code: int) -> None:
        if self.returncode is None:
            self.returncode = code
            self._out.feed_eof()
            self._exited.set()
            for task in self._tasks:
                if task is not asyncio.current_task():
                    task.cancel()

    def _send(self, frame: BaseModel) -> None:
        if self.returncode is None:
            self._out.feed_data(encode(frame))

    async def _read(self) -> None:
        """The request reader: end of input means the server let go, as for the real worker."""
        while True:
            line = await self._requests.get()
            if line is None:
                self._exit(0)
                return
            request = decode_request(line)
            if isinstance(request, CancelRequest):
                self._cancelled.add(request.id)
                self._cancel_arrived.set()
            elif isinstance(request, EvalRequest):
                self.requests_seen.append(request.code)
                self.timeouts_ms.append(request.timeout_ms)
                self._evals.put_nowait(request)
            elif isinstance(request, StartRequest):
                # As the real worker: a start without the warm-up says its first compile is still to come.
                self.warm_up = request.warm_up
                self._first_compile_pending = not request.warm_up
                self._evals.put_nowait(EvalRequest(id=-1, code="__start__"))
            elif isinstance(request, CheckRequest):
                self.checks_seen.append(request.code)
                self._evals.put_nowait(EvalRequest(id=request.id, code=_CHECK + request.code))
            elif isinstance(request, CompleteRequest):
                self._evals.put_nowait(EvalRequest(id=request.id, code=_COMPLETE))
            elif isinstance(request, DescribeRequest):
                # Queued behind the evals, as the real worker answers requests in order.
                self._evals.put_nowait(EvalRequest(id=request.id, code="__describe__"))
            elif isinstance(request, UpdateRequest):
                self.updates_seen += 1
                self._evals.put_nowait(EvalRequest(id=request.id, code=_UPDATE))

    async def _run(self) -> None:
        first = await self._evals.get()
        assert first.code == "__start__"
        await asyncio.sleep(self._start_delay)
        if self._crash_on_start:
            self._exit(1)
            return
        self._send(
            ReadyFrame(
                pid=self.pid,
                kotlin_version="2.3.21",
                java_version="17",
                facade_compiled=False,
                startup_ms=1,
                first_compile_pending=self._first_compile_pending,
            )
        )
        while True:
            request = await self._evals.get()
            await self._answer(request)

    async def _wait_or_cancel(self, request_id: int, seconds: float, *, honour_cancel: bool) -> bool:
        """Sleeps; True when a cancel for this request cut the sleep short."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while loop.time() < deadline:
            if honour_cancel and request_id in self._cancelled:
                return True
            self._cancel_arrived.clear()
            try:
                await asyncio.wait_for(self._cancel_arrived.wait(), deadline - loop.time())
            except asyncio.TimeoutError:
                break
        return honour_cancel and request_id in self._cancelled

    async def _answer(self, request: EvalRequest) -> None:
        code, rid = request.code, request.id
        if code == "__describe__" and self.describe_as_snippet:
            self._value(rid, "not a description")
            return
        if code == "__describe__":
            # Every snippet answered so far reads as a val named after its code.
            held = [
                Declaration(kind="val", name=c, signature=f"val {c}: kotlin.String", snippet=i + 1)
                for i, c in enumerate(self._answered)
            ]
            self._send(DescriptionResult(id=rid, description=SessionDescription(declarations=held), declared=len(held)))
            return
        if code.startswith(_CHECK):
            verb, _, seconds = code.removeprefix(_CHECK).partition(" ")
            if verb == "compiling":
                await self._wait_or_cancel(rid, float(seconds), honour_cancel=False)
            self._send(_checked(rid, code.removeprefix(_CHECK)))
            return
        if code == _UPDATE:
            refused = self.update_refusal
            self._send(UpdateResult(id=rid, refused=refused, redefined=[] if refused else ["sample.Changed"]))
            return
        if code == _COMPLETE:
            offered = [Completion(text=c, kind="property", detail="String") for c in self._answered]
            self._send(CompletionResult(id=rid, items=offered, prefix_start=0))
            return
        self._answered.append(code)
        if code in self.failing:
            code = f"fail {code} failed this time"
        verb, _, rest = code.partition(" ")
        if verb in ("sleep", "stubborn"):
            seconds, _, value = rest.partition(":")
            if await self._wait_or_cancel(rid, float(seconds), honour_cancel=verb == "sleep"):
                self._send(ErrorResult(id=rid, error_kind="cancelled", message="cancelled; state kept"))
                return
            self._value(rid, value)
        elif code == "hang":
            await asyncio.Event().wait()
        elif verb == "print":
            text, _, value = rest.partition(":")
            self._send(StreamFrame(id=rid, event="stdout", data=text + "\n"))
            self._value(rid, value)
        elif code == "garbage":
            self._out.feed_data(b"this is not a frame\n")
        elif code == "huge":
            self._out.feed_data(
                json.dumps({"event": "result", "id": rid, "message": "x" * (FRAME_READ_LIMIT + 10)}).encode() + b"\n"
            )
        elif code == "wrong-id":
            self._value(rid + 1, "someone else's answer")
        elif verb == "exit":
            self._exit(int(rest))
        elif verb == "heap":
            self._value(
                rid,
                rest,
                heap_warning="memory: this session's heap is 91% full after garbage collection (700 of 768 MB)",
            )
        elif code == "system-exit":
            self._send(ExitingFrame(id=rid))
            self._exit(-6)
        elif verb == "fail":
            self._send(ErrorResult(id=rid, error_kind="runtime", message=rest))
        elif verb == "libraries":
            self._value(rid, rest, libraries=AddedLibraries(coordinates=["org.example:lib:1.0"]))
        else:
            self._value(rid, code)

    def _value(self, rid: int, value: str, **fields: object) -> None:
        # More of SuccessResult's fields by name; the model validates them.
        text = DisplayFrame(kind="text", mime="text/plain", data=value)
        # Compiled and run in the worker's JVM, as the real worker's results say with their times.
        times = SnippetTimes(compile_ms=1.0, evaluate_ms=0.1, render_ms=0.1)
        self._send(SuccessResult(id=rid, value=text, value_type="kotlin.String", times=times, **fields))  # type: ignore[arg-type]


_CHECK = "__check__"
_COMPLETE = "__complete__"
_UPDATE = "__update__"


def _checked(rid: int, code: str) -> CheckResult:
    if "missing" not in code:
        return CheckResult(id=rid, compiled=True, value_type="kotlin.String")
    column = code.index("missing") + 1
    error = CodeDiagnostic(
        severity="error",
        message="Unresolved reference 'missing'.",
        line=1,
        column=column,
        text=f"error: Unresolved reference 'missing'. (line 1, col {column})",
    )
    return CheckResult(id=rid, compiled=False, diagnostics=[error])


class FakeLauncher:
    """Spawns fake workers and remembers every one, so a test can count the live ones like processes."""

    def __init__(self, *, start_delay: float = 0.0, crash_on_start: bool = False) -> None:
        self.start_delay = start_delay
        self.crash_on_start = crash_on_start
        self.spawned: list[FakeTransport] = []
        # Snippets that workers spawned from now on fail at run time (code that worked in an earlier JVM).
        self.failing: set[str] = set()

    async def spawn(
        self, spec: SessionSpec, *, label: str, keep_logs: set[Path], role: str = "session"
    ) -> FakeTransport:
        transport = FakeTransport(start_delay=self.start_delay, crash_on_start=self.crash_on_start)
        transport.failing = set(self.failing)
        transport.role = role
        self.spawned.append(transport)
        return transport

    def live(self) -> list[FakeTransport]:
        return [t for t in self.spawned if t.returncode is None]
