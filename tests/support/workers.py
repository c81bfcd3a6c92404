"""Real worker processes driven from synchronous tests (SyncWorker, running_worker), the spec of an attached session, and
the polling every test waits with."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest

from gradle_repl.environment import Attached, ReplEnvironment, SessionSpec
from gradle_repl.frames import (
    CheckResult,
    CompletionResult,
    DescriptionResult,
    ErrorResult,
    Probe,
    ProbesResult,
    SessionDescription,
    SuccessResult,
    WorkerOptions,
)
from gradle_repl.host.handle import OnFrame, Reply, WorkerHandle
from gradle_repl.project.attach_target import attach_environment

# The thread jvm-worker's RunningSnippet (ReplDriver.kt) compiles a snippet on; the JVM gives Linux its name.
_COMPILING_THREAD = "repl-snippet"
# How long a worker may take to start compiling a snippet sent to it, or to stop its last compile's thread.
_COMPILE_START_SECONDS = 60.0


async def wait_until(condition: Callable[[], bool], what: str, seconds: float = 120.0) -> None:
    """Polls an observable state until it holds, never a fixed sleep; fails the test, naming `what`, after `seconds`.
    Every 10 ms: a snippet's compile thread, which cancel tests must see, lives for a fraction of a second."""
    deadline = anyio.current_time() + seconds
    while not condition():
        assert anyio.current_time() < deadline, f"waited {seconds:g} s for {what}"
        await anyio.sleep(0.01)


