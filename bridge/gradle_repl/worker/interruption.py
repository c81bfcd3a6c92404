"""Stops a running snippet on a cancel or its timeout, and says what that cost.

A snippet whose code runs is interrupted and given INTERRUPT_GRACE_SECONDS to stop; one still compiling
(the compiler can't be interrupted) is marked, ends after compiling without running, and is waited for
COMPILE_AFTER_CANCEL_SECONDS. Either kept within its time, the session's state is kept. Past it the JVM
offers no safe way to end the thread, so the worker must go, and its state with it.
"""

from __future__ import annotations

import sys
import time
from typing import Literal

from gradle_repl.frames import ErrorResult
from gradle_repl.worker.deadlines import COMPILE_AFTER_CANCEL_SECONDS, INTERRUPT_GRACE_SECONDS
from gradle_repl.worker.java import RunningSnippet
from gradle_repl.worker.results.safety import jstr

__all__ = ["cancelled_before_start", "stop_snippet", "stopped_before_running", "why_stopped"]

# How often the wait looks whether the snippet stopped (or started running): short beside the waits above.
_LOOK_MS = 100


def stop_snippet(running: RunningSnippet, *, request_id: int, timeout_ms: int, cancelled: bool) -> ErrorResult:
    """Stops the facade's RunningSnippet; the result says whether the session's state survived (`state_lost`)."""
    why, kind = why_stopped(timeout_ms=timeout_ms, cancelled=cancelled)
    running.cancel()
    if _stopped_in_time(running):
        outcome = running.getOutcome()
        if outcome is not None and outcome.cancelledBeforeEvaluation:
            return stopped_before_running(timeout_ms=timeout_ms, cancelled=cancelled)
        return ErrorResult(
            error_kind=kind, message=f"{why}; the snippet was interrupted and stopped. The session's state is kept."
        )
    print(
        f"[gradle-repl] snippet {request_id} still running {INTERRUPT_GRACE_SECONDS:g} s after interrupt():\n{jstr(running.stack())}",
        file=sys.stderr,
        flush=True,
    )
    return ErrorResult(
        error_kind=kind,
        state_lost=True,
        message=f"{why} and the snippet ignored interruption; its worker was stopped and the session's "
        "state is lost. The next call starts a fresh session.",
    )


def why_stopped(*, timeout_ms: int, cancelled: bool) -> tuple[str, Literal["cancelled", "timeout"]]:
    """What stopped a snippet, as its answer begins, and the error kind that says it."""
    if cancelled:
        return "Cancelled by the client", "cancelled"
    return f"Timed out after {timeout_ms / 1000:g} s", "timeout"


def stopped_before_running(*, timeout_ms: int, cancelled: bool) -> ErrorResult:
    """The answer for a snippet stopped while it compiled: it never ran, and nothing of the session was touched."""
    why, kind = why_stopped(timeout_ms=timeout_ms, cancelled=cancelled)
    return ErrorResult(
        error_kind=kind, message=f"{why} while the snippet compiled; it never ran. The session's state is kept."
    )


def cancelled_before_start() -> ErrorResult:
    """The answer for a snippet whose cancel came before it began: it was neither compiled nor run."""
    why, kind = why_stopped(timeout_ms=0, cancelled=True)
    return ErrorResult(
        error_kind=kind, message=f"{why} before the snippet started; it never ran. The session's state is kept."
    )


def _stopped_in_time(running: RunningSnippet) -> bool:
    cancelled_at = time.monotonic()
    # The grace counts from when the code is seen running: a compile that ends after the cancel starts no code.
    running_since = cancelled_at if running.getEvaluating() else None
    while not running.join(_LOOK_MS):
        now = time.monotonic()
        if running.getEvaluating():
            running_since = now if running_since is None else running_since
            if now - running_since > INTERRUPT_GRACE_SECONDS:
                return False
        elif now - cancelled_at > COMPILE_AFTER_CANCEL_SECONDS:
            return False
    return True
