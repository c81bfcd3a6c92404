"""Probes' requests to the agent in the attached app (worker/runner.py's AppProbeChannel): each sent with a request id
of its own and its answer waited for, whatever else arrives meanwhile (the late output of a snippet given up on) let
by, as describe's reads are."""

from __future__ import annotations

import itertools
import time
from typing import TypeVar

from gradle_repl.worker.attach.run_in_app import POLL_SECONDS
from gradle_repl.worker.deadlines import REPLY_SECONDS
from gradle_repl.worker.link.agent_wire import (
    AgentClassBytes,
    AgentConnection,
    AgentProbeHits,
    AgentProbesSet,
    AgentSites,
)
from gradle_repl.worker.results.probe_records import HitRecord, ProbeSetSpec, RunCounts
from gradle_repl.worker.runner import ProbeError

__all__ = ["ProbeChannel"]

# Ids of probes' requests, apart from the host's request ids (which number snippets and describes).
_FIRST_ID = 1 << 48
# How long the agent may take over a probe's request: retransforming the app's classes takes well under a second; a
# stopped or hung app never answers.
PROBE_REPLY_SECONDS = 30.0

_Answer = TypeVar("_Answer", AgentClassBytes, AgentSites, AgentProbesSet, AgentProbeHits)


class ProbeChannel:
    """The agent's answers to probes, over the session's connection."""

    def __init__(self, connection: AgentConnection, app: str) -> None:
        """`app` names the app in messages (AppLink.name)."""
        self._connection = connection
        self._app = app
        self._ids = itertools.count(_FIRST_ID)

    @property
    def hook_package(self) -> str:
        return f"{self._connection.hello.agent}.both"

    def class_bytes(self, names: list[str], *, nested: bool) -> list[tuple[str, int, bytes | None]]:
        request = next(self._ids)
        self._connection.class_bytes(request, names, nested=nested)
        return self._answer(request, AgentClassBytes).classes

    def reserve_sites(self, count: int) -> int:
        request = next(self._ids)
        self._connection.reserve_sites(request, count)
        return self._answer(request, AgentSites).base

    def set_probes(self, spec: ProbeSetSpec) -> str | None:
        request = next(self._ids)
        self._connection.set_probes(request, spec)
        return self._answer(request, AgentProbesSet).failure

    def collect(self, run: int, *, close: bool) -> tuple[list[HitRecord], RunCounts, list[str]]:
        request = next(self._ids)
        self._connection.collect_probes(request, run, close=close)
        answer = self._answer(request, AgentProbeHits)
        return answer.hits, answer.counts, answer.notes

    def _answer(self, request: int, kind: type[_Answer]) -> _Answer:
        deadline = time.monotonic() + PROBE_REPLY_SECONDS + REPLY_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            message = self._connection.receive(min(left, POLL_SECONDS * 10))
            if isinstance(message, kind) and message.id == request:
                return message
        raise ProbeError(
            f"{self._app} did not answer a probe's request within "
            f"{PROBE_REPLY_SECONDS + REPLY_SECONDS:g} s: is it stopped or hung?"
        )
