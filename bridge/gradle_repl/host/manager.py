"""Session policy: which worker serves a session, how many live at once, when they go.

The manager never talks to a process itself: workers come from a launcher (the seam tests fake)
and are driven through WorkerHandle. Calls on one session run one at a time; different sessions
and environment resolution proceed in parallel. Every worker the manager ever spawned is tracked
from the moment it exists, so close, eviction, cancellation and server exit can't leak one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from gradle_repl.worker import classdata
from gradle_repl.environment import BuildToolChoice, ReplEnvironment
from gradle_repl.errors import GradleReplError
from gradle_repl.frames import ErrorResult, SessionDescription, WorkerOptions
from gradle_repl.host.handle import OnFrame, Reply, WorkerHandle
from gradle_repl.host.libraries import library_annotations, replay_snippet
from gradle_repl.host.launcher import SubprocessLauncher, WorkerLauncher, WorkerTransport
from gradle_repl.stopping import stop_processes_now

__all__ = ["SessionManager", "SessionInfo", "SessionLimits", "MAX_CODE_BYTES", "Resolver", "BuildToolChoice"]

# Larger snippets are almost certainly a mistake (a pasted file or binary); the compiler would
# spend minutes on them.
MAX_CODE_BYTES = 1_000_000
# How often idle sessions are looked for.
EVICTION_POLL_SECONDS = 5.0
# Resolves wait on builds for minutes; they get threads of their own so they never starve the
# event loop's default pool (and each other across projects).
RESOLVE_THREADS = 16
# A training worker compiles a few snippets and then writes the archive (~100 MB); far less than this.
CLASS_DATA_WRITE_SECONDS = 180.0

_log = logging.getLogger(__name__)

Progress = Callable[[str], None]


class _Resolved(Protocol):
    environment: ReplEnvironment


class Resolver(Protocol):
    def __call__(
        self, project_root: str, *, project_path: str, source_set: str, build_tool: BuildToolChoice,
        refresh: bool = False, on_progress: Progress | None,
    ) -> _Resolved: ...


@dataclass
class SessionLimits:
    idle_timeout_seconds: float = 30 * 60
    max_sessions: int = 4
    default_timeout_seconds: float = 60.0
    # Keep one started, warmed worker for the most recently used environment, so a new session
    # starts in milliseconds instead of seconds (costs one idle JVM, about 0.4 GB).
    spare_worker: bool = True
    # Write the JDK's class-data archive in the background when it is missing (see classdata).
    train_class_data: bool = True


class SessionInfo(BaseModel):
    session_id: str
    state: Literal["starting", "idle", "running"]
    project_root: str
    project_path: str
    source_set: str
    build_tool: str
    kotlin_version: str
    java_home: str
    java_version: str | None
    snippets_run: int
    uptime_seconds: float
    idle_seconds: float
    worker_pid: int | None
    worker_rss_bytes: int | None
    declarations: int = Field(default=0, description="names the session's snippets declared (describe_kotlin_session lists them)")


@dataclass(eq=False)
class _Session:
    session_id: str
    environment: ReplEnvironment | None = None
    worker: WorkerHandle | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    snippets_run: int = 0
    declarations: int = 0
    last_used: float = field(default_factory=time.monotonic)
    starting: ReplEnvironment | None = None
    closed: bool = False


class SessionManager:
    def __init__(
        self,
        *,
        limits: SessionLimits | None = None,
        worker_options: WorkerOptions | None = None,
        launcher: WorkerLauncher | None = None,
        resolver: Resolver,
    ) -> None:
        self.limits = limits or SessionLimits()
        self.worker_options = worker_options or WorkerOptions()
        self._launcher = launcher or SubprocessLauncher()
        # The project side, passed in by the front end: the host never imports it.
        self._resolver = resolver
        self._sessions: dict[str, _Session] = {}
        self._evictor: asyncio.Task[None] | None = None
        # Why a session closed without being asked to, told on its next call (state loss is never silent).
        self._evicted: dict[str, str] = {}
        self._spare: asyncio.Task[WorkerHandle] | None = None
        self._spare_environment: ReplEnvironment | None = None
        self._training: asyncio.Task[None] | None = None
        # Every worker process spawned and not yet known to be gone, from the moment it exists.
        self._spawned: set[WorkerTransport] = set()
        self._resolve_pool = ThreadPoolExecutor(RESOLVE_THREADS, thread_name_prefix="resolve")

    def start_eviction(self) -> None:
        if self._evictor is None:
            self._evictor = asyncio.create_task(self._evict_idle_forever())

    async def resolve(
        self, project_root: str, *, project_path: str, source_set: str, build_tool: BuildToolChoice,
        progress: Progress | None, refresh: bool = False,
    ) -> _Resolved:
        """The project's environment, resolved on a thread of the manager's own (builds take minutes)."""

        def call() -> _Resolved:
            return self._resolver(
                project_root, project_path=project_path, source_set=source_set, build_tool=build_tool,
                refresh=refresh, on_progress=progress,
            )

        return await asyncio.get_running_loop().run_in_executor(self._resolve_pool, call)

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
        on_frame: OnFrame | None = None,
    ) -> Reply:
        _check_code(code)
        resolved = await self.resolve(
            project_root, project_path=project_path, source_set=source_set,
            build_tool=self._session_build_tool(session_id, project_root, build_tool), progress=progress,
        )
        session = self._session(session_id)
        async with session.lock:
            notices = self._enter(session, resolved)
            worker = await self._worker_for(session, resolved.environment, notices, progress)
            timeout = timeout_seconds if timeout_seconds is not None else self.limits.default_timeout_seconds
            reply = await worker.request(code, timeout_seconds=timeout, on_frame=on_frame, notices=notices)
            session.last_used = time.monotonic()
            if reply.state_lost:
                self._forget_worker(session, worker)
            else:
                session.snippets_run += 1
                if reply.result.declared is not None:
                    session.declarations = reply.result.declared
            return reply

    async def open_session(
        self,
        *,
        session_id: str,
        project_root: str,
        project_path: str = ":",
        source_set: str = "main",
        build_tool: BuildToolChoice = "auto",
        progress: Progress | None = None,
    ) -> tuple[str, ...]:
        """Resolves the project and starts the session's JVM before its first snippet; returns what the user must know."""
        resolved = await self.resolve(
            project_root, project_path=project_path, source_set=source_set,
            build_tool=self._session_build_tool(session_id, project_root, build_tool), progress=progress,
        )
        session = self._session(session_id)
        async with session.lock:
            notices = self._enter(session, resolved)
            await self._worker_for(session, resolved.environment, notices, progress)
            return tuple(notices)

    def _session(self, session_id: str) -> _Session:
        session = self._sessions.get(session_id)
        if session is None:
            session = self._sessions[session_id] = _Session(session_id)
        return session

    def _enter(self, session: _Session, resolved: _Resolved) -> list[str]:
        """With the session's lock held: marks it used and takes the notices owed to it."""
        if session.closed:
            raise GradleReplError(f"session {session.session_id!r} was closed while this call waited for it")
        session.last_used = time.monotonic()
        notices = [self._evicted.pop(session.session_id)] if session.session_id in self._evicted else []
        # Said once, on the call where it happened: which build tool could not run and what was used.
        return notices + list(getattr(resolved, "notices", ()))

    def _session_build_tool(self, session_id: str, project_root: str, build_tool: BuildToolChoice) -> BuildToolChoice:
        """`auto` on a session already running this project keeps the session's build tool."""
        session = self._sessions.get(session_id)
        environment = session.environment if session is not None else None
        if build_tool != "auto" or environment is None:
            return build_tool
        same_project = Path(environment.project_root) == Path(project_root).expanduser().resolve()
        return environment.build_tool if same_project else build_tool

    async def _worker_for(
        self, session: _Session, environment: ReplEnvironment, notices: list[str], progress: Progress | None
    ) -> WorkerHandle:
        """The session's worker for this environment: its current one, or a new one (saying why)."""
        worker = session.worker
        if worker is not None:
            # A cancelled call's snippet may still be finishing (or killing the worker): wait for it.
            await worker.settled()
        if worker is not None and worker.alive and session.environment == environment:
            return worker
        libraries: list[str] = []
        if worker is not None:
            if worker.lost_notice:
                notices.append(worker.lost_notice)
            elif session.environment != environment:
                notices.append(
                    f"[session {session.session_id!r} restarted: the project's build or sources changed since its JVM "
                    f"started; state from its {session.snippets_run} earlier snippet(s) is gone]"
                )
                # What the old worker reported it added, replayed in the new one.
                libraries = library_annotations(worker.libraries)
                if progress:
                    progress("the session's environment changed; restarting its worker")
            self._forget_worker(session, worker)
            await worker.stop()
        # What the build's environment can't give snippets is said once per JVM, where the agent reads it.
        notices.extend(f"[{warning}]" for warning in environment.warnings)
        worker = await self._start_worker(session, environment, progress)
        if libraries:
            await self._add_libraries_again(session, worker, libraries, notices)
        return worker

    async def _add_libraries_again(self, session: _Session, worker: WorkerHandle, libraries: list[str], notices: list[str]) -> None:
        reply = await worker.request(replay_snippet(libraries), timeout_seconds=self.limits.default_timeout_seconds)
        if reply.result.type == "success":
            notices.append(f"[added again after the restart: {'; '.join(dict.fromkeys(libraries))}]")
        else:
            why = (reply.result.message.strip().splitlines() or ["no reason given"])[0]
            notices.append(f"[the libraries this session added could not be added again: {why}]")

    async def _start_worker(self, session: _Session, environment: ReplEnvironment, progress: Progress | None) -> WorkerHandle:
        # Room is made and this start counted in one step: two starts at once can't both see room.
        victim = self._claim_room(keep=session.session_id)
        session.starting = environment
        try:
            if victim is not None:
                await self._evict(victim, f"to make room: at most {self.limits.max_sessions} sessions live at once")
            worker = await self._take_spare(environment)
            if worker is None:
                if progress:
                    progress(f"starting a JVM with Kotlin {environment.kotlin_version} for session {session.session_id!r}")
                worker = await self._launch(environment, label=session.session_id)
        finally:
            session.starting = None
        if session.closed:
            await worker.stop()
            raise GradleReplError(f"session {session.session_id!r} was closed while its JVM started")
        session.worker, session.environment, session.snippets_run = worker, environment, 0
        self._refill_spare(environment)
        self._train_class_data(environment)
        if progress and worker.ready.facade_compiled:
            progress(f"compiled the jvm-worker facade for Kotlin {environment.kotlin_version} (cached from now on)")
        return worker

    def _claim_room(self, *, keep: str) -> _Session | None:
        """The session to evict so one more may start (None when there is room); raises when all are busy."""
        live = [
            s for s in self._sessions.values()
            if s.session_id != keep and (s.starting is not None or (s.worker is not None and s.worker.alive))
        ]
        if len(live) < self.limits.max_sessions:
            return None
        idle = sorted((s for s in live if s.starting is None and not s.lock.locked()), key=lambda s: s.last_used)
        if not idle:
            raise GradleReplError(
                f"all {self.limits.max_sessions} sessions are busy; close one with close_kotlin_session "
                "or start the server with a larger --max-sessions"
            )
        victim = idle[0]
        # Gone from the table at once, so the count above is right for the next caller too.
        self._sessions.pop(victim.session_id, None)
        victim.closed = True
        return victim

    async def _launch(self, environment: ReplEnvironment, *, label: str, train_class_data: bool = False) -> WorkerHandle:
        keep = {t.log_path for t in self._spawned if t.log_path is not None}
        return await WorkerHandle.launch(
            environment, self.worker_options, label=label, launcher=self._launcher, keep_logs=keep,
            on_spawn=self._spawned.add, train_class_data=train_class_data,
        )

    def _train_class_data(self, environment: ReplEnvironment) -> None:
        """Once per JDK and compiler: a background worker writes the archive later workers start from."""
        if not (self.limits.train_class_data and self.worker_options.class_data_sharing) or (self._training is not None and not self._training.done()):
            return
        archive = classdata.archive_path(environment.java_home, environment.repl_host_classpath)
        if archive is None or not classdata.needs_training(archive) or not classdata.claim_training(archive):
            return
        self._training = asyncio.create_task(self._run_training(environment, archive))

    async def _run_training(self, environment: ReplEnvironment, archive: Path) -> None:
        try:
            worker = await self._launch(environment, label="class-data", train_class_data=True)
            try:
                code = await asyncio.wait_for(worker.transport.wait(), CLASS_DATA_WRITE_SECONDS)
                if code != 0:
                    _log.warning("writing the class-data archive failed (exit %s); log: %s", code, worker.log_path)
            finally:
                await self._stop_and_untrack(worker)
        except Exception as error:  # noqa: BLE001 - without an archive workers only start slower
            _log.warning("class-data training failed: %s", error)
        finally:
            classdata.release_training(archive)

    async def _take_spare(self, environment: ReplEnvironment) -> WorkerHandle | None:
        """The spare worker when it was started for this environment (waiting for it if still starting)."""
        if self._spare is None or self._spare_environment != environment:
            return None
        spare, self._spare, self._spare_environment = self._spare, None, None
        try:
            worker = await asyncio.shield(spare)
        except asyncio.CancelledError:
            spare.add_done_callback(self._stop_when_started)
            raise
        except Exception:  # noqa: BLE001 - a failed spare only means starting one the normal way
            return None
        if worker.alive:
            return worker
        self._untrack(worker)
        return None

    def _refill_spare(self, environment: ReplEnvironment) -> None:
        if not self.limits.spare_worker or self._spare_environment == environment:
            return
        self._discard_spare()
        self._spare_environment = environment
        self._spare = asyncio.create_task(self._launch(environment, label="spare"))

    def _discard_spare(self) -> None:
        spare, self._spare, self._spare_environment = self._spare, None, None
        if spare is not None:
            # Runs at once for a spare that already started, else as soon as it has.
            spare.add_done_callback(self._stop_when_started)

    def _stop_when_started(self, task: asyncio.Task[WorkerHandle]) -> None:
        if task.done() and not task.cancelled() and task.exception() is None:
            worker = task.result()
            asyncio.ensure_future(self._stop_and_untrack(worker))

    def _forget_worker(self, session: _Session, worker: WorkerHandle) -> None:
        if session.worker is worker:
            session.worker, session.environment = None, None
            session.snippets_run = session.declarations = 0
        if not worker.alive:
            self._untrack(worker)

    def _untrack(self, worker: WorkerHandle) -> None:
        self._spawned.discard(worker.transport)

    async def _stop_and_untrack(self, worker: WorkerHandle, *, reason: str | None = None) -> None:
        await worker.stop(reason=reason)
        self._untrack(worker)

    async def describe(self, session_id: str) -> SessionDescription:
        """The names a live session holds, newest definition winning; waits for a running snippet to finish."""
        session = self._sessions.get(session_id)
        if session is None:
            live = ", ".join(repr(s) for s in self._sessions) or "none"
            raise GradleReplError(f"there is no session {session_id!r} (live sessions: {live})")
        async with session.lock:
            worker = session.worker
            if worker is None or not worker.alive:
                raise GradleReplError(
                    f"session {session_id!r} has no running JVM (it was reset or its state was lost): it holds nothing yet"
                )
            result = await worker.describe()
            if isinstance(result, ErrorResult):
                raise GradleReplError(f"session {session_id!r} could not be described: {result.message}")
            session.declarations = result.declared
            return result.description

    async def reset(self, session_id: str) -> bool:
        """Kills the session's worker (a running snippet ends with a clear reply); the next call starts fresh."""
        session = self._sessions.get(session_id)
        if session is None or session.worker is None:
            return False
        worker = session.worker
        self._forget_worker(session, worker)
        await self._stop_and_untrack(worker, reason="reset")
        return True

    async def close(self, session_id: str) -> bool:
        """Closes a session at once: a running snippet is stopped and a starting JVM is stopped when it's up."""
        session = self._sessions.pop(session_id, None)
        self._evicted.pop(session_id, None)
        if session is None:
            return False
        await self._close_session(session, reason="closed")
        return True

    async def _close_session(self, session: _Session, *, reason: str) -> None:
        session.closed = True
        worker = session.worker
        if worker is not None:
            self._forget_worker(session, worker)
            await self._stop_and_untrack(worker, reason=reason)

    def list(self) -> list[SessionInfo]:
        now = time.monotonic()
        infos = []
        for session in self._sessions.values():
            worker = session.worker if session.worker is not None and session.worker.alive else None
            env = session.environment if worker is not None else session.starting
            if env is None:
                continue
            state: Literal["starting", "idle", "running"] = (
                "starting" if worker is None else "running" if session.lock.locked() else "idle"
            )
            infos.append(
                SessionInfo(
                    session_id=session.session_id,
                    state=state,
                    project_root=env.project_root,
                    project_path=env.project_path,
                    source_set=env.source_set,
                    build_tool=env.build_tool,
                    kotlin_version=env.kotlin_version,
                    java_home=env.java_home,
                    java_version=worker.ready.java_version if worker else None,
                    snippets_run=session.snippets_run,
                    uptime_seconds=round(now - worker.started, 1) if worker else 0.0,
                    idle_seconds=round(now - session.last_used, 1),
                    worker_pid=worker.pid if worker else None,
                    worker_rss_bytes=worker.rss_bytes() if worker else None,
                    declarations=session.declarations if worker else 0,
                )
            )
        return infos

    def worker_pids(self) -> set[int]:
        """Every worker process this manager has spawned that may still run (sessions, spare, starting)."""
        return {t.pid for t in self._spawned if t.returncode is None}

    async def close_all(self) -> None:
        if self._evictor is not None:
            self._evictor.cancel()
        spare, self._spare, self._spare_environment = self._spare, None, None
        if spare is not None and not spare.done():
            spare.cancel()
        if self._training is not None:
            self._training.cancel()
        sessions = list(self._sessions.values())
        self._sessions.clear()
        await asyncio.gather(*(self._close_session(s, reason="closed") for s in sessions), return_exceptions=True)
        if spare is not None and spare.done() and not spare.cancelled() and spare.exception() is None:
            await self._stop_and_untrack(spare.result())
        # Whatever is left (a launch cut short) goes the hard way.
        self.kill_all_now()
        self._resolve_pool.shutdown(wait=False, cancel_futures=True)

    def kill_all_now(self) -> None:
        """Stops every worker without an event loop (signal handlers, interpreter exit)."""
        live = [t for t in self._spawned if t.returncode is None]
        stop_processes_now([t.process for t in live if t.process is not None])
        for transport in live:
            if transport.process is None:
                transport.send_signal("kill")
        self._spawned.clear()

    async def _evict_idle_forever(self) -> None:
        while True:
            await asyncio.sleep(EVICTION_POLL_SECONDS)
            now = time.monotonic()
            for session in list(self._sessions.values()):
                idle = now - session.last_used
                worker = session.worker
                if worker is not None and not session.lock.locked() and idle > self.limits.idle_timeout_seconds:
                    self._sessions.pop(session.session_id, None)
                    await self._evict(session, f"after {idle:.0f} s idle (--idle-timeout {self.limits.idle_timeout_seconds:g})")

    async def _evict(self, session: _Session, why: str) -> None:
        self._evicted[session.session_id] = (
            f"[session {session.session_id!r} was closed {why}; state from its {session.snippets_run} earlier "
            "snippet(s) is gone]"
        )
        await self._close_session(session, reason="evicted")


def _check_code(code: str) -> None:
    if not code.strip():
        raise GradleReplError("code is empty; pass the Kotlin snippet to run")
    try:
        size = len(code.encode("utf-8"))
    except UnicodeEncodeError as error:
        raise GradleReplError(f"code is not valid Unicode text (at character {error.start}); send UTF-8 text") from None
    if size > MAX_CODE_BYTES:
        raise GradleReplError(f"code is {size} bytes; snippets are limited to {MAX_CODE_BYTES} bytes")
