"""Which sessions close without being asked, and the notice each one is owed.

Two rules: when the cap is reached, the least recently used idle session makes room for a new one; a
session idle past the idle timeout is closed. Either way its next call is told that its state is gone
and why (state loss is never silent).
"""

from __future__ import annotations

import asyncio
import time

from gradle_repl.errors import GradleReplError
from gradle_repl.host.limits import SessionLimits
from gradle_repl.host.sessions import Session, SessionTable
from gradle_repl.host.spawned import SpawnedWorkers

__all__ = ["SessionEviction"]


class SessionEviction:
    def __init__(self, sessions: SessionTable, workers: SpawnedWorkers, limits: SessionLimits) -> None:
        self._sessions = sessions
        self._workers = workers
        self._limits = limits
        # Why a session closed without being asked to, told on its next call.
        self._notices: dict[str, str] = {}
        self._idle_watch: asyncio.Task[None] | None = None

    def start_idle_watch(self) -> None:
        if self._idle_watch is None:
            self._idle_watch = asyncio.create_task(self._evict_idle_forever())

    def stop_idle_watch(self) -> None:
        if self._idle_watch is not None:
            self._idle_watch.cancel()

    def take_notice(self, session_id: str) -> str | None:
        """The notice owed to a session's next call, handed out once."""
        return self._notices.pop(session_id, None)

    def claim_room(self, *, keep: str) -> Session | None:
        """The session to evict so one more may start (None when there is room); raises when all are busy.

        Room is made and the start counted in one step: two starts at once can't both see room."""
        live = [s for s in self._sessions if s.session_id != keep and s.holds_jvm]
        if len(live) < self._limits.max_sessions:
            return None
        idle = sorted((s for s in live if s.starting is None and not s.lock.locked()), key=lambda s: s.last_used)
        if not idle:
            raise GradleReplError(
                f"all {self._limits.max_sessions} sessions are busy; close one with close_kotlin_session "
                "or start the server with a larger --max-sessions"
            )
        victim = idle[0]
        # Gone from the table at once, so the count above is right for the next caller too.
        self._sessions.remove(victim.session_id)
        victim.closed = True
        return victim

    async def make_room(self, victim: Session) -> None:
        """Closes the session claim_room chose."""
        await self._evict(victim, f"to make room: at most {self._limits.max_sessions} sessions live at once")

    async def _evict_idle_forever(self) -> None:
        while True:
            await asyncio.sleep(self._limits.eviction_poll_seconds)
            now = time.monotonic()
            for session in self._sessions:
                idle = now - session.last_used
                if (
                    session.worker is not None
                    and not session.lock.locked()
                    and idle > self._limits.idle_timeout_seconds
                ):
                    self._sessions.remove(session.session_id)
                    await self._evict(
                        session, f"after {idle:.0f} s idle (--idle-timeout {self._limits.idle_timeout_seconds:g})"
                    )

    async def _evict(self, session: Session, why: str) -> None:
        self._notices[session.session_id] = (
            f"[session {session.session_id!r} was closed {why}; state from its {session.snippets_run} earlier "
            "snippet(s) is gone]"
        )
        await session.close(self._workers, reason="evicted")
