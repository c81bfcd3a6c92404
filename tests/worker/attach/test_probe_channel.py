"""A probe's request to the attach agent waits for its own answer (worker/attach/probe_channel.py): what else arrives
meanwhile (a snippet's late output) is let by, and an app that never answers is said in one sentence. The agent's end
here writes frames as the agent's Wire does (the wire itself is checked both ways in tests/jvm/test_agent_wire_table.py;
the whole path end to end in test_attach.py)."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator

import pytest

from gradle_repl.worker.attach import probe_channel
from gradle_repl.worker.attach.probe_channel import ProbeChannel
from gradle_repl.worker.link.agent_wire import AgentConnection, AgentHello
from gradle_repl.worker.runner import ProbeError


def _frame(body: bytes) -> bytes:
    return struct.pack(">i", len(body)) + body


def _text(value: str) -> bytes:
    data = value.encode("utf-8")
    return struct.pack(">i", len(data)) + data


@pytest.fixture
def ends() -> Iterator[tuple[ProbeChannel, socket.socket]]:
    mine, agent = socket.socketpair()
    with mine, agent:
        hello = AgentHello("gradlerepl.agent.v1a2b", "app", "17", 4242)
        yield ProbeChannel(AgentConnection(mine, hello), "the attached JVM (pid 4242)"), agent


def test_the_answer_to_a_probes_request_is_found_past_a_snippets_late_output(
    ends: tuple[ProbeChannel, socket.socket],
) -> None:
    channel, agent = ends
    first = 1 << 48  # the channel's first request id, apart from the host's
    late_output = _frame(b"O" + struct.pack(">q", 7) + struct.pack(">i", 1) + _text("late\n"))
    sites = _frame(b"A" + struct.pack(">q", first) + struct.pack(">i", 40))
    agent.sendall(late_output + sites)
    assert channel.reserve_sites(3) == 40
    assert channel.hook_package == "gradlerepl.agent.v1a2b.both"


def test_an_app_that_never_answers_a_probes_request_is_said_in_one_sentence(
    ends: tuple[ProbeChannel, socket.socket], monkeypatch: pytest.MonkeyPatch
) -> None:
    channel, _ = ends
    monkeypatch.setattr(probe_channel, "PROBE_REPLY_SECONDS", 0.0)
    monkeypatch.setattr(probe_channel, "REPLY_SECONDS", 0.2)
    with pytest.raises(
        ProbeError, match=r"^the attached JVM \(pid 4242\) did not answer a probe's request within 0\.2 s"
    ):
        channel.reserve_sites(1)
