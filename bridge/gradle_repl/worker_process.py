"""The server's handle on one worker process: launch, evaluate, stop.

All process launching goes through WorkerProcess.launch, and stopping escalates (close stdin →
SIGTERM → SIGKILL) with the path taken recorded in `shutdown_path`, so tests can assert it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path
from typing import Literal

from .environment import ReplEnvironment
from .errors import WorkerFailed
from .frames import (
    DisplayFrame,
    EvalRequest,
    ReadyFrame,
    ResultFrame,
    StartRequest,
    StreamFrame,
    decode_frame,
    encode,
)
from .paths import log_dir

__all__ = ["WorkerProcess", "WorkerOptions", "ShutdownPath", "Reply"]

# Starting a JVM, loading the compiler and (first time per Kotlin version) compiling the facade.
WORKER_START_TIMEOUT_SECONDS = 180.0
# Beyond a snippet's own timeout: the worker's interrupt grace plus time to write its reply.
RESULT_MARGIN_SECONDS = 10.0
# After stdin closes, how long a worker gets to exit by itself, then after SIGTERM.
STOP_GRACE_SECONDS = 2.0
# A frame carries at most a capped image in base64; this bounds one line read from the worker.
FRAME_READ_LIMIT = 64 * 1024 * 1024

# Worker logs are for diagnosing the recent past.
KEPT_WORKER_LOGS = 50

ShutdownPath = Literal["exited", "terminated", "killed"]


class WorkerOptions:
    def __init__(
        self, *, heap_mb: int = 768, output_limit_bytes: int = 1_000_000, frame_limit_bytes: int = 200_000
    ) -> None:
        self.heap_mb = heap_mb
        self.output_limit_bytes = output_limit_bytes
        self.frame_limit_bytes = frame_limit_bytes


class Reply:
    """The frames one snippet produced, result last."""

    def __init__(self, frames: list[StreamFrame | DisplayFrame], result: ResultFrame) -> None:
        self.frames = frames
        self.result = result
        # Things the user must know that are not the snippet's own output (a session restart).
        self.notices: list[str] = []


class WorkerProcess:
    def __init__(self, process: asyncio.subprocess.Process, ready: ReadyFrame, log_path: Path) -> None:
        self._process = process
        self.ready = ready
        self.log_path = log_path
        self.started = time.monotonic()
        self.shutdown_path: ShutdownPath | None = None

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def alive(self) -> bool:
        return self._process.returncode is None

    @classmethod
    async def launch(cls, environment: ReplEnvironment, options: WorkerOptions, *, label: str) -> WorkerProcess:
        log_path = _new_log_path(label)
        with open(log_path, "wb") as log:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "gradle_repl.worker",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                limit=FRAME_READ_LIMIT,
            )
        start = StartRequest(
            environment=environment,
            heap_mb=options.heap_mb,
            output_limit_bytes=options.output_limit_bytes,
            frame_limit_bytes=options.frame_limit_bytes,
        )
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(encode(start))
            await process.stdin.drain()
            line = await asyncio.wait_for(process.stdout.readline(), WORKER_START_TIMEOUT_SECONDS)
        except (asyncio.TimeoutError, ConnectionError) as error:
            process.kill()
            await process.wait()
            raise WorkerFailed(f"the worker did not start within {WORKER_START_TIMEOUT_SECONDS:g} s ({error!r}); log: {log_path}") from None
        if not line:
            code = await process.wait()
            raise WorkerFailed(f"the worker exited with code {code} while starting; log: {log_path}\n{_tail(log_path)}")
        frame = decode_frame(line)
        if isinstance(frame, ResultFrame):
            await process.wait()
            raise WorkerFailed(frame.message)
        if not isinstance(frame, ReadyFrame):
            process.kill()
            raise WorkerFailed(f"the worker sent {frame.event!r} before 'ready'")
        return cls(process, frame, log_path)

    async def evaluate(self, code: str, *, timeout_seconds: float) -> Reply:
        assert self._process.stdin is not None and self._process.stdout is not None
        frames: list[StreamFrame | DisplayFrame] = []
        try:
            self._process.stdin.write(encode(EvalRequest(code=code, timeout_ms=int(timeout_seconds * 1000))))
            await self._process.stdin.drain()
        except (ConnectionError, RuntimeError):
            return Reply(frames, await self._exited_result())
        deadline = time.monotonic() + timeout_seconds + RESULT_MARGIN_SECONDS
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = await asyncio.wait_for(self._process.stdout.readline(), max(remaining, 0.01))
            except asyncio.TimeoutError:
                await self.stop()
                return Reply(
                    frames,
                    ResultFrame(
                        type="error",
                        error_kind="timeout",
                        state_lost=True,
                        message=f"Timed out after {timeout_seconds:g} s and the worker stopped answering; it was "
                        "killed and the session's state is lost. The next call starts a fresh session.",
                    ),
                )
            if not line:
                return Reply(frames, await self._exited_result())
            frame = decode_frame(line)
            if isinstance(frame, ResultFrame):
                return Reply(frames, frame)
            if isinstance(frame, (StreamFrame, DisplayFrame)):
                frames.append(frame)

    async def _exited_result(self) -> ResultFrame:
        code = await self._process.wait()
        self.shutdown_path = self.shutdown_path or "exited"
        if code < 0:
            how = f"was killed by signal {signal.Signals(-code).name}"
        else:
            how = f"exited with code {code}" + (" (System.exit or a crash)" if code else "")
        return ResultFrame(
            type="error",
            error_kind="exited",
            state_lost=True,
            message=f"The session's JVM {how}; the session's state is lost. The next call starts a fresh session.",
        )

    async def stop(self) -> ShutdownPath:
        """Closes stdin, then SIGTERM, then SIGKILL, each after a grace period; shielded from cancellation."""
        return await asyncio.shield(self._stop())

    async def _stop(self) -> ShutdownPath:
        if self._process.returncode is not None:
            self.shutdown_path = self.shutdown_path or "exited"
            return self.shutdown_path
        if self._process.stdin is not None and not self._process.stdin.is_closing():
            self._process.stdin.close()
        steps: list[tuple[ShutdownPath, int | None]] = [("exited", None), ("terminated", signal.SIGTERM), ("killed", signal.SIGKILL)]
        for path, sig in steps:
            if sig is not None:
                try:
                    os.kill(self._process.pid, sig)
                except ProcessLookupError:
                    pass
            try:
                await asyncio.wait_for(self._process.wait(), STOP_GRACE_SECONDS)
                self.shutdown_path = path
                return path
            except asyncio.TimeoutError:
                continue
        await self._process.wait()
        self.shutdown_path = "killed"
        return "killed"

    def signal(self, sig: int) -> None:
        """For exit paths where no event loop can wait."""
        if self._process.returncode is None:
            try:
                os.kill(self._process.pid, sig)
            except ProcessLookupError:
                pass

    def alive_by_pid(self) -> bool:
        """Whether the process still runs (or is an unreaped zombie no more), without the event loop."""
        try:
            state = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        return state != "Z"

    def rss_bytes(self) -> int | None:
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            return None
        return None


def _new_log_path(label: str) -> Path:
    """A log file of this launch's own; only the newest KEPT_WORKER_LOGS are kept."""
    directory = log_dir()
    directory.mkdir(parents=True, exist_ok=True)
    logs = sorted(directory.glob("worker-*.log"), key=lambda p: p.stat().st_mtime)
    for old in logs[: max(0, len(logs) - KEPT_WORKER_LOGS + 1)]:
        old.unlink(missing_ok=True)
    return directory / f"worker-{_safe(label)}-{time.time_ns() // 1_000_000}-{os.getpid()}.log"


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label)[:80]


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
