"""The one stop ladder for workers and builds, and a record of which step ended a worker.

Async (event loop running): close the request pipe → wait → terminate → wait → kill → wait.
Sync (signal handlers, atexit: no loop to wait on): terminate → wait → kill, through psutil, which
waits on processes portably and never mistakes a reused pid for the one it was given.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Literal, Protocol

import psutil

__all__ = [
    "ShutdownPath",
    "Stoppable",
    "stop_worker",
    "stop_processes_now",
    "STOP_GRACE_SECONDS",
    "paused",
]

# How long each step of the ladder waits for the process to exit before the next, stronger one.
STOP_GRACE_SECONDS = 2.0

ShutdownPath = Literal["exited", "terminated", "killed"]

# A process stopped by a signal (SIGSTOP, Ctrl-Z) or held by a debugger: nothing in it runs, so nothing in it answers
# (an attach listener, an agent's socket) until it is resumed.
_PAUSED = (psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP)


def paused(pid: int) -> str | None:
    """That process `pid` is stopped, as the phrase an attach refusal ends with (what it is, what to do); None when it
    runs or is gone. The one rule for the listing (project/running_jvms.py) and the attach itself (worker/attach)."""
    try:
        if psutil.Process(pid).status() not in _PAUSED:
            return None
    except psutil.Error:
        return None
    return f"stopped (SIGSTOP, Ctrl-Z or a debugger): resume it (kill -CONT {pid}) and attach again"


class Stoppable(Protocol):
    """What the ladder needs of a worker process (host.launcher.WorkerTransport is one)."""

    @property
    def returncode(self) -> int | None: ...

    def close_input(self) -> None: ...

    def send_signal(self, how: Literal["terminate", "kill"]) -> None: ...

    async def wait(self) -> int: ...


async def stop_worker(transport: Stoppable) -> ShutdownPath:
    """Stops a worker in escalating steps and says which one ended it."""
    if transport.returncode is not None:
        return "exited"
    transport.close_input()
    steps: tuple[tuple[ShutdownPath, Literal["terminate", "kill"] | None], ...] = (
        ("exited", None),
        ("terminated", "terminate"),
        ("killed", "kill"),
    )
    for path, how in steps:
        if how is not None:
            transport.send_signal(how)
        try:
            await asyncio.wait_for(transport.wait(), STOP_GRACE_SECONDS)
            return path
        except asyncio.TimeoutError:
            continue
    await transport.wait()
    return "killed"


def stop_processes_now(processes: Iterable[psutil.Process], *, grace_seconds: float = STOP_GRACE_SECONDS) -> None:
    """Terminates processes and their children, then kills whatever is left after the grace period."""
    targets: dict[int, psutil.Process] = {}
    for process in processes:
        try:
            for child in process.children(recursive=True):
                targets[child.pid] = child
        except psutil.Error:
            pass
        targets[process.pid] = process
    for process in targets.values():
        try:
            process.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(list(targets.values()), timeout=grace_seconds)
    for process in alive:
        try:
            process.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=grace_seconds)
