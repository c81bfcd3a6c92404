"""Attaching over TCP as a user meets it (issue 58): a Spring Boot app written in Java, started with `java -jar` the way
a container runs it — in a mount namespace of its own where gradle-repl's cache, the user's home (Maven's repository),
the checkout and the worker's JDK are empty, as uid nobody, on JDK 25 — with the agent listening on a port behind a
token. Everything goes through the real MCP client talking to a real server over stdio, and the CLI: the app's class
path fetched over the connection, the Kotlin runtime sent as bytes, the attach cases the local path has (a bean
changed and seen, a static, a snippet class using the app's types, a probe, a timeout that leaves the app serving,
detach leaving it running), a port-forward cut mid-snippet, and the token refused or missing."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import psutil
import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

from gradle_repl.errors import GradleReplError
from gradle_repl.paths import cache_dir
from gradle_repl.worker.artifacts.agent_jar import agent_jar_path, agent_package, build_agent_jar
from gradle_repl.worker.link.agent_address import AgentAddress
from gradle_repl.worker.link.agent_options import agent_token_env
from gradle_repl.worker.link.agent_wire import AgentConnection
from gradle_repl.worker.link.app_classpath import fetch_app_classpath, fetched_classpath_dir
from support.isolatedapp import NOBODY, IsolatedApp, isolated_app
from support.paths import PROJECTS, run_state_dir
from support.runningapp import packaged_app
from support.sentences import is_a_sentence
from support.toolcalls import server_params, text

pytestmark = pytest.mark.jvm

JDK25 = Path("/usr/lib/jvm/temurin-25-jdk-amd64")
HTTP_TIMEOUT_SECONDS = 30
# A snippet that waits on purpose; the tests end it long before (a timeout, a cut connection).
LONG_SLEEP_MS = 120_000


@pytest.fixture(scope="module")
def token() -> str:
    return secrets.token_urlsafe(32)


@pytest.fixture(scope="module")
def app(token: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[IsolatedApp]:
    if not (JDK25 / "bin" / "java").is_file():
        pytest.fail(f"no JDK 25 at {JDK25}: install temurin-25-jdk (README, On a fresh machine)")
    jar = packaged_app(PROJECTS / "attach-java-spring-web", "hello-1.0.jar", run_state_dir(tmp_path_factory))
    agent = build_agent_jar(str(JDK25))
    with isolated_app(JDK25 / "bin" / "java", jar, agent, token, ready="Tomcat started on port") as started:
        yield started


def _url(app: IsolatedApp) -> str:
    found = re.search(r"Tomcat started on port\(?s?\)?:? (\d+)", app.app.ready_line)
    assert found, app.app.ready_line
    return f"http://127.0.0.1:{found.group(1)}/greeting"


def _get(app: IsolatedApp) -> str:
    with urllib.request.urlopen(_url(app), timeout=HTTP_TIMEOUT_SECONDS) as answer:
        return str(answer.read().decode())


@asynccontextmanager
async def _client(token: str | None) -> AsyncIterator[ClientSession]:
    """A real server over stdio, with the token in GRADLE_REPL_AGENT_TOKEN (or none at all)."""
    params = server_params()
    params.env = {k: v for k, v in (params.env or {}).items() if k != agent_token_env()}
    if token is not None:
        params.env[agent_token_env()] = token
    else:  # and no token kept by `agent-path --listen` either: a config directory of its own
        params.env["GRADLE_REPL_CONFIG_DIR"] = tempfile.mkdtemp(prefix="gradle-repl-config-")
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def _call(client: ClientSession, tool: str, **arguments: Any) -> CallToolResult:
    return await client.call_tool(tool, arguments)


async def _ok(client: ClientSession, tool: str, **arguments: Any) -> str:
    result = await _call(client, tool, **arguments)
    assert not result.is_error, text(result)
    return text(result)


async def _value(client: ClientSession, session: str, code: str) -> str:
    answer = await _ok(client, "run_kotlin_snippet", code=code, sessionId=session)
    return answer.splitlines()[0].split("   // ")[0]


def test_the_app_sees_none_of_gradle_repls_files_and_runs_as_another_user(app: IsolatedApp) -> None:
    """What makes it a container to the agent: the hidden directories are empty in the app's view, and it runs as
    nobody; this process sees them."""
    process = psutil.Process(app.app.pid)
    assert process.uids().real == NOBODY and process.exe().startswith(str(JDK25))
    for directory in app.hidden:
        assert list(Path(f"/proc/{app.app.pid}/root{directory}").iterdir()) == [], directory
        assert any(directory.iterdir()), directory
    for inside in (cache_dir() / "agent", Path.home() / ".m2"):
        assert not Path(f"/proc/{app.app.pid}/root{inside.resolve()}").exists(), inside


def test_a_session_over_tcp_runs_in_the_app_as_one_attached_here_does(app: IsolatedApp, token: str) -> None:
    """attach_kotlin_session with address: the app's class path comes over the connection (its fat jar kept by digest),
    the Kotlin runtime goes as bytes to an app without Kotlin; a bean changed is what the endpoint answers, a static
    changed is what the app uses, a snippet class uses the app's types, a probe records a request's thread, describe
    reads the app's values, a timeout leaves the app serving and the session attached, detach leaves it running, and
    an attach again says it is the same run."""
    address = f"127.0.0.1:{app.port}"

    async def scenario() -> None:
        async with _client(token) as client:
            attached = await _call(client, "attach_kotlin_session", address=address, sessionId="app")
            said = text(attached)
            assert not attached.is_error, said
            data = attached.structured_content or {}
            assert data["address"] == address and data["pid"] == app.app.pid and data["sameRun"] is None, data
            assert "has no Kotlin of its own" in said, said

            assert await _value(client, "app", 'System.getProperty("user.name")') == "nobody"
            before = int(await _value(client, "app", "bean<hello.Greeter>().visits.get()"))
            await _ok(client, "run_kotlin_snippet", code='bean<hello.Greeter>().greeting = "Howdy"', sessionId="app")
            await _ok(client, "run_kotlin_snippet", code='hello.Greeter.suffix = "!"', sessionId="app")
            assert _get(app) == f"Howdy #{before + 1}!"
            shout = (
                "class Shout(val greeter: hello.Greeter) { fun loud() = greeter.greeting.uppercase() }\n"
                "Shout(bean<hello.Greeter>()).loud()"
            )
            assert await _value(client, "app", shout) == "HOWDY"

            probe = await _call(
                client, "add_kotlin_probe", at="hello.Greeter:27", capture=["greeting"], sessionId="app"
            )
            assert not probe.is_error, text(probe)
            _get(app)
            hits = await _call(
                client,
                "read_kotlin_probe_hits",
                probeId=(probe.structured_content or {})["probeId"],
                waitSeconds=60,
                sessionId="app",
            )
            (hit,) = (hits.structured_content or {})["hits"]
            assert hit["thread"].startswith("http-nio-") and hit["captured"][0]["value"] == "Howdy", repr(hit)[:3000]

            await _ok(client, "run_kotlin_snippet", code="val kept = bean<hello.Greeter>().greeting", sessionId="app")
            described = await _ok(client, "describe_kotlin_session", sessionId="app")
            assert "val kept: kotlin.String! = Howdy" in described and f"the app at {address}" in described, repr(
                described
            )

            slept = await _call(
                client, "run_kotlin_snippet", code=f"Thread.sleep({LONG_SLEEP_MS})", sessionId="app", timeoutSeconds=3
            )
            assert slept.is_error and "timed out" in text(slept).lower(), text(slept)
            assert _get(app).startswith("Howdy #")
            assert await _value(client, "app", "kept.length") == "5"

            await _ok(client, "close_kotlin_session", sessionId="app")
            assert _get(app).startswith("Howdy #") and app.app.process.poll() is None
            again = await _call(client, "attach_kotlin_session", address=address, sessionId="again")
            assert not again.is_error and (again.structured_content or {})["sameRun"] is True, text(again)
            assert "same run of the app" in text(again), text(again)

    asyncio.run(scenario())


def _steady_port() -> int:
    """A free port below the ephemeral range (32768 up on Linux): none of this machine's outgoing connections or
    port-0 listeners takes it while the forward is down, so it can be bound again."""
    for port in range(21000 + os.getpid() % 1000, 32000, 7):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port between 21000 and 32000")


class _Forward:
    """What `kubectl port-forward` or `ssh -L` is to the connection: a local port passing bytes to the agent's, which
    can be cut (every connection through it closed, and the port with them) and opened again on the same port."""

    def __init__(self, target: int, port: int = 0, *, flip_byte_at: int | None = None) -> None:
        """`flip_byte_at`: the agent's bytes pass with the one at that offset of its stream changed (a faulty link)."""
        self._target = target
        self._flip_at = flip_byte_at
        self._server = socket.create_server(("127.0.0.1", port))
        self.port = self._server.getsockname()[1]
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                near, _ = self._server.accept()
            except OSError:
                return
            far = socket.create_connection(("127.0.0.1", self._target))
            self._open += [near, far]
            for source, sink, flip in ((near, far, None), (far, near, self._flip_at)):
                threading.Thread(target=self._pipe, args=(source, sink, flip), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket, flip_at: int | None) -> None:
        passed = 0
        try:
            while data := source.recv(1 << 16):
                if flip_at is not None and passed <= flip_at < passed + len(data):
                    data = (
                        data[: flip_at - passed] + bytes([data[flip_at - passed] ^ 0xFF]) + data[flip_at - passed + 1 :]
                    )
                passed += len(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        # A close alone leaves the port listening while a thread waits in accept (the kernel keeps the socket for it);
        # a shutdown ends that wait and the listening with it.
        self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        for connection in self._open:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            connection.close()


def test_a_port_forward_cut_mid_snippet_ends_the_call_in_one_line_and_the_session_comes_back(
    app: IsolatedApp, token: str
) -> None:
    """The forward cut while a snippet runs: that call says the connection was lost in one line, the app serves on;
    while nothing answers at the address, the next call says it can't be reached and how to attach again; once the
    forward is back, the next call runs in the app again."""
    forward = _Forward(app.port, _steady_port())
    address = f"127.0.0.1:{forward.port}"
    running = socket.create_server(("127.0.0.1", 0))  # the snippet connects here once it runs: no guessing when
    running.settimeout(120)

    async def scenario() -> None:
        async with _client(token) as client:
            await _ok(client, "attach_kotlin_session", address=address, sessionId="cut")
            code = f'java.net.Socket("127.0.0.1", {running.getsockname()[1]}).close()\nThread.sleep({LONG_SLEEP_MS})'
            call = asyncio.ensure_future(_call(client, "run_kotlin_snippet", code=code, sessionId="cut"))
            await asyncio.to_thread(running.accept)
            forward.cut()
            lost = await call
            said = text(lost)
            assert lost.is_error and is_a_sentence(said.splitlines()[0]), said
            assert f"The connection to the app at {address} was lost" in said, said
            assert _get(app).startswith(("Hello #", "Howdy #"))
            unreachable = await _call(client, "run_kotlin_snippet", code="1 + 1", sessionId="cut")
            said = text(unreachable)
            assert unreachable.is_error and f"The app at {address} can't be reached" in said, said
            assert f"attach_kotlin_session with address {address}" in said, said
            again = _Forward(app.port, forward.port)
            back = await _call(client, "run_kotlin_snippet", code="1 + 1", sessionId="cut")
            assert not back.is_error and text(back).startswith("2"), text(back)
            again.cut()

    asyncio.run(scenario())
    running.close()


def _other_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback (a container's own, here)."""
    return [
        entry.address
        for entries in psutil.net_if_addrs().values()
        for entry in entries
        if entry.family == socket.AF_INET and not entry.address.startswith("127.")
    ]


def test_the_apps_class_path_is_fetched_whole_and_checked_by_its_digest(
    app: IsolatedApp, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fetched from the app in pieces, its fat jar is kept byte for byte as the app has it; a piece changed on the way
    (a faulty link) fails the fetch in one sentence and keeps nothing under the entry's name."""
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(tmp_path / "cache"))
    agent = agent_package(agent_jar_path())
    faulty = _Forward(app.port, flip_byte_at=300_000)  # inside the fat jar's first piece (1 MiB)
    connection = AgentConnection.connect_tcp(AgentAddress.parse(str(faulty.port)), token, agent=agent, timeout=30)
    try:
        with pytest.raises(
            GradleReplError, match=r"^/.*/app\.jar changed in the app while it was fetched: attach again$"
        ):
            fetch_app_classpath(connection, "the app")
    finally:
        connection.close()
        faulty.cut()
    assert list(fetched_classpath_dir().rglob("app.jar")) == []
    connection = AgentConnection.connect_tcp(AgentAddress.parse(str(app.port)), token, agent=agent, timeout=30)
    try:
        (fetched,) = fetch_app_classpath(connection, "the app")
    finally:
        connection.close()
    own = Path(f"/proc/{app.app.pid}/root{app.token_file.parent}/app.jar").read_bytes()
    assert Path(fetched).read_bytes() == own and Path(fetched).parent.name == hashlib.sha256(own).hexdigest()


def _answered(port: int, answer: Callable[[str], bytes]) -> tuple[str, float]:
    """What the agent says to the line `answer` makes of its challenge's nonce, and how long it took; the connection
    closed after it."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        challenge = b""
        while not challenge.endswith(b"\n"):
            challenge += connection.recv(1)
        word, nonce = challenge.decode().split()
        assert word == "gradle-repl-agent" and len(nonce) == 64, challenge
        started = time.monotonic()
        connection.sendall(answer(nonce))
        said = b""
        while chunk := connection.recv(1024):
            said += chunk
        return said.decode(), time.monotonic() - started


def _proof_with(key: str) -> Callable[[str], bytes]:
    """A worker's answer to the challenge, proven with `key`."""

    def answer(nonce: str) -> bytes:
        mine = secrets.token_hex(32)
        proof = hmac.new(key.encode(), f"worker{nonce}{mine}".encode(), hashlib.sha256).hexdigest()
        return f"gradle-repl-token {mine} {proof}\n".encode()

    return answer


def _in_a_row(app: IsolatedApp) -> int:
    """How many refusals in a row the app's console counted at its next refusal line."""
    line, _ = app.app.wait_for("gradle-repl's agent refused a connection")
    found = re.search(r"\((\d+) in a row\)", line)
    assert found, line
    return int(found.group(1))


def test_no_token_no_session_and_each_wrong_one_waits_longer(app: IsolatedApp, token: str, tmp_path: Path) -> None:
    """From localhost too: a connection that gives no token, or a wrong one, gets one line and is closed; failures in
    a row are answered ever later (the third after at least 800 ms), the token never shows on the app's console, and
    the right token is still taken afterwards."""
    none, _ = _answered(app.port, lambda nonce: b"GET / HTTP/1.1\n")
    assert none == "refused: no token given\n", none
    first = _in_a_row(app)
    wrong, _ = _answered(app.port, _proof_with("x" * 43))
    assert wrong == "refused: wrong token\n" and _in_a_row(app) == first + 1
    again, waited = _answered(app.port, _proof_with(token + "x"))
    line, _ = app.app.wait_for("wrong token")
    assert again == "refused: wrong token\n" and f"({first + 2} in a row)" in line, line
    assert waited >= 0.2 * 2 ** min(first + 1, 4), waited  # its delay: 200 ms doubled per failure before it
    assert token not in line
    # Bound to loopback unless told: this machine's other addresses reach nothing there.
    for address in _other_addresses():
        with pytest.raises((ConnectionRefusedError, TimeoutError)):  # refused, or dropped by a firewall
            socket.create_connection((address, app.port), timeout=5).close()

    async def scenario() -> None:
        async with _client(None) as client:
            missing = await _call(client, "attach_kotlin_session", address=f"127.0.0.1:{app.port}", sessionId="x")
            assert missing.is_error and text(missing).startswith("Error: no token for the agent: "), text(missing)
            bad = tmp_path / "wrong-token"
            bad.write_text("z" * 43)
            refused = await _call(
                client, "attach_kotlin_session", address=f"127.0.0.1:{app.port}", tokenFile=str(bad), sessionId="x"
            )
            said = text(refused)
            assert refused.is_error and is_a_sentence(said), said
            assert said.startswith(f"Error: the agent at 127.0.0.1:{app.port} refused the token (wrong token)"), said
            assert text(await _call(client, "list_kotlin_sessions")) == "No live sessions."

    asyncio.run(scenario())
    _get(app)  # a request answered, whatever ran before this test
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "gradle_repl",
            "eval",
            "--attach",
            f"127.0.0.1:{app.port}",
            "--token-file",
            str(app.token_file),
            "-e",
            "bean<hello.Greeter>().visits.get() > 0",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, agent_token_env(): ""},
    )
    assert ran.returncode == 0 and "true   // kotlin.Boolean" in ran.stdout, (ran.stdout, ran.stderr)


def test_an_agent_without_a_token_does_not_start_the_app(tmp_path: Path) -> None:
    """listen= with no token anywhere stops the JVM's start with the reason, as a bad JDWP option does."""
    agent = build_agent_jar(str(JDK25))
    env = {k: v for k, v in os.environ.items() if k != agent_token_env()}
    started = subprocess.run(
        [str(JDK25 / "bin" / "java"), f"-javaagent:{agent}=listen=0", "-version"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert started.returncode != 0
    assert "gradle-repl's agent listens only behind a token" in started.stderr, started.stderr
