"""Sessions as callers see them: run a snippet, check or complete code, describe, reset, close, list.

The manager never talks to a process itself: workers come from a launcher (the seam tests fake) and are
driven through WorkerHandle. Calls on one session run one at a time; different sessions and environment
resolution proceed in parallel. The policy around sessions lives in classes of its own, each named for its
job: the table of sessions (sessions.py), the cap and idle eviction (eviction.py), the spare worker
(spare.py), class-data training (training.py) and the tracking of every worker spawned (spawned.py), so
close, eviction, cancellation and server exit can't leak one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from gradle_repl.environment import (
    Attached,
    AttachedOverTcp,
    BuildToolChoice,
    OwnJvm,
    ReplEnvironment,
    ReplJarsReady,
    SessionSpec,
)
from gradle_repl.errors import GradleReplError
from gradle_repl.frames import (
    CompileRequest,
    CompileResult,
    ErrorResult,
    Probe,
    ProbesResult,
    SessionDescription,
    TestRunResult,
    WorkerOptions,
)
from gradle_repl.host.eviction import SessionEviction
from gradle_repl.host.handle import (
    COMPILE_TIMEOUT_SECONDS,
    Analysis,
    OnFrame,
    OnTestProgress,
    ProbeReply,
    Reply,
    TestReply,
    WorkerHandle,
)
from gradle_repl.host.hotswap import lost_names, restart_notice, restart_reason, update_in_place
from gradle_repl.host.launcher import SubprocessLauncher, WorkerLauncher
from gradle_repl.host.libraries import library_annotations, replay_snippet
from gradle_repl.host.limits import SessionLimits, worker_options as default_worker_options
from gradle_repl.host.notices import Notice
from gradle_repl.host.preparation import WorkerPreparation
from gradle_repl.host.replay import ReplayPolicy, replay
from gradle_repl.host.session_env import login_shell_environment
from gradle_repl.host.sessions import Session, SessionInfo, SessionTable
from gradle_repl.host.spare import SpareWorker
from gradle_repl.host.spawned import SpawnedWorkers
from gradle_repl.host.training import ClassDataTraining
from gradle_repl.options import SessionOptions
from gradle_repl.settings import Settings
from gradle_repl.target import SessionTarget

__all__ = [
    "SessionManager",
    "SessionInfo",
    "SessionLimits",
    "MAX_CODE_BYTES",
    "Resolver",
    "BuildToolChoice",
    "Progress",
]

_log = logging.getLogger(__name__)

# Larger snippets are almost certainly a mistake (a pasted file or binary); the compiler would
# spend minutes on them.
MAX_CODE_BYTES = 1_000_000
# Resolves wait on builds for minutes; they get threads of their own so they never starve the
# event loop's default pool (and each other across projects).
RESOLVE_THREADS = 16
# How often a read of probe hits that waits looks again: a hit is seen within this, and a look costs the worker ~1 ms.
PROBE_POLL_SECONDS = 0.1

Progress = Callable[[str], None]


class _Resolved(Protocol):
    """What a resolver hands back (project/resolve.py's Resolved, a frozen dataclass: read-only members)."""

    @property
    def environment(self) -> ReplEnvironment: ...
    @property
    def notices(self) -> tuple[str, ...]: ...  # one line per build tool that could not run before the one used
    def origin(self) -> str: ...  # "from cache" or how long resolving took


@dataclass(frozen=True)
class _ReadFromTheJvm:
    """An attached session's environment, which stands for a resolve."""

    environment: ReplEnvironment
    notices: tuple[str, ...] = ()

    def origin(self) -> str:
        return "read from the running JVM"


# A live session's compile of an edit, called on the resolve's thread (project/recompile.py's SessionCompile).
SessionCompile = Callable[[CompileRequest], CompileResult | None]


class Resolver(Protocol):
    def __call__(
        self,
        project_root: str,
        *,
        project_path: str,
        source_set: str,
        build_tool: BuildToolChoice,
        refresh: bool = False,
        on_progress: Progress | None,
        compile_in_session: SessionCompile | None = None,
        on_repl_jars: ReplJarsReady | None = None,
    ) -> _Resolved: ...


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
        # The run each TCP address's agent named when a session last attached there: an attach again says whether the
        # app is the same run or restarted (AgentHello.run).
        self.app_runs: dict[str, str] = {}
        self.worker_options = worker_options or default_worker_options()
        # The project side, passed in by the front end: the host never imports it.
        self._resolver = resolver
        self._workers = SpawnedWorkers(launcher or SubprocessLauncher(), self.worker_options)
        self._sessions = SessionTable()
        self._eviction = SessionEviction(self._sessions, self._workers, self.limits)
        self._spare = SpareWorker(self._workers, enabled=self.limits.spare_worker)
        self._training = ClassDataTraining(self._workers, enabled=self.limits.train_class_data)
        self._preparation = WorkerPreparation(self._workers)
        self._resolve_pool = ThreadPoolExecutor(RESOLVE_THREADS, thread_name_prefix="resolve")
        # Set by close_all: a call it ends starts no spare or trainer after it.
        self._closing = False

    @classmethod
    def from_settings(
        cls, settings: Settings, *, resolver: Resolver, launcher: WorkerLauncher | None = None
    ) -> SessionManager:
        """A manager whose limits and worker options are the settings'."""
        return cls(
            limits=SessionLimits.from_settings(settings),
            worker_options=default_worker_options(settings),
            launcher=launcher,
            resolver=resolver,
        )

    def start_eviction(self) -> None:
        """Starts closing sessions idle past the idle timeout (in the running event loop)."""
        self._eviction.start_idle_watch()

    async def resolve(
        self,
        project_root: str,
        *,
        project_path: str,
        source_set: str,
        build_tool: BuildToolChoice,
        progress: Progress | None,
        refresh: bool = False,
        compile_in_session: SessionCompile | None = None,
    ) -> _Resolved:
        """The project's environment, resolved on a thread of the manager's own (builds take minutes)."""
        # Given only when a session can compile: resolvers that never see one (tests' fakes) needn't take it.
        extra = {"compile_in_session": compile_in_session} if compile_in_session is not None else {}
        # A first build that fetches the REPL's jars beside it hands them over here: the facade compiles meanwhile.
        repl_jars_ready = self._preparation.beside_build(progress)

        def call() -> _Resolved:
            return self._resolver(
                project_root,
                project_path=project_path,
                source_set=source_set,
                build_tool=build_tool,
                refresh=refresh,
                on_progress=progress,
                on_repl_jars=repl_jars_ready,
                **extra,
            )

        return await asyncio.get_running_loop().run_in_executor(self._resolve_pool, call)

    async def run_snippet(
        self,
        target: SessionTarget,
        *,
        code: str,
        timeout_seconds: float | None = None,
        progress: Progress | None = None,
        on_frame: OnFrame | None = None,
        options: SessionOptions | None = None,
        replay: ReplayPolicy | None = None,
        probes: Sequence[Probe] = (),
    ) -> Reply:
        """Runs code in the target's session. `options` apply from a session's first call; on a later call the same ones change
        nothing, other ones restart the session (and say so), and none keep the session's. `replay`, when given,
        becomes the session's policy for restarts a project change forces (it never restarts the session itself)."""
        _check_code(code)
        if replay is not None:
            self._session(target.session_id).replay = replay
        async with self._entered(target, progress, options) as (session, worker, notices):
            timeout = timeout_seconds if timeout_seconds is not None else self.limits.default_timeout_seconds
            reply = await worker.request(
                code, timeout_seconds=timeout, on_frame=on_frame, notices=notices, probes=probes
            )
            session.last_used = time.monotonic()
            if reply.state_lost:
                self._forget_worker(session, worker)
            else:
                session.snippets_run += 1
                if reply.result.type == "success":
                    session.history.append(code)
                if reply.result.declared is not None:
                    session.declarations = reply.result.declared
            return reply

    async def run_tests(
        self,
        target: SessionTarget,
        *,
        selectors: list[str] | None = None,
        failed_only: bool = False,
        timeout_seconds: float | None = None,
        progress: Progress | None = None,
        on_test: OnTestProgress | None = None,
        probes: Sequence[Probe] = (),
        explain_failures: bool = False,
    ) -> TestReply:
        """Runs the project's tests in the target's session (a session of a test source set: the one snippets reach
        with that source set and session id). An edit since the session's last call takes the session's edit path
        first, as a snippet's call does: in place when it can, a restart with the reason when it can't."""
        async with self._entered(target, progress) as (session, worker, notices):
            timeout = timeout_seconds if timeout_seconds is not None else self.limits.default_timeout_seconds
            reply = await worker.run_tests(
                selectors or [],
                failed_only=failed_only,
                known_failing=session.known_failing,
                timeout_seconds=timeout,
                on_progress=on_test,
                notices=notices,
                probes=probes,
                explain_failures=explain_failures,
            )
            session.last_used = time.monotonic()
            if isinstance(reply.result, TestRunResult):
                session.known_failing = reply.result.known_failing
            if reply.state_lost:
                self._forget_worker(session, worker)
            return reply

    async def check_snippet(self, target: SessionTarget, *, code: str, progress: Progress | None = None) -> Analysis:
        """The diagnostics of `code` compiled in the session's state, and its value's type; nothing runs and the
        session is left as it was. Starts the session the way run_snippet does."""
        _check_code(code)
        async with self._analysing(target, progress) as (session, worker, notices):
            return self._answered(
                session,
                worker,
                await worker.check(code, timeout_seconds=self.limits.default_timeout_seconds, notices=notices),
            )

    async def complete_snippet(
        self, target: SessionTarget, *, code: str, cursor: int | None = None, progress: Progress | None = None
    ) -> Analysis:
        """What may be written at `cursor` (a character offset into `code`; default its end) in the session's state."""
        at = len(code) if cursor is None else cursor
        if not 0 <= at <= len(code):
            raise GradleReplError(f"cursor {at} is outside the code (0 to {len(code)} characters)")
        _check_size(code)
        async with self._analysing(target, progress) as (session, worker, notices):
            return self._answered(
                session,
                worker,
                await worker.complete(code, at, timeout_seconds=self.limits.default_timeout_seconds, notices=notices),
            )

    def _answered(self, session: Session, worker: WorkerHandle, analysis: Analysis) -> Analysis:
        session.last_used = time.monotonic()
        if isinstance(analysis.result, ErrorResult) and analysis.result.state_lost:
            self._forget_worker(session, worker)
        return analysis

    @asynccontextmanager
    async def _analysing(
        self, target: SessionTarget, progress: Progress | None
    ) -> AsyncIterator[tuple[Session, WorkerHandle, list[Notice]]]:
        """A check's or a completion's session and worker: the live worker as it is, never resolved again nor
        restarted (an analysis must not cost the session its state, whatever changed in the build since it
        started); only a session without a live worker is started, as run_snippet starts it."""
        session = self._sessions.get(target.session_id)
        if session is not None:
            async with session.lock:
                worker = session.worker
                if worker is not None:
                    await worker.settled()
                if worker is not None and worker.alive and not session.closed:
                    yield session, worker, self._enter(session, None)
                    return
        async with self._entered(target, progress) as entered:
            yield entered

    @asynccontextmanager
    async def _entered(
        self,
        target: SessionTarget,
        progress: Progress | None,
        options: SessionOptions | None = None,
        *,
        warm_up: bool = False,
    ) -> AsyncIterator[tuple[Session, WorkerHandle, list[Notice]]]:
        """The project resolved, the session's lock held and its worker up (with the options given, else the
        session's own): the session, its worker and the notices owed to the caller."""
        if options is not None:
            options.check_heap(self.worker_options.heap_mb)
        await _prepare(options)
        # An attached session's environment is the target JVM's, given once (Session.attached): never resolved again.
        attached = self._attached_spec(target.session_id)
        resolved = (
            _ReadFromTheJvm(attached.environment)
            if attached is not None
            else await self.resolve(
                target.project_root,
                project_path=target.project_path,
                source_set=target.source_set,
                build_tool=self._session_build_tool(target),
                progress=progress,
                compile_in_session=self._session_compile(target),
            )
        )
        session = self._session(target.session_id)
        async with session.lock:
            notices = self._enter(session, resolved)
            spec = SessionSpec(
                environment=resolved.environment,
                options=_options_for(session, options),
                placement=attached.placement if attached is not None else OwnJvm(),
            )
            try:
                worker = await self._worker_for(session, spec, notices, progress, warm_up=warm_up)
                yield session, worker, notices
            finally:
                self._start_background(session)

    def _start_background(self, session: Session) -> None:
        """The spare and the class-data trainer a start of this session's worker left due (_start_worker); none once
        the session or the manager is closing. Never raises: it runs after the call's own answer."""
        due, session.background_due = session.background_due, None
        if due is None or session.closed or self._closing:
            return
        self._spare.refill(due.plain())
        try:
            self._training.start_if_missing(due.environment)
        except OSError as error:  # the archive's directory: the next session's start tries again
            _log.warning("the class-data trainer could not start: %s", error)

    async def open_session(
        self, target: SessionTarget, *, progress: Progress | None = None, options: SessionOptions | None = None
    ) -> tuple[Notice, ...]:
        """Resolves the project and starts the session's JVM before its first snippet; returns what the user must know.
        Nothing waits on that JVM yet, so it compiles the warm-up snippet before it is ready, as a spare does."""
        async with self._entered(target, progress, options, warm_up=True) as (_, _, notices):
            return tuple(notices)

    async def attach(
        self,
        session_id: str,
        environment: ReplEnvironment,
        placement: Attached | AttachedOverTcp,
        *,
        progress: Progress | None = None,
    ) -> tuple[Notice, ...]:
        """Runs the session in the running JVM `placement` names from now on (its pid here, or its agent's address), with
        the environment read from it; a session of that id is closed first (its state, wherever it lived, is released).
        Its later calls ignore the project they name."""
        await self.close(session_id)
        self._session(session_id).attached = SessionSpec(environment=environment, placement=placement)
        try:
            async with self._entered(SessionTarget.of(environment, session_id), progress) as (_, _, notices):
                return tuple(notices)
        except BaseException:
            await self.close(session_id)
            raise

    def attached_environment(self, session_id: str) -> ReplEnvironment | None:
        """The environment of a session attached to a running JVM, as attach read it from that JVM; None for a session
        of its own JVM, and for one closed or evicted."""
        attached = self._attached_spec(session_id)
        return attached.environment if attached is not None else None

    def _attached_spec(self, session_id: str) -> SessionSpec | None:
        session = self._sessions.get(session_id)
        return session.attached if session is not None else None

    def attached_pid(self, session_id: str) -> int | None:
        """The running JVM the session is attached to by its pid, if it is."""
        session = self._sessions.get(session_id)
        return session.attached_pid if session is not None else None

    def attached_address(self, session_id: str) -> str | None:
        """The address of the agent the session is attached to over TCP, if it is."""
        attached = self._attached_spec(session_id)
        return attached.attached_address if attached is not None else None

    def session_options(self, session_id: str) -> SessionOptions | None:
        """The options a live session runs with."""
        session = self._sessions.get(session_id)
        return session.spec.options if session is not None and session.spec is not None else None

    def _session_compile(self, target: SessionTarget) -> SessionCompile | None:
        """The session's own compile of an edit of its source set, when its worker is up on that source set
        and idle; else None (the build tool compiles)."""
        session = self._sessions.get(target.session_id)
        worker = session.worker if session is not None else None
        environment = session.spec.environment if session is not None and session.spec is not None else None
        if (
            worker is None
            or not worker.alive
            or environment is None
            or environment.edit_sources is None
            or session is None
        ):
            return None
        if session.lock.locked() or session.attached is not None:
            return None  # a snippet runs: the build tool compiles rather than the edit waiting for it
        same = Path(environment.project_root) == Path(target.project_root).expanduser().resolve() and (
            environment.project_path,
            environment.source_set,
        ) == (target.project_path, target.source_set)
        if not same:
            return None
        loop = asyncio.get_running_loop()

        def compile_in_session(request: CompileRequest) -> CompileResult | None:
            try:
                result = asyncio.run_coroutine_threadsafe(worker.compile_edits(request), loop).result(
                    COMPILE_TIMEOUT_SECONDS
                )
            except Exception:  # noqa: BLE001 - a worker that stopped or timed out: the build tool compiles
                return None
            if isinstance(result, ErrorResult):
                return CompileResult(
                    fall_back=f"the session's compile failed ({(result.message.strip().splitlines() or ['no reason'])[0]})"
                )
            return result

        return compile_in_session

    def _session(self, session_id: str) -> Session:
        return self._sessions.open(session_id)

    def _enter(self, session: Session, resolved: _Resolved | None) -> list[Notice]:
        """With the session's lock held: marks it used and takes the notices owed to it."""
        if session.closed:
            raise GradleReplError(f"session {session.session_id!r} was closed while this call waited for it")
        session.last_used = time.monotonic()
        evicted = self._eviction.take_notice(session.session_id)
        notices = [Notice(kind="evicted", text=evicted)] if evicted is not None else []
        # Said once, on the call where it happened: which build tool could not run and what was used.
        return notices + [
            Notice(kind="build_tool", text=text) for text in (resolved.notices if resolved is not None else ())
        ]

    def _session_build_tool(self, target: SessionTarget) -> BuildToolChoice:
        """`auto` on a session already running this project keeps the session's build tool."""
        session = self._sessions.get(target.session_id)
        environment = session.spec.environment if session is not None and session.spec is not None else None
        if target.build_tool != "auto" or environment is None or environment.build_tool is None:
            return target.build_tool
        same_project = Path(environment.project_root) == Path(target.project_root).expanduser().resolve()
        return environment.build_tool if same_project else target.build_tool

    async def _worker_for(
        self,
        session: Session,
        spec: SessionSpec,
        notices: list[Notice],
        progress: Progress | None,
        *,
        warm_up: bool = False,
    ) -> WorkerHandle:
        """The session's worker for this spec: its current one, or a new one (saying why)."""
        worker = session.worker
        if worker is not None:
            # A cancelled call's snippet may still be finishing (or killing the worker): wait for it.
            await worker.settled()
        if worker is not None and worker.alive and session.spec == spec:
            return worker
        libraries: list[str] = []
        replaying = False
        if worker is not None:
            if worker.lost_notice:
                notices.append(Notice(kind="state_lost", text=worker.lost_notice))
            elif session.spec is not None and session.spec.with_options(spec.options) == spec:
                notices.append(
                    Notice(
                        kind="options",
                        text=(
                            f"[session {session.session_id!r} restarted with new session options ({spec.options.summary()}); "
                            f"state from its {session.snippets_run} earlier snippet(s) is gone]"
                        ),
                    )
                )
                # Added libraries are the session's, like its options: the new JVM gets them again.
                libraries = library_annotations(worker.libraries)
            elif session.spec is not None and session.spec != spec:
                # Only the classes can differ: the JVM may take them in place (host/hotswap.py), keeping the state.
                why = restart_reason(session.spec.environment, spec.environment)
                if (
                    why is None
                    and worker.alive
                    and (why := await update_in_place(worker, session.session_id, notices)) is None
                ):
                    session.spec = spec
                    return worker
                reason = why or "its JVM had stopped"
                notices.append(
                    restart_notice(session.session_id, reason, session.snippets_run, await lost_names(worker))
                )
                replaying = session.replay == "on_restart" and bool(session.history)
                # What the old worker reported it added, replayed in the new one.
                libraries = library_annotations(worker.libraries)
                if progress:
                    progress("the session's environment changed; restarting its worker")
            self._forget_worker(session, worker)
            await worker.stop()
        # What the build's environment can't give snippets is said once per JVM, where the agent reads it.
        notices.extend(Notice(kind="environment", text=f"[{warning}]") for warning in spec.environment.warnings)
        worker = await self._start_worker(session, spec, progress, warm_up=warm_up)
        if libraries:
            await self._add_libraries_again(session, worker, libraries, notices)
        if replaying:
            await self._replay(session, worker, notices)
        return worker

    async def _replay(self, session: Session, worker: WorkerHandle, notices: list[Notice]) -> None:
        ran, notice = await replay(worker, session.history, timeout_seconds=self.limits.default_timeout_seconds)
        session.history, session.snippets_run = ran, len(ran)
        notices.append(notice)

    async def _add_libraries_again(
        self, session: Session, worker: WorkerHandle, libraries: list[str], notices: list[Notice]
    ) -> None:
        reply = await worker.request(replay_snippet(libraries), timeout_seconds=self.limits.default_timeout_seconds)
        if reply.result.type == "success":
            notices.append(
                Notice(kind="libraries", text=f"[added again after the restart: {'; '.join(dict.fromkeys(libraries))}]")
            )
        else:
            why = (reply.result.message.strip().splitlines() or ["no reason given"])[0]
            notices.append(
                Notice(kind="libraries", text=f"[the libraries this session added could not be added again: {why}]")
            )

    async def _start_worker(
        self, session: Session, spec: SessionSpec, progress: Progress | None, *, warm_up: bool = False
    ) -> WorkerHandle:
        """A worker for the session: the spare when it fits, else a new one. A new one skips the warm-up snippet when a
        call waits for it (warm_up false): the call's snippet is its first compile."""
        # Room is made and this start counted in one step: two starts at once can't both see room.
        victim = self._eviction.claim_room(keep=session.session_id)
        session.starting = spec
        kotlin = spec.environment.kotlin_version
        try:
            if victim is not None:
                await self._eviction.make_room(victim)
            worker = await self._spare.take(spec)
            if worker is None:
                if progress:
                    progress(f"starting a JVM with Kotlin {kotlin} for session {session.session_id!r}")
                worker = await self._workers.launch(spec, label=session.session_id, warm_up=warm_up)
        finally:
            session.starting = None
        if session.closed:
            await worker.stop()
            raise GradleReplError(f"session {session.session_id!r} was closed while its JVM started")
        session.worker, session.spec, session.snippets_run = worker, spec, 0
        session.last_spec = spec
        # The spare and the class-data trainer are for sessions as gradle-repl starts them: without a session's options,
        # in a JVM of their own (one for an attached session would attach to the app as well). They start once the call
        # that waits for this worker is answered (_entered): its first snippet loads the compiler, and a JVM starting
        # beside it on the same cores made that answer ~0.1 s later.
        if isinstance(spec.placement, OwnJvm):
            session.background_due = spec
        if progress and worker.ready.facade_compiled:
            progress(f"compiled the jvm-worker facade for Kotlin {kotlin} (cached from now on)")
        return worker

    def _forget_worker(self, session: Session, worker: WorkerHandle) -> None:
        session.forget_worker(worker)
        if not worker.alive:
            self._workers.forget(worker)

    async def describe(self, session_id: str) -> SessionDescription:
        """The names a live session holds, newest definition winning; waits for a running snippet to finish."""
        async with self._live(session_id, "it holds nothing yet") as (session, worker):
            result = await worker.describe()
            if isinstance(result, ErrorResult):
                raise GradleReplError(f"session {session_id!r} could not be described: {result.message}")
            session.declarations = result.declared
            return result.description

    async def add_probe(
        self, target: SessionTarget, probe: Probe, *, expires_seconds: float, progress: Progress | None = None
    ) -> ProbeReply:
        """A probe in the target's session that outlives calls, the session started as a snippet's call starts it;
        the reply names its id."""
        async with self._entered(target, progress) as (session, worker, notices):
            result = await worker.add_probe(probe, expires_seconds=expires_seconds)
            session.last_used = time.monotonic()
            return ProbeReply(result, tuple(notices))

    async def read_probes(
        self, session_id: str, probe_id: int | None = None, *, wait_seconds: float = 0.0
    ) -> ProbesResult | ErrorResult:
        """The session probes' hits since the last read, as soon as one is there or `wait_seconds` have passed. The
        session's lock is held for each look only, so calls go on while a read waits."""
        deadline = time.monotonic() + wait_seconds
        while True:
            async with self._live(session_id, "its probes can't be read") as (session, worker):
                session.last_used = time.monotonic()
                result = await worker.read_probes(probe_id)
            if isinstance(result, ErrorResult) or result.hits or time.monotonic() >= deadline:
                return result
            await asyncio.sleep(min(PROBE_POLL_SECONDS, max(0.0, deadline - time.monotonic())))

    async def remove_probe(self, session_id: str, probe_id: int) -> ProbesResult | ErrorResult:
        """A session probe taken out of the code; its hits not read yet."""
        async with self._live(session_id, "it has no probes") as (session, worker):
            session.last_used = time.monotonic()
            return await worker.remove_probe(probe_id)

    @asynccontextmanager
    async def _live(self, session_id: str, what_then: str) -> AsyncIterator[tuple[Session, WorkerHandle]]:
        """A live session with its lock held, and its worker, which must be running (describe, the session probes)."""
        session = self._sessions.get(session_id)
        if session is None:
            live = ", ".join(repr(s) for s in self._sessions.ids()) or "none"
            raise GradleReplError(f"there is no session {session_id!r} (live sessions: {live})")
        async with session.lock:
            worker = session.worker
            if worker is None or not worker.alive:
                raise GradleReplError(
                    f"session {session_id!r} has no running JVM (it was reset or its state was lost): {what_then}"
                )
            yield session, worker

    async def reset(self, session_id: str) -> bool:
        """Kills the session's worker (a running snippet ends with a clear reply); the next call starts fresh."""
        session = self._sessions.get(session_id)
        if session is None or session.worker is None:
            return False
        session.history = []
        worker = session.worker
        self._forget_worker(session, worker)
        await self._workers.stop(worker, reason="reset")
        return True

    async def reset_and_replay(self, session_id: str, progress: Progress | None = None) -> tuple[Notice, ...]:
        """Restart and run all: a new JVM for the session's project (rebuilt if it changed), then the session's
        successful snippets again in order, stopping at the first that fails; the notices say how many ran."""
        session = self._sessions.get(session_id)
        spec = session.spec or session.last_spec if session is not None else None
        if session is None or spec is None:
            raise GradleReplError(f"session {session_id!r} has never run a snippet: there is nothing to replay")
        worker = session.worker
        if worker is not None:
            self._forget_worker(session, worker)  # the session's history stays: it is what runs again
            await self._workers.stop(worker, reason="reset")
        async with self._entered(SessionTarget.of(spec.environment, session_id), progress, spec.options) as (
            session,
            worker,
            notices,
        ):
            await self._replay(session, worker, notices)
            return tuple(notices)

    async def close(self, session_id: str) -> bool:
        """Closes a session at once: a running snippet is stopped and a starting JVM is stopped when it's up."""
        # Detaches an attached session with it (Session.attached): the app keeps running, the session's state there is released.
        session = self._sessions.remove(session_id)
        self._eviction.take_notice(session_id)
        if session is None:
            return False
        await session.close(self._workers, reason="closed")
        return True

    def list(self) -> list[SessionInfo]:
        return self._sessions.infos()

    def worker_pids(self) -> set[int]:
        """Every worker process this manager has spawned that may still run (sessions, spare, starting)."""
        return self._workers.pids()

    async def close_all(self) -> None:
        self._closing = True
        self._eviction.stop_idle_watch()
        spare = self._spare.cancel()
        self._training.cancel()
        self._preparation.cancel()
        sessions = self._sessions.remove_all()
        await asyncio.gather(*(s.close(self._workers, reason="closed") for s in sessions), return_exceptions=True)
        await self._spare.stop_started(spare)
        # Whatever is left (a launch cut short) goes the hard way.
        self.kill_all_now()
        self._resolve_pool.shutdown(wait=False, cancel_futures=True)

    def kill_all_now(self) -> None:
        """Stops every worker without an event loop (signal handlers, interpreter exit)."""
        self._workers.kill_all_now()


def _options_for(session: Session, given: SessionOptions | None) -> SessionOptions:
    """The options a call runs the session with: the ones given, else the session's own."""
    if given is not None:
        return given
    return session.spec.options if session.spec is not None else SessionOptions()


async def _prepare(options: SessionOptions | None) -> None:
    """Reads the login shell's variables (once per server) off the event loop, so a slow or broken profile is one
    clear error before anything starts."""
    if options is not None and options.env_source == "shell":
        await asyncio.to_thread(login_shell_environment)


def _check_code(code: str) -> None:
    if not code.strip():
        raise GradleReplError("code is empty; pass the Kotlin snippet to run")
    _check_size(code)


def _check_size(code: str) -> None:
    try:
        size = len(code.encode("utf-8"))
    except UnicodeEncodeError as error:
        raise GradleReplError(f"code is not valid Unicode text (at character {error.start}); send UTF-8 text") from None
    if size > MAX_CODE_BYTES:
        raise GradleReplError(f"code is {size} bytes; snippets are limited to {MAX_CODE_BYTES} bytes")
