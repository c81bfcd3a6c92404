"""The spare worker: one started, warmed worker for the most recently used environment.

A new session on that environment takes it and starts in milliseconds instead of seconds; the spare
is then started again in the background. It costs one idle JVM (about 0.4 GB).
"""

from __future__ import annotations

import asyncio

from gradle_repl.environment import SessionSpec
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.host.spawned import SpawnedWorkers

__all__ = ["SpareWorker"]


class SpareWorker:
    def __init__(self, workers: SpawnedWorkers, *, enabled: bool) -> None:
        self._workers = workers
        self._enabled = enabled
        self._task: asyncio.Task[WorkerHandle] | None = None
        self._spec: SessionSpec | None = None

    async def take(self, spec: SessionSpec) -> WorkerHandle | None:
        """The spare when it was started for this spec (waiting for it if still starting)."""
        if self._task is None or self._spec != spec:
            return None
        spare, self._task, self._spec = self._task, None, None
        try:
            worker = await asyncio.shield(spare)
        except asyncio.CancelledError:
            spare.add_done_callback(self._workers.stop_when_started)
            raise
        except Exception:  # noqa: BLE001 - a failed spare only means starting one the normal way
            return None
        if worker.alive:
            return worker
        self._workers.forget(worker)
        return None

    def refill(self, spec: SessionSpec) -> None:
        """Starts a spare for this spec in the background, in place of one for another."""
        if not self._enabled or self._spec == spec:
            return
        self.discard()
        self._spec = spec
        self._task = asyncio.create_task(self._workers.launch(spec, label="spare"))

    def discard(self) -> None:
        spare, self._task, self._spec = self._task, None, None
        if spare is not None:
            # Runs at once for a spare that already started, else as soon as it has.
            spare.add_done_callback(self._workers.stop_when_started)

    def cancel(self) -> asyncio.Task[WorkerHandle] | None:
        """At exit: a spare still starting is cut short (the tracked process is killed later); one that has
        started is handed back for the caller to stop."""
        spare, self._task, self._spec = self._task, None, None
        if spare is not None and not spare.done():
            spare.cancel()
        return spare

    async def stop_started(self, spare: asyncio.Task[WorkerHandle] | None) -> None:
        """Stops the worker a cancelled spare had already started, if any."""
        if spare is not None and spare.done() and not spare.cancelled() and spare.exception() is None:
            await self._workers.stop(spare.result())
