"""Whether an attached app runs: stopped (SIGSTOP, a debugger), exited, or running on after its connection closed."""

from __future__ import annotations

import time

import psutil

from gradle_repl.stopping import paused

__all__ = ["EXIT_SETTLE_SECONDS", "stopped_note", "still_running"]

# How long a JVM whose connection closed may take to be marked exited before it counts as running on: the kernel
# closes a killed process's files first, then marks it; moments, even on a loaded machine.
EXIT_SETTLE_SECONDS = 2.0


def stopped_note(pid: int) -> str | None:
    """That JVM `pid` is stopped, as one sentence with what to do; None when it runs (or is gone)."""
    phrase = paused(pid)
    return f"JVM {pid} is {phrase}" if phrase is not None else None


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.NoSuchProcess:
        return False


def still_running(pid: int) -> bool:
    """Whether the process runs on after its connection closed (a killed one its parent hasn't waited for yet is a
    zombie: it has exited). A process being killed closes its sockets before the kernel marks it exited, so a
    closed connection is followed by that mark within moments: looked for until EXIT_SETTLE_SECONDS have passed."""
    deadline = time.monotonic() + EXIT_SETTLE_SECONDS
    while _running(pid):
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.05)
    return False
