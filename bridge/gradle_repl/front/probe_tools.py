"""The MCP tools of probes that outlive a call (registered by front/server.py beside the session tools): for code
that runs when no call does — a thread a snippet started, a server answering requests. A call's own probes are a
parameter of run_kotlin_snippet and run_project_tests (front/parameters.py's Probes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from gradle_repl.environment import BuildToolChoice
from gradle_repl.errors import GradleReplError
from gradle_repl.frames import ErrorResult, Probe, ProbesResult
from gradle_repl.front.content import error_result, text_result
from gradle_repl.front.outputs import (
    NoticeItem,
    ProbeHitItem,
    ProbeStateItem,
    SessionProbeHits,
    SnippetError,
    wire_list,
)
from gradle_repl.front.parameters import BuildToolArg, ProjectPath, SessionId, SessionProjectRoot, SourceSet
from gradle_repl.front.probe_report import probe_report
from gradle_repl.host.manager import SessionManager
from gradle_repl.host.notices import Notice
from gradle_repl.settings import (
    DEFAULT_BUILD_TOOL,
    DEFAULT_PROJECT_PATH,
    DEFAULT_SESSION_ID,
    DEFAULT_SOURCE_SET,
    DEFAULTS,
)
from gradle_repl.target import SessionTarget

__all__ = ["ProbeTools"]

# A read may wait this long for a first hit at the most: within an MCP client's patience for one call.
_WAIT_SECONDS_MAX = 300

# KotlinTools.target: the session a call's project parameters name (an attached session's, when it is one).
TargetOf = Callable[[str | None, str, str, BuildToolChoice, str], SessionTarget]


class ProbeTools:
    """Tools over the session manager for a session's probes."""

    def __init__(self, manager: SessionManager, target: TargetOf) -> None:
        self.manager = manager
        self._target = target

    async def add_kotlin_probe(
        self,
        at: Annotated[
            str,
            Field(description="Where: `Cart.kt:18`, `shop/Cart.kt:18` where names repeat, or `shop.Cart:18`."),
        ],
        when: Annotated[
            str | None, Field(description="A Kotlin Boolean expression: record only when it holds.")
        ] = None,
        capture: Annotated[list[str] | None, Field(description="Kotlin expressions recorded at each hit.")] = None,
        maxHits: Annotated[
            int, Field(description=f"Hits recorded at most, up to {DEFAULTS.probe_max_hits_cap}.")
        ] = DEFAULTS.session_probe_max_hits,
        expiresSeconds: Annotated[
            float, Field(description="The probe takes itself out after this many seconds.", gt=0, le=86_400)
        ] = DEFAULTS.session_probe_expires_seconds,
        projectRoot: SessionProjectRoot = None,
        projectPath: ProjectPath = DEFAULT_PROJECT_PATH,
        sourceSet: SourceSet = DEFAULT_SOURCE_SET,
        sessionId: SessionId = DEFAULT_SESSION_ID,
        buildTool: BuildToolArg = DEFAULT_BUILD_TOOL,
    ) -> Annotated[CallToolResult, SessionProbeHits]:
        """Set a probe that stays in the session's JVM until it is removed, reaches maxHits or expires: for code that
        runs when no call does (a request through an attached app, a thread or server a snippet started). Each time a thread reaches the start of the
        line, a hit records its locals, `this` (private state too) and the captures; no thread is stopped. Returns
        probeId; read_kotlin_probe_hits reads the hits, remove_kotlin_probe takes it out; closing or resetting the
        session removes its probes, and describe_kotlin_session lists them. A call's own probes are
        run_kotlin_snippet's `probes`. In an attached session without its project, name the class (`shop.Cart:18`)."""
        probe = Probe(at=at, when=when, capture=capture or [], max_hits=maxHits)
        target = self._target(projectRoot, projectPath, sourceSet, buildTool, sessionId)
        try:
            reply = await self.manager.add_probe(target, probe, expires_seconds=expiresSeconds)
        except GradleReplError as error:
            return _failed(str(error))
        result = reply.result
        if isinstance(result, ProbesResult) and result.probe_id is not None:
            said = (
                f"Probe {result.probe_id} set at {at} (at most {maxHits} hits, for {expiresSeconds:g} s); "
                f"read_kotlin_probe_hits with probeId {result.probe_id} reads what it records."
            )
            return _answer(result, said, reply.notices)
        return _answer(result, "", reply.notices)

    async def read_kotlin_probe_hits(
        self,
        sessionId: SessionId = DEFAULT_SESSION_ID,
        probeId: Annotated[int | None, Field(description="One probe's hits; left out, every probe's.")] = None,
        waitSeconds: Annotated[
            float,
            Field(
                description="Wait this long for a first hit when none is there yet; the answer comes as soon as one "
                "arrives.",
                ge=0,
                le=_WAIT_SECONDS_MAX,
            ),
        ] = 0,
    ) -> Annotated[CallToolResult, SessionProbeHits]:
        """Read what the session's probes recorded since the last read (each hit: at, probe (its probeId), hit,
        thread, locals, this, captured, stack), and every probe's state: probeId, at, hits, active."""
        try:
            result = await self.manager.read_probes(sessionId, probeId, wait_seconds=waitSeconds)
        except GradleReplError as error:
            return _failed(str(error))
        return _answer(result, "No hits since the last read.")

    async def remove_kotlin_probe(
        self,
        probeId: Annotated[int, Field(description="The probe add_kotlin_probe set.")],
        sessionId: SessionId = DEFAULT_SESSION_ID,
    ) -> Annotated[CallToolResult, SessionProbeHits]:
        """Take a probe out of the session's JVM: its classes run their own bytes again. Returns its hits not read
        yet."""
        try:
            result = await self.manager.remove_probe(sessionId, probeId)
        except GradleReplError as error:
            return _failed(str(error))
        return _answer(result, f"Probe {probeId} removed.")

    def annotated(self) -> list[tuple[Callable[..., Any], ToolAnnotations]]:
        return [
            # It changes the classes the session runs (for as long as the probe stays), never what they compute.
            (self.add_kotlin_probe, ToolAnnotations(destructive_hint=False, open_world_hint=False)),
            (self.read_kotlin_probe_hits, ToolAnnotations(read_only_hint=False, open_world_hint=False)),
            (
                self.remove_kotlin_probe,
                ToolAnnotations(destructive_hint=False, idempotent_hint=True, open_world_hint=False),
            ),
        ]


