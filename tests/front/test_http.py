"""`gradle-repl serve --http` as clients meet it: the SDK's Streamable HTTP client, raw HTTP requests, the shell's
`--connect`, all against one real server process with real JVMs (sample-project).

Security claims each try the request a stranger would send and then look for what it would have done (a file the
snippet writes, a session it names): refused means refused with nothing run. Figures go to the suite's ledger."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.types import CallToolResult, ImageContent

from gradle_repl.front.cli import main
from gradle_repl.front.token import server_token
from gradle_repl.settings import TOKEN_ENV
from gradle_repl.worker.deadlines import STOPPED_ANSWER_SECONDS
from ledger import Ledger
from support.httpserver import HttpServer, open_call, sdk_client, tool_call
from support.paths import REPO, SAMPLE_PROJECT
from support.rawserver import descendants, wait_gone
from support.tmuxterminal import GRADLE_REPL, Terminal
from support.toolcalls import text

pytestmark = [pytest.mark.jvm, pytest.mark.reliability, pytest.mark.anyio]

PROJECT = str(SAMPLE_PROJECT)
RUN = {"projectRoot": PROJECT, "buildTool": "maven"}
# Two sessions, two JVMs, for the whole module (tests run in file order): each test declares names of its own in them,
# and a test that stops or drops a call leaves its session idle and whole for the next, or fails itself. A session of
# its own would cost each such test a JVM start (~3 CPU-s).
MAIN, OTHER = "main", "other"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    # The token given as GRADLE_REPL_TOKEN (the token file's value, so the shell's --connect finds it there too):
    # the sessions' JVMs must not see it.
    running = HttpServer(
        tmp_path_factory.mktemp("http") / "stderr",
        "--max-sessions",
        "6",
        env={**os.environ, TOKEN_ENV: server_token().value},
    )
    yield running
    running.stop()


def run_in(session_id: str, code: str, **extra: object) -> dict[str, object]:
    return {**RUN, "code": code, "sessionId": session_id, **extra}


# --- Who may speak to it ----------------------------------------------------------------------------------------


def _writes(marker: Path) -> str:
    return f'java.io.File("{marker}").writeText("ran")'


def test_requests_without_the_right_token_get_401_and_run_nothing(server: HttpServer, tmp_path: Path) -> None:
    """No token, a wrong one, another scheme, an empty one: 401 each, the body never read (the snippet that would
    write a file didn't); the same call with the token does write it, so the check would have seen it."""
    marker = tmp_path / "intruder"
    session = server.legacy_session()
    call = tool_call(5, "run_kotlin_snippet", run_in(MAIN, _writes(marker)))
    own = server.session_headers(session)
    attempts = {
        "none": {k: v for k, v in own.items() if k != "Authorization"},
        "wrong": {**own, "Authorization": f"Bearer {server.token[:-1]}x"},
        "basic": {**own, "Authorization": f"Basic {server.token}"},
        "empty": {**own, "Authorization": "Bearer"},
    }
    for name, headers in attempts.items():
        Ledger.refused_tried += 1
        reply = server.post(call, headers)
        if reply.status_code != 401:
            Ledger.refused_but_ran += 1
        assert reply.status_code == 401, (name, reply.status_code, reply.text)
        assert reply.headers["www-authenticate"].startswith("Bearer") and "gradle-repl token" in reply.text
    assert not marker.exists()
    # The server says where its token is, never the token.
    assert (
        f"bearer token from the {TOKEN_ENV} environment variable" in server.stderr()
        and server.token not in server.stderr()
    )
    own_token = server.post(call, own)
    assert own_token.status_code == 200 and marker.read_text() == "ran", own_token.text


def test_a_foreign_host_or_origin_is_refused_and_runs_nothing(server: HttpServer, tmp_path: Path) -> None:
    """DNS rebinding: bound to loopback, a request naming another host (Host: 421, the SDK's answer) or coming from a
    page of another origin (Origin: 403) is refused even with the token; a loopback origin is served."""
    marker = tmp_path / "rebound"
    session = server.legacy_session()
    call = tool_call(6, "run_kotlin_snippet", run_in(MAIN, _writes(marker)))
    for headers, status in (
        ({"Host": "evil.example:80"}, 421),
        ({"Host": f"attacker.example:{server.port}"}, 421),
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": f"http://evil.example:{server.port}"}, 403),
    ):
        Ledger.refused_tried += 1
        reply = server.post(call, server.session_headers(session, **headers))
        if reply.status_code != status:
            Ledger.refused_but_ran += 1
        assert reply.status_code == status, (headers, reply.status_code, reply.text)
    assert not marker.exists()
    listed = server.post(
        tool_call(7, "list_kotlin_sessions", {}),
        server.session_headers(session, Origin=f"http://localhost:{server.port}"),
    )
    assert listed.status_code == 200, listed.text


def test_malformed_and_oversized_bodies_get_a_clear_answer_and_the_server_lives_on(server: HttpServer) -> None:
    session = server.legacy_session()
    headers = server.session_headers(session)
    for body, status, said in (
        (b"{not json", 400, "Parse error"),
        (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"nonsense"}', 400, "Validation error"),
        (b"x" * (5 * 1024 * 1024), 413, "too large"),
    ):
        Ledger.bad_inputs_tried += 1
        reply = server.post(body, headers)
        assert reply.status_code == status and said in reply.text, (status, reply.status_code, reply.text[:200])
    assert server.process.poll() is None
    assert server.post(tool_call(8, "list_kotlin_sessions", {}), headers).status_code == 200


# --- The same tools as stdio ------------------------------------------------------------------------------------


async def test_the_sdk_client_runs_snippets_with_progress_images_and_structured_data(server: HttpServer) -> None:
    messages: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async with sdk_client(server) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        result = await client.call_tool(
            "run_kotlin_snippet",
            run_in(
                MAIN,
                'import java.awt.image.BufferedImage\nprintln("tick")\nimage(BufferedImage(2, 2, BufferedImage.TYPE_INT_RGB))\n"value"',
            ),
            progress_callback=on_progress,
        )
    assert "run_kotlin_snippet" in tools and "describe_kotlin_session" in tools
    assert not result.is_error and text(result).startswith("value\n// type: kotlin.String")
    assert any(isinstance(block, ImageContent) and block.mime_type == "image/png" for block in result.content)
    assert result.structured_content["displayCount"] == 1 and result.structured_content["stdout"] == "tick\n"
    assert any("[stdout] tick" in message for message in messages), messages


async def test_two_clients_share_a_session_by_its_id(server: HttpServer) -> None:
    """What one client declares, another (its own HTTP session) uses and sees described."""
    async with sdk_client(server) as first, sdk_client(server) as second:
        declared = await first.call_tool("run_kotlin_snippet", run_in(MAIN, "val fromFirst = 20"))
        used = await second.call_tool("run_kotlin_snippet", run_in(MAIN, "fromFirst + 22"))
        described = await second.call_tool("describe_kotlin_session", {"sessionId": MAIN})
    assert not declared.is_error, text(declared)
    assert used.structured_content["value"] == "42", text(used)
    assert "fromFirst" in [d["name"] for d in described.structured_content["declarations"]]


async def test_a_cancel_over_http_stops_the_snippet_and_keeps_the_session(server: HttpServer) -> None:
    session = MAIN
    async with sdk_client(server) as client, sdk_client(server) as watcher:
        await client.call_tool("run_kotlin_snippet", run_in(session, "val kept = 7"))
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "run_kotlin_snippet", run_in(session, "Thread.sleep(60_000)"))
            with anyio.fail_after(60):
                while (await _state(watcher, session)) != "running":
                    await anyio.sleep(0.05)
            group.cancel_scope.cancel()
        # Stopped, not waited out: the session is idle again while the 60 s snippet would still be sleeping.
        with anyio.fail_after(STOPPED_ANSWER_SECONDS + 30):
            while (await _state(watcher, session)) != "idle":
                await anyio.sleep(0.05)
        after = await client.call_tool("run_kotlin_snippet", run_in(session, "kept"))
    assert after.structured_content["value"] == "7", text(after)


