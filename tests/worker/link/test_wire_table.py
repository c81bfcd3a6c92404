"""The agent wire is one table (the agent's WireTable.java) that both sides are checked against: the agent's Java
writes a message of every kind it sends and the worker's decoder reads each whole; the worker writes every kind it
sends through AgentConnection and the agent's Java reads each whole. Either side drifting from the table fails here."""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess
from pathlib import Path

import pytest

from gradle_repl.resources import jvm_worker_attach_agent_sources, jvm_worker_both_sources
from gradle_repl.worker.link.agent_wire import (
    AgentClassBytes,
    AgentClassPath,
    AgentConnection,
    AgentCut,
    AgentDisplay,
    AgentError,
    AgentHello,
    AgentImageValue,
    AgentOutput,
    AgentPiece,
    AgentProbeHits,
    AgentProbesSet,
    AgentRuntime,
    AgentSites,
    AgentStopped,
    AgentUnit,
    AgentValue,
    AgentValues,
    _decode,
)
from gradle_repl.worker.link.wire_table import message_shapes
from gradle_repl.worker.results.probe_records import ProbeSetSpec, SetProbe, SetSite

pytestmark = pytest.mark.jvm

PROBE = Path(__file__).parent / "agentwire" / "WireProbe.java"
# javac and a JVM each start once: seconds, unless the machine is loaded.
JAVA_TIMEOUT_SECONDS = 120
_DECODED = {
    "H": AgentHello,
    "O": AgentOutput,
    "I": AgentDisplay,
    "L": AgentCut,
    "V": AgentValue,
    "M": AgentImageValue,
    "U": AgentUnit,
    "X": AgentError,
    "S": AgentStopped,
    "D": AgentValues,
    "R": AgentRuntime,
    "J": AgentClassPath,
    "F": AgentPiece,
    "B": AgentClassBytes,
    "A": AgentSites,
    "P": AgentProbesSet,
    "Q": AgentProbeHits,
}


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The agent's sources and the probe, compiled as they are checked in."""
    javac = shutil.which("javac")
    assert javac is not None, "the suite needs a JDK on PATH"
    classes = tmp_path_factory.mktemp("wire-probe")
    sources = [*jvm_worker_attach_agent_sources(), *jvm_worker_both_sources(), PROBE]
    subprocess.run([javac, "-nowarn", "-d", str(classes), *map(str, sources)], check=True, timeout=JAVA_TIMEOUT_SECONDS)
    return classes


def _frames(data: bytes) -> list[bytes]:
    frames = []
    while data:
        size = struct.unpack(">i", data[:4])[0]
        frames.append(data[4 : 4 + size])
        data = data[4 + size :]
    return frames


def test_every_message_the_agent_writes_is_read_whole_by_the_worker(probe: Path) -> None:
    """One message of each kind the table says the agent sends, written by the agent's Wire, decodes whole here, as
    the reply type its kind stands for."""
    written = subprocess.run(
        ["java", "-cp", str(probe), "gradlerepl.agent.WireProbe", "write"],
        capture_output=True,
        check=True,
        timeout=JAVA_TIMEOUT_SECONDS,
    )
    frames = _frames(written.stdout)
    kinds = [frame[:1].decode() for frame in frames]
    assert set(kinds) == {kind for sender, kind in message_shapes() if sender == "agent"} == set(_DECODED)
    for kind, frame in zip(kinds, frames, strict=True):
        assert isinstance(_decode(frame), _DECODED[kind]), kind


def test_every_message_the_worker_writes_is_read_whole_by_the_agent(probe: Path) -> None:
    """Each request AgentConnection makes (evaluate, keep, cancel, describe, runtime, the app's class path and its
    pieces, and probes' class bytes, site ids, set and collect) is read whole by the agent's Wire, field by field as the table has it."""
    mine, theirs = socket.socketpair()
    with mine, theirs:
        connection = AgentConnection(mine, AgentHello("", "", "", 0))
        connection.evaluate(
            1,
            output_limit=10,
            class_name="_2_repl",
            result_field=None,
            result_type=None,
            classes={"_2_repl": b"\xca\xfe"},
        )
        connection.keep(2, class_name="_3_repl", classes={"_3_repl": b"", "_3_repl$A": b"\x00"})
        connection.cancel(3, grace_seconds=1.5)
        connection.describe(
            4,
            [("_2_repl", "a", None), ("_3_repl", "b", "kotlin.time.Duration")],
            limit_chars=5,
            value_seconds=1,
            total_seconds=2,
        )
        connection.runtime(5, [("kotlin-stdlib-2.3.21.jar", b"PK\x03\x04")])
        connection.class_path(10)
        connection.piece(11, 2, 1 << 20, 1 << 20)
        connection.class_bytes(6, ["shop.Cart", "shop.Cart$Line"], nested=False)
        connection.reserve_sites(7, 3)
        site = SetSite(
            id=3, class_name="shop.Cart", method="shop.Cart.total", locals=[("n", "kotlin.Int")], code=None, door=None
        )
        coded = SetSite(id=4, class_name="shop.Cart", method="shop.Cart.add", locals=[], code=b"\xca", door=b"\xfe")
        connection.set_probes(
            8,
            ProbeSetSpec(
                run=1,
                value_limit=200,
                expires_ms=0,
                probes=[
                    SetProbe(0, 1, 18, 30, True, 2, False, [site, coded]),
                    SetProbe(1, 5, 20, 30, False, 0, True, []),
                ],
                classes=[("shop.Cart", 2, b"\xca\xfe")],
            ),
        )
        connection.collect_probes(9, 1, close=True)
        mine.shutdown(socket.SHUT_WR)
        sent = b"".join(iter(lambda: theirs.recv(1 << 16), b""))
    read = subprocess.run(
        ["java", "-cp", str(probe), "gradlerepl.agent.WireProbe", "read"],
        input=sent,
        capture_output=True,
        check=True,
        timeout=JAVA_TIMEOUT_SECONDS,
    )
    assert read.stdout.decode().strip() == "EKCDRJFBAPQ"
    assert set("EKCDRJFBAPQ") == {kind for sender, kind in message_shapes() if sender == "worker"}


def test_a_message_short_of_a_field_is_refused_on_each_side() -> None:
    """A reply missing the table's last field is refused by the worker's decoder, naming it (the agent's Wire refuses
    the same as it writes: WireTable.Check)."""
    unit_without_id = b"U"
    with pytest.raises(Exception, match=r"ends before its field id|truncated"):
        _decode(unit_without_id)
    stopped_with_more = b"S" + struct.pack(">q", 1) + struct.pack(">i", 1) + b"x" + b"extra"
    with pytest.raises(Exception, match="5 bytes more than its message S"):
        _decode(stopped_with_more)
