"""The facade and its add-ons compiled beside a machine's first build, in a worker of their own (worker/prepare.py).

A machine's first Maven resolve fetches the REPL's jars while its build still runs (project/buildtools/
maven_first_run.py) and hands them over through the resolver's `on_repl_jars`. Compiled from there, the facade is
ready, or nearly, when the session's worker starts after the build: on a new machine its compile is ~15 s of a ~22 s
first start. The session's worker waits on the facade's file lock for a compile still running, never compiles it a
second time (worker/artifacts/facade.py). A preparation that fails costs nothing: the session's worker compiles what is missing,
as it would have.
"""

from __future__ import annotations

import asyncio
import logging

from gradle_repl.environment import ReplEnvironment, ReplJarsReady, SessionSpec
from gradle_repl.host.spawned import SpawnedWorkers
from gradle_repl.progress import ProgressCallback
from gradle_repl.worker.artifacts.facade_jars import jars_to_compile

__all__ = ["WorkerPreparation", "PREPARE_SECONDS"]

# A preparing worker compiles a few thousand lines of Kotlin and exits; far less than this on a loaded machine.
PREPARE_SECONDS = 300.0

_log = logging.getLogger(__name__)


class WorkerPreparation:
    def __init__(self, workers: SpawnedWorkers) -> None:
        self._workers = workers
        # One preparation per Kotlin version at a time: two first resolves at once compile its facade once.
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._closed = False

    def beside_build(self, progress: ProgressCallback | None) -> ReplJarsReady:
        """What a resolve started from this event loop calls, on the thread that fetched the REPL's jars (maybe after
        the call ended, when its build failed), once it has them."""
        loop = asyncio.get_running_loop()

        def repl_jars_ready(environment: ReplEnvironment) -> None:
            if not jars_to_compile(environment):
                return
            try:
                loop.call_soon_threadsafe(self._start, environment)
            except RuntimeError:  # the loop is closed: the server is exiting, and no session will start
                return
            if progress is not None:
                progress(
                    f"compiling the jvm-worker facade for Kotlin {environment.kotlin_version} beside the build, in a "
                    "JVM of its own (first run; cached from now on)"
                )

        return repl_jars_ready

    def _start(self, environment: ReplEnvironment) -> None:
        running = self._tasks.get(environment.kotlin_version)
        if not self._closed and (running is None or running.done()):
            self._tasks[environment.kotlin_version] = asyncio.create_task(self._run(environment))

    async def _run(self, environment: ReplEnvironment) -> None:
        try:
            # 'ready' comes at once (worker/prepare.py): the compile is bounded by PREPARE_SECONDS, not a start timeout.
            worker = await self._workers.launch(SessionSpec(environment=environment), label="prepare", role="prepare")
            try:
                code = await asyncio.wait_for(worker.transport.wait(), PREPARE_SECONDS)
                if code != 0:
                    _log.warning(
                        "compiling the facade beside the build failed (exit %s); log: %s",
                        code,
                        worker.transport.log_path,
                    )
            finally:
                await self._workers.stop(worker)
        except Exception as error:  # noqa: BLE001 - the session's worker compiles whatever this did not
            _log.warning("compiling the facade beside the build failed: %s", error)

    async def wait(self, kotlin_version: str) -> None:
        """Until a preparation for this Kotlin version has ended (at once when none runs)."""
        running = self._tasks.get(kotlin_version)
        if running is not None:
            await asyncio.shield(running)

    def cancel(self) -> None:
        """At exit: a preparation still running is cut short (its worker, tracked from spawn on, is killed later), and
        none starts after."""
        self._closed = True
        for task in self._tasks.values():
            task.cancel()