async def _state(client: Client, session_id: str) -> str | None:
    listed = (await client.call_tool("list_kotlin_sessions", {})).structured_content
    assert listed is not None
    sessions = listed["sessions"]
    return next((s["state"] for s in sessions if s["sessionId"] == session_id), None)


async def test_a_client_that_goes_away_mid_snippet_has_its_snippet_cancelled_and_no_one_elses(
    server: HttpServer, tmp_path: Path
) -> None:
    """A dropped connection cancels that client's call as a cancel would (its session stops the snippet and keeps
    its state); another client's snippet, running at that moment, finishes with its own answer."""
    release = tmp_path / "release"
    DROPPED, BYSTANDER = MAIN, OTHER  # noqa: N806 (the module's two sessions, named for their part here)
    async with sdk_client(server) as other:
        await other.call_tool("run_kotlin_snippet", run_in(DROPPED, "val before = 1"))
        session = server.legacy_session()
        connection = open_call(
            server, session, tool_call(9, "run_kotlin_snippet", run_in(DROPPED, "Thread.sleep(60_000)"))
        )
        # Waits for the test's go rather than for a guessed time, so it is surely running when the other client leaves.
        waiting = f'while (!java.io.File("{release}").exists()) Thread.sleep(20)\n"other finished"'
        outcome: dict[str, CallToolResult] = {}

        async def run_other() -> None:
            outcome["other"] = await other.call_tool("run_kotlin_snippet", run_in(BYSTANDER, waiting))

        async with anyio.create_task_group() as group:
            group.start_soon(run_other)
            with anyio.fail_after(120):
                while not (
                    (await _state(other, DROPPED)) == "running" and (await _state(other, BYSTANDER)) == "running"
                ):
                    await anyio.sleep(0.05)
            Ledger.faults_tried += 1
            connection.close()
            with anyio.fail_after(STOPPED_ANSWER_SECONDS + 10):
                while (await _state(other, DROPPED)) != "idle":
                    await anyio.sleep(0.05)
            assert (await _state(other, BYSTANDER)) == "running"
            release.write_text("go")
        kept = await other.call_tool("run_kotlin_snippet", run_in(DROPPED, "before"))
    other_finished = outcome["other"].structured_content
    assert other_finished is not None and other_finished["value"] == "other finished", text(outcome["other"])
    assert kept.structured_content["value"] == "1", text(kept)
    Ledger.faults_survived += 1


