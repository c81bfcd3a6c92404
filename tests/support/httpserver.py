"""A `gradle-repl serve --http` process for tests, and HTTP clients of it: the SDK's, and raw requests that no SDK
client would send (a missing token, a foreign Origin, a connection dropped mid-call)."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from gradle_repl.front.token import server_token
from gradle_repl.settings import TOKEN_ENV

# The server's first lines come after Python imports the SDK and uvicorn: seconds on a busy machine.
START_SECONDS = 60.0
LEGACY_PROTOCOL = "2025-06-18"


class HttpServer:
    def __init__(self, log: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.log = log
        with log.open("wb") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "gradle_repl", "serve", "--http", "--port", "0", "--no-spare-worker", *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                env=env,
            )
        self.url = self._wait_for_url()
        port = re.search(r":(\d+)/mcp", self.url)
        assert port is not None, self.url
        self.port = int(port[1])
        self.token = env[TOKEN_ENV] if env and TOKEN_ENV in env else server_token().value

    def _wait_for_url(self) -> str:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            found = re.search(r"Streamable HTTP at (\S+)", self.stderr())
            if found:
                return found[1]
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited with {self.process.returncode}:\n{self.stderr()}")
            time.sleep(0.05)
        raise AssertionError(f"the server never said where it listens:\n{self.stderr()}")

    @property
    def pid(self) -> int:
        return self.process.pid

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def headers(self, **extra: str) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {self.token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **extra,
        }

    def post(self, body: bytes | dict[str, Any], headers: dict[str, str]) -> httpx2.Response:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        return httpx2.post(self.url, content=content, headers=headers, timeout=60)

    def legacy_session(self) -> str:
        """A 2025-era session opened by hand (initialize, initialized); its Mcp-Session-Id."""
        opened = self.post(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": LEGACY_PROTOCOL,
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            },
            self.headers(),
        )
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        initialized = self.post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, self.session_headers(session)
        )
        assert initialized.status_code == 202, initialized.text
        return session

    def session_headers(self, session: str, **extra: str) -> dict[str, str]:
        return self.headers(**{"Mcp-Session-Id": session, "Mcp-Protocol-Version": LEGACY_PROTOCOL, **extra})

    def stop(self) -> int:
        """SIGTERM, as a service manager ends it; the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def tool_call(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def open_call(server: HttpServer, session: str, body: dict[str, Any]) -> socket.socket:
    """A tool call sent over a connection of its own, left open: closing the socket is the client going away."""
    data = json.dumps(body).encode()
    headers = {**server.session_headers(session), "Host": f"127.0.0.1:{server.port}", "Content-Length": str(len(data))}
    connection = socket.create_connection(("127.0.0.1", server.port))
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    connection.sendall(f"POST /mcp HTTP/1.1\r\n{head}\r\n".encode() + data)
    status = connection.recv(64)
    assert status.startswith(b"HTTP/1.1 200"), status
    return connection


@asynccontextmanager
async def sdk_client(server: HttpServer, token: str | None = None) -> AsyncIterator[Client]:
    """The SDK's Streamable HTTP client with the server's token (or the one given)."""
    async with (
        httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token or server.token}"}, timeout=httpx2.Timeout(30, read=600)
        ) as http,
        Client(streamable_http_client(server.url, http_client=http), read_timeout_seconds=600) as client,
    ):
        yield client
