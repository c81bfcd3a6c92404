"""Maps session ids to workers: one worker per session, restarted when its environment changes.

Calls on one session run one at a time (a per-session lock); different sessions, and environment
resolution (run in a thread), proceed in parallel.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel

from .environment import ReplEnvironment
from .errors import GradleReplError
from .resolve import BuildToolChoice, resolve_environment
from .worker_process import Reply, WorkerOptions, WorkerProcess

__all__ = ["SessionManager", "SessionInfo", "SessionLimits", "MAX_CODE_BYTES"]

# Larger snippets are almost certainly a mistake (a pasted file or binary); the compiler would
# spend minutes on them.
MAX_CODE_BYTES = 1_000_000
# On SIGTERM or interpreter exit: how long workers get after SIGTERM before SIGKILL.
KILL_ALL_GRACE_SECONDS = 2.0
# How often idle sessions are looked for.
EVICTION_POLL_SECONDS = 5.0

Progress = Callable[[str], None]


@dataclass
class SessionLimits:
    idle_timeout_seconds: float = 30 * 60
    max_sessions: int = 4
    default_timeout_seconds: float = 60.0
    # Keep one started, warmed worker for the most recently used environment, so a new session
    # starts in milliseconds instead of seconds (costs one idle JVM, about 0.4 GB).
    spare_worker: bool = True


class SessionInfo(BaseModel):
    session_id: str
    project_root: str
    project_path: str
    source_set: str
    build_tool: str
    kotlin_version: str
    java_home: str
    java_version: str
    snippets_run: int
    uptime_seconds: float
    idle_seconds: float
    worker_pid: int
    worker_rss_bytes: int | None


@dataclass
class _Session:
    session_id: str
    environment: ReplEnvironment | None = None
    worker: WorkerProcess | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    snippets_run: int = 0
    last_used: float = field(default_factory=time.monotonic)


class SessionManager:
    def __init__(self, *, limits: SessionLimits | None = None, worker_options: WorkerOptions | None = None) -> None:
        self.limits = limits or SessionLimits()
        self.worker_options = worker_options or WorkerOptions()
        self._sessions: dict[str, _Session] = {}
        self._evictor: asyncio.Task[None] | None = None
        # Why a session closed without being asked to, told on its next call (state loss is never silent).
        self._evicted: dict[str, str] = {}
        self._spare: asyncio.Task[WorkerProcess] | None = None
        self._spare_environment: ReplEnvironment | None = None

    def start_eviction(self) -> None:
        if self._evictor is None:
            self._evictor = asyncio.create_task(self._evict_idle_forever())

    async def run_snippet(
        self,
        *,
        session_id: str,
        project_root: str,
        code: str,
        project_path: str = ":",
        source_set: str = "main",
        build_tool: BuildToolChoice = "auto",
        timeout_seconds: float | None = None,
        progress: Progress | None = None,
    ) -> Reply:
        _check_code(code)
        resolved = await asyncio.to_thread(
            resolve_environment,
            project_root,
            project_path=project_path,
            source_set=source_set,
            build_tool=build_tool,
            on_progress=progress,
        )
        session = self._sessions.setdefault(session_id, _Session(session_id))
        async with session.lock:
            session.last_used = time.monotonic()
            notices = []
            if session_id in self._evicted:
                notices.append(self._evicted.pop(session_id))
            changed = session.environment != resolved.environment
            if session.worker is not None and changed:
                notices.append(
                    f"[session {session_id!r} restarted: the project's build or sources changed since its JVM started; "
                    f"state from its {session.snippets_run} earlier snippet(s) is gone]"
                )
            if session.worker is None or not session.worker.alive or changed:
                await self._start_worker(session, resolved.environment, progress)
            assert session.worker is not None
            timeout = timeout_seconds if timeout_seconds is not None else self.limits.default_timeout_seconds
            reply = await session.worker.evaluate(code, timeout_seconds=timeout)
            reply.notices = notices
            session.snippets_run += 1
            session.last_used = time.monotonic()
            if reply.result.state_lost:
                await self._drop_worker(session)
            return reply

    async def _start_worker(self, session: _Session, environment: ReplEnvironment, progress: Progress | None) -> None:
        if session.worker is not None:
            if progress:
                progress("the session's environment changed; restarting its worker")
            await self._drop_worker(session)
        await self._make_room(keep=session.session_id)
        session.worker = await self._take_spare(environment)
        if session.worker is None:
            if progress:
                progress(f"starting a JVM with Kotlin {environment.kotlin_version} for session {session.session_id!r}")
            session.worker = await WorkerProcess.launch(environment, self.worker_options, label=session.session_id)
        session.environment = environment
        session.snippets_run = 0
        self._refill_spare(environment)
        if progress and session.worker.ready.facade_compiled:
            progress(f"compiled the jvm-worker facade for Kotlin {environment.kotlin_version} (cached from now on)")

    async def _take_spare(self, environment: ReplEnvironment) -> WorkerProcess | None:
        """The spare worker when it was started for this environment (waiting for it if still starting)."""
        if self._spare is None or self._spare_environment != environment:
            return None
        spare, self._spare, self._spare_environment = self._spare, None, None
        try:
            worker = await spare
        except Exception:  # noqa: BLE001 - a failed spare only means starting one the normal way
            return None
        return worker if worker.alive else None

    def _refill_spare(self, environment: ReplEnvironment) -> None:
        if not self.limits.spare_worker or self._spare_environment == environment:
            return
        self._discard_spare()
        self._spare_environment = environment
        self._spare = asyncio.create_task(WorkerProcess.launch(environment, self.worker_options, label="spare"))

    def _discard_spare(self) -> None:
        spare, self._spare, self._spare_environment = self._spare, None, None
        if spare is not None:
            # Runs at once for a spare that already started, else as soon as it has.
            spare.add_done_callback(_stop_when_started)

    async def _make_room(self, *, keep: str) -> None:
        live = [s for s in self._sessions.values() if s.worker is not None and s.session_id != keep]
        if len(live) < self.limits.max_sessions:
            return
        idle = sorted((s for s in live if not s.lock.locked()), key=lambda s: s.last_used)
        if not idle:
            raise GradleReplError(
                f"all {self.limits.max_sessions} sessions are busy; close one with close_kotlin_session "
                "or start the server with a larger --max-sessions"
            )
        await self._evict(idle[0], f"to make room: at most {self.limits.max_sessions} sessions live at once")

    async def _drop_worker(self, session: _Session) -> None:
        worker, session.worker, session.environment = session.worker, None, None
        if worker is not None:
            await worker.stop()

    async def reset(self, session_id: str) -> bool:
        """Kills the session's worker; the next call starts fresh. False when there was none."""
        session = self._sessions.get(session_id)
        if session is None or session.worker is None:
            return False
        await self._drop_worker(session)
        session.snippets_run = 0
        return True

    async def close(self, session_id: str) -> bool:
        session = self._sessions.pop(session_id, None)
        if session is None:
            return False
        await self._drop_worker(session)
        return True

    def list(self) -> list[SessionInfo]:
        now = time.monotonic()
        infos = []
        for session in self._sessions.values():
            worker, env = session.worker, session.environment
            if worker is None or env is None:
                continue
            infos.append(
                SessionInfo(
                    session_id=session.session_id,
                    project_root=env.project_root,
                    project_path=env.project_path,
                    source_set=env.source_set,
                    build_tool=env.build_tool,
                    kotlin_version=env.kotlin_version,
                    java_home=env.java_home,
                    java_version=worker.ready.java_version,
                    snippets_run=session.snippets_run,
                    uptime_seconds=round(now - worker.started, 1),
                    idle_seconds=round(now - session.last_used, 1),
                    worker_pid=worker.pid,
                    worker_rss_bytes=worker.rss_bytes(),
                )
            )
        return infos

    async def close_all(self) -> None:
        if self._evictor is not None:
            self._evictor.cancel()
        if self._spare is not None:
            spare, self._spare, self._spare_environment = self._spare, None, None
            try:
                await (await spare).stop()
            except Exception:  # noqa: BLE001 - a spare that never started has nothing to stop
                pass
        await asyncio.gather(*(self.close(sid) for sid in list(self._sessions)), return_exceptions=True)

    def kill_all_now(self) -> None:
        """Stops every worker without an event loop: SIGTERM, a short grace, then SIGKILL."""
        workers = [s.worker for s in self._sessions.values() if s.worker is not None]
        spare = _started(self._spare) if self._spare is not None else None
        if spare is not None:
            workers.append(spare)
        for worker in workers:
            worker.signal(signal.SIGTERM)
        deadline = time.monotonic() + KILL_ALL_GRACE_SECONDS
        while any(w.alive_by_pid() for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        for worker in workers:
            worker.signal(signal.SIGKILL)

    async def _evict_idle_forever(self) -> None:
        while True:
            await asyncio.sleep(EVICTION_POLL_SECONDS)
            now = time.monotonic()
            for session in list(self._sessions.values()):
                idle = now - session.last_used
                if session.worker is not None and not session.lock.locked() and idle > self.limits.idle_timeout_seconds:
                    await self._evict(session, f"after {idle:.0f} s idle (--idle-timeout {self.limits.idle_timeout_seconds:g})")

    async def _evict(self, session: _Session, why: str) -> None:
        self._evicted[session.session_id] = (
            f"[session {session.session_id!r} was closed {why}; state from its {session.snippets_run} earlier "
            "snippet(s) is gone]"
        )
        await self.close(session.session_id)


def _started(task: asyncio.Task[WorkerProcess]) -> WorkerProcess | None:
    """The worker a finished launch task produced; None while running, or when cancelled or failed."""
    if not task.done() or task.cancelled() or task.exception() is not None:
        return None
    return task.result()


def _stop_when_started(task: asyncio.Task[WorkerProcess]) -> None:
    worker = _started(task)
    if worker is not None:
        asyncio.create_task(worker.stop())


def _check_code(code: str) -> None:
    if not code.strip():
        raise GradleReplError("code is empty; pass the Kotlin snippet to run")
    try:
        size = len(code.encode("utf-8"))
    except UnicodeEncodeError as error:
        raise GradleReplError(f"code is not valid Unicode text (at character {error.start}); send UTF-8 text") from None
    if size > MAX_CODE_BYTES:
        raise GradleReplError(f"code is {size} bytes; snippets are limited to {MAX_CODE_BYTES} bytes")
