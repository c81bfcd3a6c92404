"""Restart and run all: a session's successful snippets, run again in order in a new JVM.

The host keeps the code of every snippet that succeeded (the session's history; a restart the project forced keeps
it, so a later replay can bring the state back, and a plain reset clears it: the user asked for a fresh session).
A replay stops at the first snippet that fails and says how many ran. Snippets can have side effects (files written,
requests sent), so a replay happens only when asked: `reset_kotlin_session(replay=true)`, or after a restart a
project change forced when the session's `replay` is `on_restart`. What a replayed snippet prints is not shown again.
"""

from __future__ import annotations

from typing import Literal

from gradle_repl.host.handle import WorkerHandle
from gradle_repl.host.notices import Notice

__all__ = ["ReplayPolicy", "replay"]

ReplayPolicy = Literal["never", "on_restart"]


async def replay(worker: WorkerHandle, history: list[str], *, timeout_seconds: float) -> tuple[list[str], Notice]:
    """Runs the snippets in order until one fails: the ones that ran (the session's history from now on), and the
    notice saying how many."""
    ran: list[str] = []
    for code in history:
        reply = await worker.request(code, timeout_seconds=timeout_seconds)
        if reply.result.type != "success":
            why = (reply.result.message.strip().splitlines() or [reply.result.error_kind])[0]
            return ran, Notice(
                kind="replayed",
                text=(
                    f"[replayed {len(ran)} of {len(history)} earlier snippet(s); snippet {len(ran) + 1} failed and the replay "
                    f"stopped there: {why}]"
                ),
            )
        ran.append(code)
    return ran, Notice(kind="replayed", text=f"[replayed {len(ran)} of {len(history)} earlier snippet(s)]")
