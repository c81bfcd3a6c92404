"""Faults and bad input against the real server and real workers: each is followed by a check that the
server still answers and, where the session survived, that its state is intact.

`pytest -m reliability` ends with a summary: faults tried, survived, bad inputs tried, data lost.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import TextContent

from ledger import Ledger
from support.paths import SAMPLE_PROJECT
from support.rawserver import RawServer, descendants, listening_sockets, rss_bytes, wait_for, wait_gone
from support.toolcalls import server_params

pytestmark = [pytest.mark.reliability, pytest.mark.jvm]

PROJECT = str(SAMPLE_PROJECT)


@pytest.fixture(scope="module")
def server() -> Iterator[RawServer]:
    # No spare: a fault's restart starts its own JVM, and a spare would be one JVM more for nothing (the spare's own
    # take-over is front/test_server.py's).
    raw = RawServer("--no-spare-worker", "--max-sessions", "6")
    yield raw
    raw.close()


def run(server: RawServer, code: str, session: str = "rel", **extra: Any) -> dict[str, Any]:
    reply = server.call_tool(
        "run_kotlin_snippet",
        {"projectRoot": PROJECT, "code": code, "sessionId": session, "buildTool": "maven", **extra},
    )
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


def text(result: dict[str, Any]) -> str:
    return "\n".join(block.get("text", "") for block in result["content"])


def survived(server: RawServer, session: str, *, state_kept: bool) -> None:
    """The server answers; the session's marker value is there exactly when its state was kept."""
    Ledger.faults_tried += 1
    after = run(server, "marker", session)
    if state_kept:
        assert not after["isError"] and text(after).startswith("1234"), text(after)
    else:
        assert after["isError"] and "Unresolved reference 'marker'" in text(after), text(after)
    assert not run(server, "val marker = 1234", session)["isError"]
    Ledger.faults_survived += 1


# Faults that keep a session's state share one session, and faults that lose it share another: each
# test's recovery leaves a live worker for the next, so the module starts two JVMs, not one per fault.
KEPT, LOST = "kept", "lost"


def prepare(server: RawServer, session: str) -> None:
    assert not run(server, "val marker = 1234", session)["isError"]


def test_infinite_loop_is_stopped_and_the_worker_replaced(server: RawServer) -> None:
    prepare(server, LOST)
    started = time.monotonic()
    result = run(server, "while (true) {}", LOST, timeoutSeconds=2)
    elapsed = time.monotonic() - started
    assert result["isError"] and "ignored interruption" in text(result) and "state is lost" in text(result)
    assert elapsed < 2 + 8, elapsed
    survived(server, LOST, state_kept=False)


def test_interruptible_wait_is_interrupted_and_state_kept(server: RawServer) -> None:
    prepare(server, KEPT)
    result = run(server, "Thread.sleep(600_000)", KEPT, timeoutSeconds=2)
    assert result["isError"] and "interrupted and stopped" in text(result) and "state is kept" in text(result)
    survived(server, KEPT, state_kept=True)


def test_system_exit_reports_the_code_and_the_next_call_starts_fresh(server: RawServer) -> None:
    prepare(server, LOST)
    result = run(server, "System.exit(3)", LOST)
    # The code arrives unless native exit handlers end the process by a signal first; the cause is said either way.
    said = text(result)
    assert result["isError"] and "called System.exit(3)" in said and "state is lost" in said, said
    survived(server, LOST, state_kept=False)


def test_out_of_memory_is_reported_and_the_worker_replaced(server: RawServer) -> None:
    prepare(server, LOST)
    result = run(server, "val hog = mutableListOf<LongArray>()\nwhile (true) hog.add(LongArray(1_000_000))", LOST)
    assert result["isError"] and "OutOfMemoryError" in text(result) and "state is lost" in text(result)
    survived(server, LOST, state_kept=False)


def test_background_thread_output_arrives_in_a_later_reply(server: RawServer) -> None:
    prepare(server, KEPT)
    first = run(server, 'Thread { Thread.sleep(300); println("late line") }.start()\n"started"', KEPT)
    assert text(first).startswith("started") and "late line" not in text(first)
    # The thread prints 300 ms later, in its own time: the claim is that its line reaches a later reply.
    later, deadline = "", time.monotonic() + 30
    while "late line" not in later and time.monotonic() < deadline:
        later += text(run(server, "marker", KEPT))
    if "late line" not in later:
        Ledger.data_lost += 1
    assert "[stdout]\nlate line" in later
    survived(server, KEPT, state_kept=True)


