"""A project's session driven synchronously, as the server drives it: a private SessionManager (no spare worker, no
class-data training, a 512 MB heap) and one target, for tests that run snippets and tests in the same session."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from pathlib import Path

from gradle_repl.frames import Probe, SuccessResult, WorkerOptions
from gradle_repl.host.handle import Reply, TestReply
from gradle_repl.host.manager import SessionLimits, SessionManager
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.target import SessionTarget

__all__ = ["ProjectSession"]


class ProjectSession:
    """The session of `root`'s source set (the test source set by default), reached by Maven."""

    def __init__(self, root: Path, *, source_set: str = "test", session_id: str = "tests") -> None:
        self.root = root
        self.loop = asyncio.new_event_loop()
        self.manager = SessionManager(
            limits=SessionLimits(spare_worker=False, train_class_data=False),
            worker_options=WorkerOptions(heap_mb=512),
            resolver=resolve_environment,
        )
        self.target = SessionTarget(str(root), source_set=source_set, build_tool="maven", session_id=session_id)
        self.progress: list[str] = []

    def tests(
        self,
        *selectors: str,
        failed_only: bool = False,
        timeout: float | None = None,
        probes: Sequence[Probe] = (),
        explain_failures: bool = False,
    ) -> TestReply:
        """run_project_tests of the selectors; the progress lines land in `progress`."""
        self.progress = []
        return self.loop.run_until_complete(
            self.manager.run_tests(
                self.target,
                selectors=list(selectors),
                failed_only=failed_only,
                timeout_seconds=timeout,
                on_test=self.progress.append,
                probes=probes,
                explain_failures=explain_failures,
            )
        )

    def snippet(self, code: str, *probes: Probe) -> Reply:
        return self.loop.run_until_complete(self.manager.run_snippet(self.target, code=code, probes=probes))

    def value(self, code: str) -> str:
        reply = self.snippet(code)
        assert isinstance(reply.result, SuccessResult) and reply.result.value is not None, reply.result
        return reply.result.value.data

    def edit(self, path: str, old: str, new: str) -> None:
        """Replaces old by new in a project file (a new file: old empty), its time moved on so the freshness check
        sees it."""
        source = self.root / path
        source.parent.mkdir(parents=True, exist_ok=True)
        text = source.read_text() if source.exists() else ""
        assert old in text, (path, old)
        source.write_text(text.replace(old, new) if old else new)
        later = time.time() + 2
        os.utime(source, (later, later))

    def close(self) -> None:
        self.loop.run_until_complete(self.manager.close_all())
        self.loop.close()
