"""The HTTP server's bearer token: made once, private to its owner, overridable, compared in constant time."""

from __future__ import annotations

import asyncio
import os
import stat
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from starlette.types import Message, Receive, Scope, Send

from gradle_repl.errors import GradleReplError
from gradle_repl.front import token as tokens
from gradle_repl.front.http import BearerToken
from gradle_repl.worker.link.agent_options import agent_token_env


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GRADLE_REPL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv(tokens.TOKEN_ENV, raising=False)
    return tmp_path / "config"


def test_a_token_is_made_once_with_mode_0600_and_at_least_128_bits(config: Path) -> None:
    first = tokens.server_token()
    again = tokens.server_token()
    path = config / "token"
    assert first.value == again.value and first.source == again.source == str(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # token_urlsafe(32): 43 characters of 6 bits each.
    assert len(first.value) >= 43 and first.value not in repr(first)


def test_the_environment_variable_wins_and_a_short_one_is_refused(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(tokens.TOKEN_ENV, "a-token-set-by-hand-1234")
    given = tokens.server_token()
    assert given.value == "a-token-set-by-hand-1234" and tokens.TOKEN_ENV in given.source
    assert not (config / "token").exists()
    monkeypatch.setenv(tokens.TOKEN_ENV, "short")
    with pytest.raises(GradleReplError, match="at least 16"):
        tokens.server_token()


def test_a_token_file_others_could_read_is_made_private(config: Path) -> None:
    value = tokens.server_token().value
    path = config / "token"
    os.chmod(path, 0o644)
    assert tokens.server_token().value == value
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_matches_only_the_exact_token() -> None:
    assert tokens.matches("abc-secret-token", "abc-secret-token")
    for wrong in ("", "abc-secret-toke", "abc-secret-tokenX", "ABC-secret-token", "\udc80"):
        assert not tokens.matches(wrong, "abc-secret-token"), wrong


def test_servers_starting_at_once_all_read_one_whole_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first token is created while others may read it: none sees an empty or partial file, all the same one."""
    monkeypatch.delenv(tokens.TOKEN_ENV, raising=False)
    for round_ in range(60):
        monkeypatch.setenv("GRADLE_REPL_CONFIG_DIR", str(tmp_path / f"config-{round_}"))
        start = threading.Barrier(6)

        def start_server() -> str:
            start.wait()  # noqa: B023 - every thread that calls it is done within this round
            return tokens.server_token().value

        with ThreadPoolExecutor(6) as pool:
            values = {future.result() for future in [pool.submit(start_server) for _ in range(6)]}
        assert len(values) == 1
        assert [p.name for p in (tmp_path / f"config-{round_}").iterdir()] == ["token"]  # no temporary file left


def test_only_the_lifespan_and_authorized_http_requests_reach_the_app() -> None:
    """BearerToken in front of an app that records what reaches it: a websocket (with the right token even) or any
    other connection kind is refused; the server's lifespan and an authorized request pass."""
    reached: list[str] = []
    sent: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        reached.append(scope["type"])

    async def receive() -> Message:
        return {"type": "websocket.connect"}

    async def send(message: Message) -> None:
        sent.append(message)

    guard = BearerToken(app, "abc-secret-token")
    authorized = [(b"authorization", b"Bearer abc-secret-token")]

    async def connections() -> None:
        await guard({"type": "lifespan"}, receive, send)
        await guard({"type": "http", "headers": authorized}, receive, send)
        await guard({"type": "websocket", "headers": authorized}, receive, send)
        with pytest.raises(RuntimeError, match="HTTP requests only"):
            await guard({"type": "something-else", "headers": authorized}, receive, send)

    asyncio.run(connections())
    assert reached == ["lifespan", "http"]
    assert sent == [{"type": "websocket.close", "code": 1008}]


def test_the_agent_token_is_kept_made_anew_on_request_and_found_by_an_attach(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`agent-path --listen` keeps one agent token (0600, 256 bits) and an attach finds it with nothing named; a new
    one replaces it only on request."""
    monkeypatch.delenv(agent_token_env(), raising=False)
    with pytest.raises(GradleReplError, match=r"^no token for the agent: .*agent-path --listen PORT"):
        tokens.agent_token()
    kept = tokens.kept_agent_token()
    assert kept.value == tokens.kept_agent_token().value and len(kept.value) >= 43
    assert stat.S_IMODE(tokens.agent_token_path().stat().st_mode) == 0o600
    assert tokens.agent_token().value == kept.value
    renewed = tokens.kept_agent_token(new=True)
    assert renewed.value != kept.value and tokens.agent_token().value == renewed.value


def test_an_attach_takes_the_token_given_then_a_files_then_the_variables(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The token named in the call wins, then its file, then GRADLE_REPL_AGENT_TOKEN, then the kept one; none of them
    shows in a repr, and an unreadable file is one sentence."""
    tokens.kept_agent_token()
    monkeypatch.setenv(agent_token_env(), " from-the-environment-0001 ")
    file = tmp_path / "token"
    file.write_text("from-the-file-000000001\n")
    assert tokens.agent_token("given-in-the-call-00001", str(file)).value == "given-in-the-call-00001"
    assert tokens.agent_token(None, str(file)).value == "from-the-file-000000001"
    found = tokens.agent_token()
    assert found.value == "from-the-environment-0001" and found.value not in repr(found)
    with pytest.raises(GradleReplError, match=r"^can't read the agent's token file /nowhere/token \("):
        tokens.agent_token(None, "/nowhere/token")
