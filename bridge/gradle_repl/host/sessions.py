"""A session's record and the table of them: what a session holds besides its worker, and how it is listed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from gradle_repl.environment import BuildToolName, SessionSpec
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.host.replay import ReplayPolicy
from gradle_repl.host.spawned import SpawnedWorkers

__all__ = ["Session", "SessionInfo", "SessionTable"]


class SessionInfo(BaseModel):
    session_id: str
    state: Literal["starting", "idle", "running"]
    project_root: str
    project_path: str
    source_set: str
    build_tool: BuildToolName | None = Field(description="the build tool that resolved it; None: attached, no project")
    kotlin_version: str
    java_home: str
    java_version: str | None
    snippets_run: int
    uptime_seconds: float
    idle_seconds: float
    worker_pid: int | None
    worker_rss_bytes: int | None
    declarations: int = Field(
        default=0, description="names the session's snippets declared (describe_kotlin_session lists them)"
    )
    attached_pid: int | None = Field(
        default=None, description="the running JVM the session's snippets run in, when it is attached to one by pid"
    )
    attached_address: str | None = Field(
        default=None, description="the agent the session's snippets run behind, when it is attached over TCP"
    )


@dataclass(eq=False)
class Session:
    session_id: str
    # What the session's worker runs (its environment, options and placement), while it has one.
    spec: SessionSpec | None = None
    worker: WorkerHandle | None = None
    # Calls on one session run one at a time; held while one runs, so "locked" reads as "running".
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    snippets_run: int = 0
    declarations: int = 0
    last_used: float = field(default_factory=time.monotonic)
    starting: SessionSpec | None = None
    closed: bool = False
    # The code of each snippet that succeeded, in order, for a replay (host/replay.py); kept across a restart the
    # project forced, cleared by a plain reset.
    history: list[str] = field(default_factory=list)
    # The JUnit unique ids of the tests known to fail (failed, not seen passing since), which a failed-only run runs
    # again: the session's, not its JVM's, so a restart the fixing edit forces keeps them (gradlerepl.junit.KnownFailures).
    known_failing: list[str] = field(default_factory=list)
    # Whether a restart a project change forced replays the history by itself (host/replay.py).
    replay: ReplayPolicy = "never"
    # The spec of the session's last JVM, kept when the JVM ends (a crash, a reset): what a replay starts again.
    last_spec: SessionSpec | None = None
    # A session attached to a running JVM: the environment read from that JVM and its placement (Attached), given once
    # by SessionManager.attach and standing for a resolve until the session closes or is evicted, with the session.
    attached: SessionSpec | None = None
    # A worker of its own JVM started for this session's current call: the spare and the class-data trainer for its
    # spec start once that call is answered (SessionManager._start_background).
    background_due: SessionSpec | None = None

    @property
    def attached_pid(self) -> int | None:
        """The running JVM the session's snippets run in, when it is attached to one."""
        return self.attached.attached_pid if self.attached is not None else None

    @property
    def holds_jvm(self) -> bool:
        """Its JVM is starting or running: it counts against the session cap."""
        return self.starting is not None or (self.worker is not None and self.worker.alive)

    def forget_worker(self, worker: WorkerHandle) -> None:
        """That worker no longer serves the session: what it held is no longer counted."""
        if self.worker is worker:
            self.worker, self.spec = None, None
            self.snippets_run = self.declarations = 0

    async def close(self, workers: SpawnedWorkers, *, reason: str) -> None:
        """Marks the session closed (a call waiting for it is told) and stops its worker."""
        self.closed = True
        worker = self.worker
        if worker is not None:
            self.forget_worker(worker)
            await workers.stop(worker, reason=reason)

    def info(self, now: float) -> SessionInfo | None:
        """How list_kotlin_sessions shows the session; None while it has neither a JVM nor one starting."""
        worker = self.worker if self.worker is not None and self.worker.alive else None
        spec = self.spec if worker is not None else self.starting
        if spec is None:
            return None
        env = spec.environment
        state: Literal["starting", "idle", "running"] = (
            "starting" if worker is None else "running" if self.lock.locked() else "idle"
        )
        return SessionInfo(
            session_id=self.session_id,
            state=state,
            project_root=env.project_root,
            project_path=env.project_path,
            source_set=env.source_set,
            build_tool=env.build_tool,
            kotlin_version=env.kotlin_version,
            java_home=env.java_home,
            java_version=worker.ready.java_version if worker else None,
            snippets_run=self.snippets_run,
            uptime_seconds=round(now - worker.started, 1) if worker else 0.0,
            idle_seconds=round(now - self.last_used, 1),
            worker_pid=worker.pid if worker else None,
            worker_rss_bytes=worker.rss_bytes() if worker else None,
            declarations=self.declarations if worker else 0,
            attached_pid=self.attached_pid,
            attached_address=self.attached.attached_address if self.attached is not None else None,
        )


class SessionTable:
    """The sessions by id, in the order they were opened."""

    def __init__(self) -> None:
        self._by_id: dict[str, Session] = {}

    def get(self, session_id: str) -> Session | None:
        return self._by_id.get(session_id)

    def open(self, session_id: str) -> Session:
        """The session of that id, new and empty when there is none."""
        session = self._by_id.get(session_id)
        if session is None:
            session = self._by_id[session_id] = Session(session_id)
        return session

    def remove(self, session_id: str) -> Session | None:
        return self._by_id.pop(session_id, None)

    def remove_all(self) -> list[Session]:
        sessions = list(self._by_id.values())
        self._by_id.clear()
        return sessions

    def __iter__(self) -> Iterator[Session]:
        # A copy: callers close and remove sessions while they walk the table.
        return iter(list(self._by_id.values()))

    def ids(self) -> list[str]:
        return list(self._by_id)

    def infos(self) -> list[SessionInfo]:
        now = time.monotonic()
        return [info for session in self for info in [session.info(now)] if info is not None]
