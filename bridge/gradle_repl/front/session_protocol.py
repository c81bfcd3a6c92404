"""What a front end asks of the sessions it runs code in: a SessionManager in this process, or a server's sessions
through its tools (front/remote.py's RemoteSessions). Both answer the same calls with the same types, so the
terminal, `eval` and `check` run unchanged against either."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gradle_repl.frames import Probe, SessionDescription
from gradle_repl.host.handle import Analysis, OnFrame, OnTestProgress, Reply, TestReply
from gradle_repl.host.manager import Progress
from gradle_repl.host.notices import Notice
from gradle_repl.options import SessionOptions
from gradle_repl.target import SessionTarget

__all__ = ["CompletingSessions", "Sessions"]


class CompletingSessions(Protocol):
    """Whoever completes code in a session (Tab at the prompt asks only this)."""

    async def complete_snippet(
        self, target: SessionTarget, *, code: str, cursor: int | None = None, progress: Progress | None = None
    ) -> Analysis: ...


class Sessions(CompletingSessions, Protocol):
    """Whoever runs, checks, completes and describes code in sessions."""

    async def open_session(
        self, target: SessionTarget, *, progress: Progress | None = None, options: SessionOptions | None = None
    ) -> tuple[Notice, ...]: ...

    async def run_snippet(
        self,
        target: SessionTarget,
        *,
        code: str,
        timeout_seconds: float | None = None,
        progress: Progress | None = None,
        on_frame: OnFrame | None = None,
        options: SessionOptions | None = None,
        probes: Sequence[Probe] = (),
    ) -> Reply: ...

    async def check_snippet(
        self, target: SessionTarget, *, code: str, progress: Progress | None = None
    ) -> Analysis: ...

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
    ) -> TestReply: ...

    async def describe(self, session_id: str) -> SessionDescription: ...

    async def reset(self, session_id: str) -> bool: ...

    async def reset_and_replay(self, session_id: str) -> tuple[Notice, ...]: ...

    async def close_all(self) -> None: ...