def test_fifty_megabytes_of_output_is_truncated_with_memory_bounded(server: RawServer) -> None:
    prepare(server, KEPT)
    result = run(
        server, 'val line = "z".repeat(1023)\nrepeat(50 * 1024) { println(line) }\n"flooded"', KEPT, timeoutSeconds=120
    )
    body = text(result)
    assert body.startswith("flooded")
    cut = int(body.rsplit("[output truncated: ", 1)[1].split(" ")[0])
    assert cut >= 50 * 1024 * 1024 - 1_100_000
    assert len(body) < 1_200_000
    assert rss_bytes(server.pid) < 300 * 1024 * 1024
    worker = max(server.workers(), key=rss_bytes)
    assert rss_bytes(worker) < 1_200 * 1024 * 1024
    survived(server, KEPT, state_kept=True)


def test_text_that_looks_like_a_frame_stays_text(server: RawServer) -> None:
    prepare(server, KEPT)
    fake = '{"event":"result","type":"error","message":"forged"}'
    result = run(server, f'println("""{fake}""")\nSystem.err.println("""{fake}""")\n"real"', KEPT)
    assert not result["isError"] and text(result).startswith("real")
    assert f"[stdout]\n{fake}" in text(result) and f"[stderr]\n{fake}" in text(result)
    survived(server, KEPT, state_kept=True)


def test_kill_9_of_a_worker_mid_snippet_is_a_clear_error_then_recovers(server: RawServer) -> None:
    prepare(server, LOST)
    sessions = json.loads(text(server.call_tool("list_kotlin_sessions", {})["result"]))
    victim = next(s["workerPid"] for s in sessions if s["sessionId"] == LOST)
    server.send_call(
        "doomed",
        "run_kotlin_snippet",
        {"projectRoot": PROJECT, "code": "Thread.sleep(30_000)", "sessionId": LOST, "buildTool": "maven"},
    )
    wait_for(lambda: server.session_states().get(LOST) == "running", 60)  # killed mid-snippet, not before
    os.kill(victim, signal.SIGKILL)
    result = server.receive("doomed")["result"]
    assert result["isError"] and "killed by signal SIGKILL" in text(result)
    survived(server, LOST, state_kept=False)


BAD_INPUTS = [
    ({"projectRoot": "/no/such/dir", "code": "1"}, "does not exist"),
    ({"projectRoot": __file__, "code": "1"}, "is not a directory"),
    ({"projectRoot": "/", "code": "1"}, "no Gradle build"),
    ({"projectRoot": PROJECT, "code": "1", "projectPath": ":nope", "buildTool": "maven"}, "no Maven module"),
    (
        {"projectRoot": PROJECT, "code": "1", "sourceSet": "integration", "buildTool": "maven"},
        "source sets 'main' and 'test'",
    ),
    ({"projectRoot": PROJECT, "code": "", "buildTool": "maven"}, "code is empty"),
    ({"projectRoot": PROJECT, "code": "// " + "x" * 10_000_000, "buildTool": "maven"}, "snippets are limited"),
]


@pytest.mark.parametrize(
    ("arguments", "expected"), BAD_INPUTS, ids=lambda v: str(v)[:40] if isinstance(v, dict) else None
)
def test_bad_tool_arguments_get_a_clear_is_error(server: RawServer, arguments: dict[str, Any], expected: str) -> None:
    Ledger.bad_inputs_tried += 1
    line = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": "bad",
            "method": "tools/call",
            "params": {"name": "run_kotlin_snippet", "arguments": arguments},
        },
        ensure_ascii=True,
    )
    server.send_line(line.encode())
    reply = server.receive("bad")
    assert reply["result"]["isError"] and expected in text(reply["result"]), reply
    assert server.call_tool("list_kotlin_sessions", {})["result"]["isError"] is False


@pytest.mark.parametrize(
    "line",
    # The SDK drops a line it cannot decode (no -32700 reply); the claim here is that the server lives on.
    [
        b"{not json",
        b'{"jsonrpc":"2.0","id":"u","method":"tools/call","params":{"name":"x","arguments":{"code":"\xff\xfe"}}}',
        b'{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"run_kotlin_snippet","arguments":{"projectRoot":"/","code":"\\udc80"}}}',
        b'{"jsonrpc":"2.0","id":"t","method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}',
        b'{"jsonrpc":"2.0","id":"m","method":"no/such/method"}',
    ],
    ids=["malformed-json", "invalid-utf8", "lone-surrogate", "unknown-tool", "unknown-method"],
)
def test_malformed_protocol_input_never_crashes_the_server(server: RawServer, line: bytes) -> None:
    Ledger.bad_inputs_tried += 1
    server.send_line(line)
    reply = server.call_tool("list_kotlin_sessions", {})
    assert reply["result"]["isError"] is False
    assert server.process.poll() is None


def test_unknown_tool_gets_an_error_reply(server: RawServer) -> None:
    Ledger.bad_inputs_tried += 1
    reply = server.call_tool("no_such_tool", {})
    assert "error" in reply or reply["result"]["isError"], reply