class SyncWorker:
    """A real worker process driven from synchronous tests through a private event loop."""

    def __init__(self, spec: ReplEnvironment | SessionSpec, options: WorkerOptions | None = None) -> None:
        self._loop = asyncio.new_event_loop()
        if isinstance(spec, ReplEnvironment):
            spec = SessionSpec(environment=spec)
        self.process: WorkerHandle = self._loop.run_until_complete(
            WorkerHandle.launch(spec, options or WorkerOptions(heap_mb=512), label="test")
        )

    def eval(
        self, code: str, *, timeout: float = 60.0, on_frame: OnFrame | None = None, probes: Sequence[Probe] = ()
    ) -> Reply:
        """Runs a snippet (with `probes` set while it runs); `on_frame` sees each of its output frames as it arrives."""
        return self._loop.run_until_complete(
            self.process.request(code, timeout_seconds=timeout, on_frame=on_frame, probes=probes)
        )

    def cancel_while_compiling(self, code: str) -> None:
        """Sends the snippet and cancels it, as an MCP client's cancel does, once the worker's JVM is seen compiling it;
        returns once the worker has answered (a cancelled call's answer goes nowhere). The compile must outlast the
        moments the cancel takes to reach the worker: the test fails if the snippet's answer came first."""

        async def cancel() -> None:
            await wait_until(
                lambda: not self.compiling(), "the previous snippet's compile thread to end", _COMPILE_START_SECONDS
            )
            request = asyncio.ensure_future(self.process.request(code, timeout_seconds=_COMPILE_START_SECONDS))
            await wait_until(
                lambda: self.compiling() or request.done(), "the worker to compile the snippet", _COMPILE_START_SECONDS
            )
            assert not request.done(), (
                f"the snippet was answered before it was seen compiling: {request.result().result}"
            )
            request.cancel()
            with pytest.raises(asyncio.CancelledError):
                await request
            await self.process.settled()

        self._loop.run_until_complete(cancel())

    def cancel_at_once(self, code: str) -> None:
        """Sends the snippet and cancels it straight away, as a client cancelling right after sending does (the cancel
        line follows the snippet's on the pipe); returns once the worker has answered."""

        async def cancel() -> None:
            request = asyncio.ensure_future(self.process.request(code, timeout_seconds=_COMPILE_START_SECONDS))
            # One turn of the loop: the request task starts its exchange, which writes the snippet before it looks at the
            # cancel; cancelled before that turn, the request would never be sent at all.
            await asyncio.sleep(0)
            request.cancel()
            with pytest.raises(asyncio.CancelledError):
                await request
            await self.process.settled()

        self._loop.run_until_complete(cancel())

    def compiling(self) -> bool:
        """Whether the worker's JVM runs a compile thread now (read from /proc: Linux only)."""
        names = []
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            try:
                names.append((task / "comm").read_text().strip())
            except OSError:
                pass  # a thread that ended while it was read
        return _COMPILING_THREAD in names

    def succeeded(self, code: str, *, timeout: float = 60.0) -> SuccessResult:
        """The result of a snippet that must succeed."""
        result = self.eval(code, timeout=timeout).result
        assert isinstance(result, SuccessResult), f"{result.message}\n{result.stack}"
        return result

    def failed(self, code: str, *, timeout: float = 60.0) -> ErrorResult:
        """The error of a snippet that must fail."""
        result = self.eval(code, timeout=timeout).result
        assert isinstance(result, ErrorResult), result
        return result

    def value(self, code: str) -> str:
        """The rendered value of a snippet that must succeed."""
        result = self.eval(code).result
        assert isinstance(result, SuccessResult), f"{result.message}\n{result.stack}"
        assert result.value is not None, "the snippet produced no value"
        return result.value.data

    def check(self, code: str) -> CheckResult:
        """What compiling the code in the session's state reports (nothing runs)."""
        analysis = self._loop.run_until_complete(self.process.check(code, timeout_seconds=60.0))
        assert isinstance(analysis.result, CheckResult), analysis.result
        return analysis.result

    def complete(self, code: str, cursor: int | None = None) -> CompletionResult:
        """What fits at the cursor (default: the code's end) in the session's state (nothing runs)."""
        analysis = self._loop.run_until_complete(
            self.process.complete(code, len(code) if cursor is None else cursor, timeout_seconds=60.0)
        )
        assert isinstance(analysis.result, CompletionResult), analysis.result
        return analysis.result

    def describe(self) -> SessionDescription:
        """What the session holds, from the worker itself."""
        result = self._loop.run_until_complete(self.process.describe())
        assert isinstance(result, DescriptionResult), result.message
        return result.description

    def add_probe(self, probe: Probe, *, expires_seconds: float = 600.0) -> ProbesResult:
        """A session probe set (add_kotlin_probe), which must be set."""
        result = self._loop.run_until_complete(self.process.add_probe(probe, expires_seconds=expires_seconds))
        assert isinstance(result, ProbesResult), result.message
        return result

    def read_probes(self, probe_id: int | None = None, *, wait_seconds: float = 0.0) -> ProbesResult:
        """The session probes' hits since the last read, asked again until one came or `wait_seconds` passed (as the
        host's read_probes waits)."""

        async def read() -> ProbesResult:
            deadline = asyncio.get_running_loop().time() + wait_seconds
            while True:
                result = await self.process.read_probes(probe_id)
                assert isinstance(result, ProbesResult), result.message
                if result.hits or asyncio.get_running_loop().time() >= deadline:
                    return result
                await asyncio.sleep(0.05)

        return self._loop.run_until_complete(read())

    def remove_probe(self, probe_id: int) -> ProbesResult:
        result = self._loop.run_until_complete(self.process.remove_probe(probe_id))
        assert isinstance(result, ProbesResult), result.message
        return result

    def close(self) -> None:
        self._loop.run_until_complete(self.process.stop())
        self._loop.close()


@contextmanager
def running_worker(spec: ReplEnvironment | SessionSpec, options: WorkerOptions | None = None) -> Iterator[SyncWorker]:
    """A real worker for the block (an environment's: in a JVM of its own), stopped however the block ends."""
    worker = SyncWorker(spec, options)
    try:
        yield worker
    finally:
        worker.close()


def attached_to(pid: int, project: ReplEnvironment | None = None) -> SessionSpec:
    """The spec of a session attached to the running JVM `pid` (with `project`'s plugins and Kotlin when given)."""
    return SessionSpec(environment=attach_environment(pid, project), placement=Attached(pid=pid))