def _answer(result: ProbesResult | ErrorResult, head: str, notices: tuple[Notice, ...] = ()) -> CallToolResult:
    """The probes' answer as text (the head line, the hits, each probe's state) and as data."""
    told = wire_list(NoticeItem, notices)
    if isinstance(result, ErrorResult):
        error = SnippetError(kind=result.error_kind, message=result.message)
        return error_result(result.message, SessionProbeHits(ok=False, error=error, notices=told))
    data = SessionProbeHits(
        ok=True,
        probe_id=result.probe_id,
        hits=wire_list(ProbeHitItem, result.hits),
        probes=wire_list(ProbeStateItem, result.probes),
        notes=result.notes,
        notices=told,
    )
    lines = [notice.text for notice in notices]
    report = probe_report(result.hits, result.notes)
    lines += [report] if report is not None else ([head] if head else [])
    if report is not None and head and result.probe_id is not None:
        lines.insert(0, head)
    lines += [
        f"probe {state.probe_id} at {state.at}: {state.hits} hits, {'active' if state.active else 'ended'}"
        for state in result.probes
    ]
    return text_result("\n".join(lines), data)


def _failed(message: str) -> CallToolResult:
    return error_result(message, SessionProbeHits(ok=False, error=SnippetError(kind="request", message=message)))
