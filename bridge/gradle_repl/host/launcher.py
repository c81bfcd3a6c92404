"""Where workers come from: the one seam between session policy and real processes.

A launcher spawns a worker and hands back its transport: a line pipe in, a line pipe out and the
process's facts. `SubprocessLauncher` runs `python -m gradle_repl.worker`; tests pass launchers of
fake workers that misbehave on cue, so session policy is tested in milliseconds.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal, Protocol

import psutil

from gradle_repl.environment import SessionSpec
from gradle_repl.host.logs import new_log_path
from gradle_repl.host.session_env import process_environment

__all__ = [
    "WorkerTransport",
    "WorkerLauncher",
    "SubprocessLauncher",
    "SubprocessTransport",
    "FRAME_READ_LIMIT",
    "Signal",
    "WorkerRole",
]

# One frame line read from a worker is at most this long; the worker caps every field far below it,
# so a longer line means a broken worker, not a big answer.
FRAME_READ_LIMIT = 16 * 1024 * 1024
# Environment variables the worker reads (see gradle_repl.worker.__main__).
_LOG_PATH_ENV = "GRADLE_REPL_WORKER_LOG"

Signal = Literal["terminate", "kill"]

# A statement on sys.platform (not an expression) so the type checker reads only the running platform's branch.
_OWN_PROCESS_GROUP: dict[str, Any]
if sys.platform == "win32":
    _OWN_PROCESS_GROUP = {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
else:
    _OWN_PROCESS_GROUP = {"start_new_session": True}


class WorkerTransport(Protocol):
    """A started worker process as the host sees it."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    @property
    def log_path(self) -> Path | None: ...

    async def write(self, data: bytes) -> None:
        """Sends request bytes; raises ConnectionError when the worker is gone."""

    async def readline(self) -> bytes:
        """One frame line; b"" at end of file; ValueError when a line exceeds FRAME_READ_LIMIT."""

    async def wait(self) -> int: ...

    def close_input(self) -> None:
        """Closes the request pipe: a worker exits on its own when it sees end of file."""

    def send_signal(self, how: Signal) -> None: ...

    def rss_bytes(self) -> int | None: ...

    @property
    def process(self) -> psutil.Process | None:
        """The OS process, for exit paths that stop workers without an event loop (None for fakes)."""


# What a worker process is for; shown in its command line so `ps` (and tests) can tell them apart. A session's runs
# snippets; a class-data worker writes the class-data archive (host/training.py); a preparing one compiles the facade
# beside a first build (host/preparation.py). The last two exit once done.
WorkerRole = Literal["session", "class-data", "prepare"]


class WorkerLauncher(Protocol):
    async def spawn(
        self, spec: SessionSpec, *, label: str, keep_logs: set[Path], role: WorkerRole = "session"
    ) -> WorkerTransport: ...


class SubprocessTransport:
    def __init__(self, process: asyncio.subprocess.Process, log_path: Path) -> None:
        self._process = process
        self._log_path = log_path
        try:
            # Held from spawn on, so a reused pid can never be mistaken for this worker.
            self._ps: psutil.Process | None = psutil.Process(process.pid)
        except psutil.Error:
            self._ps = None

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    @property
    def log_path(self) -> Path | None:
        return self._log_path

    async def write(self, data: bytes) -> None:
        stdin = self._process.stdin
        if stdin is None or stdin.is_closing():
            raise ConnectionError("the worker's request pipe is closed")
        try:
            stdin.write(data)
            await stdin.drain()
        except (RuntimeError, OSError) as error:
            raise ConnectionError(str(error)) from error

    async def readline(self) -> bytes:
        assert self._process.stdout is not None
        return await self._process.stdout.readline()

    async def wait(self) -> int:
        return await self._process.wait()

    def close_input(self) -> None:
        stdin = self._process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()

    def send_signal(self, how: Signal) -> None:
        if self._process.returncode is not None:
            return
        try:
            if how == "kill":
                self._process.kill()
            else:
                self._process.terminate()
        except ProcessLookupError:
            pass

    def rss_bytes(self) -> int | None:
        try:
            return self._ps.memory_info().rss if self._ps is not None else None
        except psutil.Error:
            return None

    @property
    def process(self) -> psutil.Process | None:
        """For exit paths that stop workers without an event loop."""
        return self._ps


class SubprocessLauncher:
    """Starts `python -m gradle_repl.worker` in the project's directory, its stderr to a log of its own."""

    async def spawn(
        self, spec: SessionSpec, *, label: str, keep_logs: set[Path], role: WorkerRole = "session"
    ) -> SubprocessTransport:
        environment = spec.environment
        log_path = new_log_path(label, keep=keep_logs)
        # Relative paths in snippets resolve against the module, as in the project's own tests.
        # Both touch only local metadata, once per worker start (which takes seconds): not worth a thread.
        cwd = next((d for d in (environment.project_dir, environment.project_root) if d and Path(d).is_dir()), None)  # noqa: ASYNC240
        with open(log_path, "ab") as log:  # noqa: ASYNC230
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "gradle_repl.worker",
                f"--role={role}",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                limit=FRAME_READ_LIMIT,
                cwd=cwd,
                # A test session's process has the build's test environment (surefire's environmentVariables, Gradle's
                # test { environment }) under the session's own env.
                env={
                    **(environment.test_settings.environment if environment.test_settings else {}),
                    **process_environment(spec.options),
                    _LOG_PATH_ENV: str(log_path),
                },
                # A group of its own: Ctrl-C in the user's terminal (gradle-repl repl, or a client run
                # in a shell) is for the host to handle; only the host stops a worker.
                **_OWN_PROCESS_GROUP,
            )
        return SubprocessTransport(process, log_path)
