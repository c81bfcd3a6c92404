"""Every worker process the host starts, tracked from the moment it exists until it is known to be gone.

Sessions, the spare and class-data training all launch through here, so close, eviction, cancellation
and server exit can't leak a worker: whatever a launch cut short left running is still here for
`kill_all_now`.
"""

from __future__ import annotations

import asyncio

from gradle_repl.environment import SessionSpec
from gradle_repl.frames import WorkerOptions
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.host.launcher import WorkerLauncher, WorkerRole, WorkerTransport
from gradle_repl.stopping import stop_processes_now

__all__ = ["SpawnedWorkers"]


class SpawnedWorkers:
    def __init__(self, launcher: WorkerLauncher, options: WorkerOptions) -> None:
        self._launcher = launcher
        self.options = options
        self._spawned: set[WorkerTransport] = set()
        # The loop keeps only weak references to tasks: a stop nobody awaits is held here until it is done.
        self._stopping: set[asyncio.Future[None]] = set()

    async def launch(
        self, spec: SessionSpec, *, label: str, role: WorkerRole = "session", warm_up: bool = True
    ) -> WorkerHandle:
        """A started worker; tracked from spawn on, so a launch cut short is still stopped at exit."""
        keep = {t.log_path for t in self._spawned if t.log_path is not None}
        return await WorkerHandle.launch(
            spec,
            self.options,
            label=label,
            launcher=self._launcher,
            keep_logs=keep,
            on_spawn=self._spawned.add,
            role=role,
            warm_up=warm_up,
        )

    def forget(self, worker: WorkerHandle) -> None:
        """No longer tracks a worker known to be gone."""
        self._spawned.discard(worker.transport)

    async def stop(self, worker: WorkerHandle, *, reason: str | None = None) -> None:
        await worker.stop(reason=reason)
        self.forget(worker)

    def stop_when_started(self, task: asyncio.Task[WorkerHandle]) -> None:
        """A done-callback for a launch nobody waits for any more: the worker it started is stopped."""
        if task.done() and not task.cancelled() and task.exception() is None:
            stopping = asyncio.ensure_future(self.stop(task.result()))
            self._stopping.add(stopping)
            stopping.add_done_callback(self._stopping.discard)

    def pids(self) -> set[int]:
        """Every tracked worker process that may still run."""
        return {t.pid for t in self._spawned if t.returncode is None}

    def kill_all_now(self) -> None:
        """Stops every worker without an event loop (signal handlers, interpreter exit)."""
        live = [t for t in self._spawned if t.returncode is None]
        stop_processes_now([t.process for t in live if t.process is not None])
        for transport in live:
            if transport.process is None:
                transport.send_signal("kill")
        self._spawned.clear()
