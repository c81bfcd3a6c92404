"""The worker's check of the attach agent's hello (worker/link/agent_wire.py AgentConnection.connect) against an agent
that can't be built any more: one from before hellos named their build. Agents of today's builds are checked end to
end in test_attach.py (another build's agent in the same app is refused)."""

from __future__ import annotations

import re
import socket
import struct
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gradle_repl.errors import GradleReplError
from gradle_repl.worker.link.agent_wire import AgentConnection


def _text(value: str) -> bytes:
    data = value.encode("utf-8")
    return struct.pack(">i", len(data)) + data


# What AttachedSession.serve sent before its hello named its build: app loader, Java version, pid.
_OLD_HELLO = (
    b"H"
    + _text("jdk.internal.loader.ClassLoaders$AppClassLoader@5a07e868")
    + _text("17.0.12")
    + struct.pack(">q", 4242)
)


@pytest.fixture
def old_agent() -> Iterator[str]:
    """A socket that answers each connection with the old hello and then waits for the worker to close it."""
    with tempfile.TemporaryDirectory(prefix="agent-") as directory:
        path = str(Path(directory) / "1.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen()

        def answer() -> None:
            connection, _ = server.accept()
            with connection:
                connection.sendall(struct.pack(">i", len(_OLD_HELLO)) + _OLD_HELLO)
                connection.recv(1)  # until the worker closes its end

        answering = threading.Thread(target=answer, daemon=True)
        answering.start()
        try:
            yield path
        finally:
            server.close()
            answering.join(timeout=30)


def test_an_agent_from_before_hellos_named_their_build_is_refused_in_one_line(old_agent: str) -> None:
    """Its hello doesn't decode as today's: the worker says so in one line, naming the socket and the build it
    expected, rather than misreading it or talking to it."""
    with pytest.raises(GradleReplError) as refused:
        AgentConnection.connect(old_agent, agent="gradlerepl.agent.v0123456789abcdef", timeout=30.0)
    message = str(refused.value)
    assert "\n" not in message
    assert re.fullmatch(
        rf"refused the attach agent on {re.escape(old_agent)}: it is an agent whose hello does not decode \(.+\), "
        r"not this gradle-repl's gradlerepl\.agent\.v0123456789abcdef; restart the application to attach to it",
        message,
    ), message
