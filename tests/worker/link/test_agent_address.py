"""An agent's address as attach and `agent-path --listen` take it (worker/link/agent_address.py): a bare port is this
machine's loopback, an IPv6 host goes in brackets, and anything else is one sentence saying what to give; and the
TCP link's keep-alive, as the worker sets it on a socket to that address."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from gradle_repl.errors import GradleReplError
from gradle_repl.resources import jvm_worker_attach_agent_sources
from gradle_repl.worker.link.agent_address import AgentAddress
from gradle_repl.worker.link.agent_wire import _tcp_options


@pytest.mark.parametrize(
    ("given", "host", "port", "shown"),
    [
        ("5006", "127.0.0.1", 5006, "127.0.0.1:5006"),
        (" dev-box:5006 ", "dev-box", 5006, "dev-box:5006"),
        ("0.0.0.0:1", "0.0.0.0", 1, "0.0.0.0:1"),
        ("[::1]:5006", "::1", 5006, "[::1]:5006"),
    ],
)
def test_an_address_reads_as_host_and_port(given: str, host: str, port: int, shown: str) -> None:
    address = AgentAddress.parse(given)
    assert (address.host, address.port, str(address)) == (host, port, shown)


@pytest.mark.parametrize("given", ["", "host", "host:", ":5006", "::1:5006", "host:65536", "host:0", "5006x"])
def test_anything_else_is_refused_in_one_sentence(given: str) -> None:
    with pytest.raises(GradleReplError, match=r"^'.*' is not an agent's address: give HOST:PORT or PORT \(e\.g\. 5006"):
        AgentAddress.parse(given)


def test_port_0_is_an_address_to_listen_on_not_to_attach_to() -> None:
    """An agent may listen on any free port (its console names it); an attach needs the port it got."""
    assert AgentAddress.parse("0", any_port=True).port == 0
    with pytest.raises(GradleReplError):
        AgentAddress.parse("0")


def test_the_worker_keeps_a_tcp_link_alive_on_the_agents_own_timings() -> None:
    """Keep-alive here probes as the agent does there (AttachAgent.java's constants, read, not copied): a vanished
    peer is noticed on both ends alike."""
    agent = Path(next(p for p in jvm_worker_attach_agent_sources() if p.name == "AttachAgent.java")).read_text()
    expected = {
        name: int(re.search(rf"static final int {name} = (\d+);", agent).group(1))  # type: ignore[union-attr]
        for name in ("KEEPALIVE_IDLE_SECONDS", "KEEPALIVE_INTERVAL_SECONDS", "KEEPALIVE_PROBES")
    }
    with socket.socket() as sock:
        _tcp_options(sock)
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == expected["KEEPALIVE_IDLE_SECONDS"]
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL) == expected["KEEPALIVE_INTERVAL_SECONDS"]
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT) == expected["KEEPALIVE_PROBES"]