async def test_four_clients_with_fifty_calls_each_get_their_own_answers(server: HttpServer) -> None:
    """4 clients × 50 calls at once, two clients per session: every answer is its own call's."""
    calls = 50
    wrong: list[str] = []

    async def one(k: int) -> None:
        async with sdk_client(server) as client:
            session = (MAIN, OTHER)[k % 2]
            await client.call_tool("run_kotlin_snippet", run_in(session, f"var n{k} = 0"))
            for i in range(calls):
                result = await client.call_tool("run_kotlin_snippet", run_in(session, f'n{k} += 1\n"{k}:$n{k}:{i}"'))
                Ledger.http_calls += 1
                got = (result.structured_content or {}).get("value")
                if result.is_error or got != f"{k}:{i + 1}:{i}":
                    Ledger.http_calls_wrong += 1
                    wrong.append(f"{k}/{i}: {got!r} {text(result)[:200]}")

    async with anyio.create_task_group() as group:
        for k in range(4):
            group.start_soon(one, k)
    assert wrong == [], wrong[:3]


def test_a_sessions_jvm_never_sees_the_servers_token(server: HttpServer) -> None:
    """The server has its token in GRADLE_REPL_TOKEN; a snippet (code the token guards against) reads nothing there
    (envSource inherit, the default; none and shell: tests/base/test_options.py)."""
    session = server.legacy_session()
    call = tool_call(11, "run_kotlin_snippet", run_in(MAIN, f'System.getenv("{TOKEN_ENV}") ?: "unset"'))
    reply = server.post(call, server.session_headers(session))
    assert reply.status_code == 200 and '"value":"unset"' in reply.text.replace(" ", ""), reply.text
    assert server.token not in reply.text


# --- The shell in a live session --------------------------------------------------------------------------------