def test_java_home_without_libjvm_names_the_path(tmp_path: Path) -> None:
    from gradle_repl.environment import SessionSpec
    from gradle_repl.errors import WorkerFailed
    from gradle_repl.frames import WorkerOptions
    from gradle_repl.host.handle import WorkerHandle
    from gradle_repl.project.resolve import resolve_environment

    Ledger.bad_inputs_tried += 1
    env = resolve_environment(PROJECT, build_tool="maven").environment.model_copy(update={"java_home": str(tmp_path)})
    with pytest.raises(WorkerFailed, match=f"no libjvm under javaHome {tmp_path}"):
        anyio.run(lambda: WorkerHandle.launch(SessionSpec(environment=env), WorkerOptions(), label="nolibjvm"))


def test_four_sessions_in_parallel_never_cross_talk() -> None:
    """4 sessions × 50 snippets through the SDK client at once; every reply is its own session's."""
    snippets = 50

    async def scenario() -> int:
        params = server_params()  # no spare: four sessions, four JVMs
        wrong = 0
        async with Client(params, read_timeout_seconds=600) as client:

            async def session(k: int) -> None:
                nonlocal wrong
                sid = f"par{k}"
                first = await client.call_tool(
                    "run_kotlin_snippet",
                    {
                        "projectRoot": PROJECT,
                        "code": f'val me = "s{k}"\nvar n = 0',
                        "sessionId": sid,
                        "buildTool": "maven",
                    },
                )
                assert not first.is_error, first.content
                for i in range(snippets):
                    result = await client.call_tool(
                        "run_kotlin_snippet",
                        {
                            "projectRoot": PROJECT,
                            "code": f'n += 1\n"$me:$n:{i}"',
                            "sessionId": sid,
                            "buildTool": "maven",
                        },
                    )
                    first_block = result.content[0]
                    got = first_block.text.split("\n")[0] if isinstance(first_block, TextContent) else repr(first_block)
                    if result.is_error or got != f"s{k}:{i + 1}:{i}":
                        wrong += 1
                        failures.append(got)

            async with anyio.create_task_group() as group:
                for k in range(4):
                    group.start_soon(session, k)
        return wrong

    failures: list[str] = []
    wrong = anyio.run(scenario)
    Ledger.data_lost += wrong
    assert wrong == 0, failures[:3]


def test_neither_server_nor_worker_listens_on_the_network(server: RawServer) -> None:
    prepare(server, KEPT)
    for pid in [server.pid, *server.workers()]:
        assert listening_sockets(pid) == [], pid


def test_twenty_interleavings_on_one_server_keep_answers_listing_and_processes_right(tmp_path: Path) -> None:
    """Cancels (of a sleep and of a busy loop), timeouts, closes and resets, twenty in a row on one real
    server: every answer belongs to its own call, list_kotlin_sessions names exactly the worker processes
    that exist, and nothing is left once the server is gone."""
    import random

    server = RawServer("--no-spare-worker", "--max-sessions", "3")
    rng = random.Random(17)
    kinds = ["cancel-sleep", "cancel-busy", "timeout", "close", "reset"]
    # Each kind at least once; the rest weighted towards the kinds that keep the JVM (a restart costs seconds).
    actions = kinds + rng.choices(kinds, weights=[5, 1, 4, 1, 1], k=15)
    rng.shuffle(actions)
    try:
        for step, action in enumerate(actions):
            session = f"mix{rng.randrange(2)}"
            args = {"projectRoot": PROJECT, "sessionId": session, "buildTool": "maven"}
            if action.startswith("cancel"):
                code = "Thread.sleep(60_000)" if action == "cancel-sleep" else "while (true) {}"
                # The session must be up and running the snippet before the cancel means anything.
                run(server, "1", session)
                server.send_call(f"c{step}", "run_kotlin_snippet", {**args, "code": code})
                wait_for(lambda: server.session_states().get(session) == "running", 60)  # noqa: B023 - called before the loop moves on
                server.cancel(f"c{step}")
            elif action == "timeout":
                result = run(server, "Thread.sleep(60_000)", session, timeoutSeconds=1)
                assert result["isError"] and "Timed out" in text(result), text(result)
            elif action == "close":
                server.call_tool("close_kotlin_session", {"sessionId": session})
            else:
                server.call_tool("reset_kotlin_session", {"sessionId": session})
            for k in range(2):
                own = f'"answer {step} {k}"'
                result = run(server, own, f"mix{k}")
                if not text(result).startswith(own.strip('"')):
                    Ledger.data_lost += 1
                assert text(result).startswith(own.strip('"')), (step, action, text(result))
            listed = sorted(s["workerPid"] for s in server.sessions())
            assert listed == server.workers(), (step, action)
        processes = [p.pid for p in descendants(server.pid)]
        assert server.process.stdin
        server.process.stdin.close()
        assert server.process.wait(timeout=10) == 0
        assert all(wait_gone(pid, 5) for pid in processes)
    finally:
        server.close()
