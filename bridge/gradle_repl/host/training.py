"""Class-data training: once per JDK and compiler, a background worker writes the archive later workers start from.

Without the archive workers only start slower (worker/artifacts/classdata.py), so a training that fails is logged,
never reported to a session.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from gradle_repl.environment import ReplEnvironment, SessionSpec
from gradle_repl.host.spawned import SpawnedWorkers
from gradle_repl.worker.artifacts import classdata

__all__ = ["ClassDataTraining", "CLASS_DATA_WRITE_SECONDS"]

# A training worker compiles a few snippets and then writes the archive (~100 MB); far less than this.
CLASS_DATA_WRITE_SECONDS = 180.0

_log = logging.getLogger(__name__)


class ClassDataTraining:
    def __init__(self, workers: SpawnedWorkers, *, enabled: bool) -> None:
        self._workers = workers
        self._enabled = enabled
        # The training running or last run; one at a time.
        self.task: asyncio.Task[None] | None = None

    def start_if_missing(self, environment: ReplEnvironment) -> None:
        """Starts a trainer when this environment's archive is missing and no other process trains it."""
        if not (self._enabled and self._workers.options.class_data_sharing) or (
            self.task is not None and not self.task.done()
        ):
            return
        archive = classdata.archive_path(environment.java_home, environment.repl_host_classpath)
        if archive is None or not classdata.needs_training(archive) or not classdata.claim_training(archive):
            return
        self.task = asyncio.create_task(self._run(environment, archive))

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()

    async def _run(self, environment: ReplEnvironment, archive: Path) -> None:
        try:
            worker = await self._workers.launch(
                SessionSpec(environment=environment), label="class-data", role="class-data"
            )
            try:
                code = await asyncio.wait_for(worker.transport.wait(), CLASS_DATA_WRITE_SECONDS)
                if code != 0:
                    _log.warning(
                        "writing the class-data archive failed (exit %s); log: %s", code, worker.transport.log_path
                    )
            finally:
                await self._workers.stop(worker)
        except Exception as error:  # noqa: BLE001 - without an archive workers only start slower
            _log.warning("class-data training failed: %s", error)
        finally:
            classdata.release_training(archive)