def test_eval_connect_continues_a_session_and_sessions_lists_it(
    server: HttpServer, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """eval --connect runs in a live session whether or not it names the project (another project is refused: it
    would restart the session under its other users), a failed snippet exits 1 as eval does, --replay restarts it and
    runs its snippets again, and `sessions` lists
    the session; a session that isn't live needs the project named."""
    assert main(["eval", "--connect", server.url, "--session", OTHER, PROJECT, "-e", "val s = 40"]) == 0
    assert main(["eval", "--connect", server.url, "--session", OTHER, "-e", "s + 2"]) == 0
    assert "42   // kotlin.Int" in capsys.readouterr().out
    assert main(["eval", "--connect", server.url, "--session", OTHER, "-e", "missing"]) == 1
    assert "Unresolved reference 'missing'" in capsys.readouterr().out
    assert main(["eval", "--connect", server.url, "--session", OTHER, str(SAMPLE_PROJECT.parent), "-e", "1"]) == 2
    assert f"session '{OTHER}' runs {PROJECT}" in capsys.readouterr().err
    # Another project path, source set or build tool would restart the session too: refused alike, naming each.
    for flag, value in (("--project", ":elsewhere"), ("--source-set", "test"), ("--build-tool", "gradle")):
        assert main(["eval", "--connect", server.url, "--session", OTHER, flag, value, "-e", "1"]) == 2
        said = capsys.readouterr().err
        assert f"session '{OTHER}' runs {PROJECT} : (main, maven), not {flag} {value}" in said, said
    # The session's own, however written (a link to the project, the flags' values it runs with), joins it.
    link = tmp_path / "linked-project"
    link.symlink_to(SAMPLE_PROJECT)
    assert (
        main(
            [
                "eval",
                "--connect",
                server.url,
                "--session",
                OTHER,
                str(link),
                "--source-set",
                "main",
                "--build-tool",
                "maven",
                "-e",
                "s + 1",
            ]
        )
        == 0
    )
    assert "41" in capsys.readouterr().out
    # --replay: the server's session restarts and its successful snippets run again; the value declared is back.
    assert main(["eval", "--connect", server.url, "--session", OTHER, "--replay", "-e", "s"]) == 0
    replayed = capsys.readouterr().out
    assert re.search(r"\[replayed (\d+) of \1 earlier snippet\(s\)\]", replayed) and "40   // kotlin.Int" in replayed, (
        replayed
    )
    assert main(["sessions", "--connect", server.url]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(f"{OTHER}\t"))
    assert PROJECT in line and "idle" in line, line
    assert main(["eval", "--connect", server.url, "--session", "nobody", "-e", "1"]) == 1
    assert "session 'nobody' is not live" in capsys.readouterr().err


def test_the_shell_names_what_keeps_it_out(
    server: HttpServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADLE_REPL_TOKEN", "a-wrong-token-of-enough-length")
    assert main(["sessions", "--connect", server.url]) == 1
    assert "refused the token (401)" in capsys.readouterr().err
    monkeypatch.delenv("GRADLE_REPL_TOKEN")
    closed = f"http://127.0.0.1:{_free_port()}/mcp"
    assert main(["eval", "--connect", closed, "-e", "1"]) == 1
    assert f"can't reach {closed}" in capsys.readouterr().err


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def test_a_person_at_repl_connect_continues_what_an_agent_built_and_leaves_it_running(
    server: HttpServer, tmp_path: Path
) -> None:
    """The agent declares, the person at `repl --connect` completes and checks against it (Tab, :check), uses it (and
    sees what the snippet prints) and declares more, the agent sees that; quitting the prompt leaves the session live for the agent."""
    async with sdk_client(server) as agent:
        await agent.call_tool("run_kotlin_snippet", run_in(MAIN, 'val agentBuilt = "by the agent"'))
        socket_name = f"gradle-repl-test-{os.getpid()}-{tmp_path.name}"  # unique across concurrent runs too
        try:
            term = Terminal(
                socket_name,
                "connected",
                (
                    f"GRADLE_REPL_CONFIG_DIR={os.environ['GRADLE_REPL_CONFIG_DIR']} GRADLE_REPL_DATA_DIR={tmp_path} "
                    f"{GRADLE_REPL} repl --connect {server.url} --session {MAIN}; echo repl-exit=$?; sleep 600"
                ),
            )
            term.wait_for(rf"Kotlin in session '{MAIN}' of {server.url}", seconds=60)
            term.wait_for(r"(?m)^kotlin>")
            at = term.mark()
            term.keys("-l", "agentBu")
            term.keys("Tab")  # completed from the server's session: one candidate, in place
            term.wait_for(r"(?m)agentBuilt$", at)
            term.keys("-l", ".uppercase()")
            term.keys("Enter")
            term.wait_for(r"BY THE AGENT\s+// kotlin\.String", at)
            at = term.mark()
            term.type(
                'println("printed " + agentBuilt)'
            )  # what a snippet prints reaches the person (not only its value)
            term.wait_for(r"(?m)^printed by the agent", at)
            at = term.mark()
            term.type(":check agentBuilt.lenght")  # checked in the server's session: nothing runs
            term.wait_for(r"Error: 1 error\(s\); nothing was run\.", at)
            at = term.mark()
            term.type("val personTyped = agentBuilt.length")
            term.type(":session")
            term.wait_for(r"val personTyped: kotlin\.Int = 12", at)
            term.keys("C-d")
            term.wait_for(r"repl-exit=0")
        finally:
            subprocess.run(["tmux", "-L", socket_name, "kill-server"], capture_output=True)
        seen = await agent.call_tool("run_kotlin_snippet", run_in(MAIN, "personTyped"))
    assert seen.structured_content["value"] == "12", text(seen)


def test_allow_remote_listens_beyond_loopback_says_what_that_exposes_and_still_wants_the_token(tmp_path: Path) -> None:
    remote = HttpServer(tmp_path / "stderr", "--host", "0.0.0.0", "--allow-remote")
    try:
        said = remote.stderr()
        assert f"--allow-remote: anyone who can reach 0.0.0.0:{remote.port} and has the token can run code" in said, (
            said
        )
        local = f"http://127.0.0.1:{remote.port}/mcp"
        Ledger.refused_tried += 1
        refused = httpx2.post(local, content=b"{}", headers={"Content-Type": "application/json"})
        if refused.status_code != 401:
            Ledger.refused_but_ran += 1
        assert refused.status_code == 401
        # Another name than loopback is served: the token, not the Host header, guards a server meant to be reached.
        opened = httpx2.post(
            local,
            content=json.dumps(INITIALIZE).encode(),
            headers=remote.headers(Host=f"build-box.example:{remote.port}"),
        )
        assert opened.status_code == 200, opened.text
    finally:
        assert remote.stop() == 0


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}


# --- Another client: the MCP Inspector's CLI (npm, installed by scripts/setup) ----------------------------------

INSPECTOR = REPO / ".tools" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"


def inspector(
    server: HttpServer, tmp_path: Path, *args: str, token: str | None = None, era: str = "auto"
) -> tuple[int, dict[str, Any]]:
    """One Inspector CLI run against the server; its exit status and the JSON it printed."""
    done = subprocess.run(
        [
            str(INSPECTOR),
            "--cli",
            server.url,
            "--transport",
            "http",
            "--protocol-era",
            era,
            "--stored-auth-only",
            "--header",
            f"Authorization: Bearer {token or server.token}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MCP_CATALOG_PATH": str(tmp_path / "catalog.json")},
    )
    printed = (done.stdout.strip() or done.stderr.strip()).splitlines()
    return done.returncode, json.loads(
        printed[-1] if printed and printed[-1].startswith('{"error') else done.stdout or "{}"
    )


@pytest.mark.skipif(
    not INSPECTOR.exists(),
    reason=f"the MCP Inspector CLI is not installed at {INSPECTOR} (scripts/setup installs it with npm)",
)
def test_the_mcp_inspector_cli_lists_and_calls_the_tools_and_is_refused_without_the_token(
    server: HttpServer, tmp_path: Path
) -> None:
    """A client that is not this project's: it lists the tools with their output schema and runs a snippet (in both
    protocol eras the server speaks); a wrong token or a foreign Origin is refused and nothing runs."""
    status, listed = inspector(server, tmp_path, "--method", "tools/list")
    assert status == 0, listed
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert "value" in tools["run_kotlin_snippet"]["outputSchema"]["properties"]
    for era in ("legacy", "modern"):
        status, called = inspector(
            server,
            tmp_path,
            "--method",
            "tools/call",
            "--tool-name",
            "run_kotlin_snippet",
            "--tool-arg",
            f"projectRoot={PROJECT}",
            "--tool-arg",
            "code=6 * 7",
            "--tool-arg",
            f"sessionId={MAIN}",
            "--tool-arg",
            "buildTool=maven",
            era=era,
        )
        assert status == 0 and called["structuredContent"]["value"] == "42", (era, called)
        assert called["content"][0]["text"] == "42\n// type: kotlin.Int"
    marker = tmp_path / "inspected"
    write = [
        "--method",
        "tools/call",
        "--tool-name",
        "run_kotlin_snippet",
        "--tool-arg",
        f"projectRoot={PROJECT}",
        "--tool-arg",
        f"code={_writes(marker)}",
        "--tool-arg",
        f"sessionId={MAIN}",
        "--tool-arg",
        "buildTool=maven",
    ]
    for refused in (
        inspector(server, tmp_path, *write, token="not-the-token-at-all"),
        inspector(server, tmp_path, *write, "--header", "Origin: http://evil.example"),
    ):
        Ledger.refused_tried += 1
        assert refused[0] != 0 and refused[1]["error"]["code"] == "auth_required", refused
    assert not marker.exists()


# --- Its end ----------------------------------------------------------------------------------------------------


def test_sigterm_ends_the_server_its_sessions_and_their_jvms(server: HttpServer) -> None:
    """Last in the module: the server a service manager stops exits 0 and leaves no worker behind."""
    session = server.legacy_session()
    assert (
        server.post(tool_call(10, "run_kotlin_snippet", run_in(MAIN, "1")), server.session_headers(session)).status_code
        == 200
    )
    children = descendants(server.pid)
    assert children
    assert server.stop() == 0, server.stderr()
    assert all(wait_gone(child.pid, 15) for child in children)
