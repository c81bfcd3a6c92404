"""MCP over Streamable HTTP: the SDK's transport at /mcp, the same server and tools as stdio, behind a bearer token.

Every request passes, outermost first:
1. the bearer token (constant-time compare): anything without it is answered 401 and reaches nothing else;
2. the body limit: a body past `http_max_body_bytes` is answered 413 before anything reads it;
3. cancel-on-disconnect: a client whose connection closes before its call was answered has that call cancelled,
   exactly as if it had sent `notifications/cancelled` (the snippet stops as a cancelled one does over stdio);
   other clients' calls, even on the same Kotlin session, are theirs and go on;
4. the SDK's transport security: bound to loopback, a Host that isn't loopback is answered 421 and an Origin that
   isn't loopback 403 (DNS rebinding: a web page the user opens must not reach the server through its own name).
"""

from __future__ import annotations

import ipaddress
import json
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import RequestBodyLimitMiddleware, TransportSecuritySettings

from gradle_repl.errors import GradleReplError
from gradle_repl.front.token import Token, matches
from gradle_repl.settings import DEFAULTS, Settings

__all__ = ["MCP_PATH", "ExposureRefused", "check_exposure", "http_app", "is_loopback", "serve_http"]

MCP_PATH = urlsplit(DEFAULTS.http_url()).path
# What the listening socket queues while the server starts.
LISTEN_BACKLOG = 64

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

UNAUTHORIZED = (
    "gradle-repl: missing or wrong bearer token. Send 'Authorization: Bearer <token>'; on the server's machine "
    "`gradle-repl token` prints it (or set GRADLE_REPL_TOKEN on both sides).\n"
)


def check_exposure(host: str, *, allow_remote: bool) -> None:
    """Listening where other machines reach it takes --allow-remote: the token is then all that guards the server."""
    if not is_loopback(host) and not allow_remote:
        raise ExposureRefused(
            f"--host {host} is reachable from other machines; pass --allow-remote as well to mean it "
            "(anyone who reaches it with the token can run code as you)"
        )


class ExposureRefused(GradleReplError):
    """A non-loopback --host without --allow-remote."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _security(host: str) -> TransportSecuritySettings:
    """Loopback only, by Host and Origin, when bound to loopback; nothing to check a name against otherwise (the
    token is then the only guard, as --allow-remote says)."""
    if not is_loopback(host):
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


class BearerToken:
    """401 for any HTTP request without the server's token; nothing behind it sees such a request. Of the other
    connection kinds only the server's own lifespan passes; any other (a websocket) is refused."""

    def __init__(self, app: App, token: str) -> None:
        self.app = app
        self._token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" or (scope["type"] == "http" and self._authorized(scope)):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            # Closed before it is accepted: the server answers the upgrade with 403, and nothing behind sees it.
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            raise RuntimeError(f"serve --http serves HTTP requests only, not {scope['type']!r} connections")
        # The body is not read: nothing of an unauthenticated request is parsed.
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"www-authenticate", b'Bearer realm="gradle-repl"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": UNAUTHORIZED.encode()})

    def _authorized(self, scope: Scope) -> bool:
        values = [value for name, value in scope["headers"] if name == b"authorization"]
        if len(values) != 1:
            return False
        scheme, _, given = values[0].decode("latin-1").partition(" ")
        return scheme.lower() == "bearer" and matches(given.strip(), self._token)


class CancelOnDisconnect:
    """A call whose client went away before its answer is cancelled, through the session's own
    `notifications/cancelled`, so the server stops it exactly as it stops any cancelled call."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = bytearray()
        disconnected = answered = False

        async def receive_watched() -> Message:
            nonlocal disconnected
            message = await receive()
            if message["type"] == "http.request":
                body.extend(message.get("body", b""))
            elif message["type"] == "http.disconnect":
                disconnected = True
            return message

        async def send_watched(message: Message) -> None:
            nonlocal answered
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                answered = True
            await send(message)

        try:
            await self.app(scope, receive_watched, send_watched)
        finally:
            if disconnected and not answered:
                await self._cancel(scope, bytes(body))

    async def _cancel(self, scope: Scope, body: bytes) -> None:
        request_id = _request_id(body)
        headers = dict(scope["headers"])
        if request_id is None or b"mcp-session-id" not in headers:
            return
        notice = json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": request_id, "reason": "the client's connection closed"},
            }
        ).encode()
        kept = [(name, value) for name, value in scope["headers"] if name != b"content-length"]
        inner = {**scope, "headers": [*kept, (b"content-length", str(len(notice)).encode())]}
        delivered = False

        async def receive_notice() -> Message:
            nonlocal delivered
            if delivered:
                return {"type": "http.disconnect"}
            delivered = True
            return {"type": "http.request", "body": notice, "more_body": False}

        async def discard(_: Message) -> None:
            return None

        await self.app(inner, receive_notice, discard)


def _request_id(body: bytes) -> str | int | None:
    """The JSON-RPC id of a request body, if it is one request."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    request_id = message.get("id") if isinstance(message, dict) and "method" in message else None
    return request_id if isinstance(request_id, (str, int)) else None


def http_app(server: MCPServer, *, token: Token, host: str, max_body_bytes: int) -> App:
    """The server's Streamable HTTP app at /mcp, wrapped as the module docstring says."""
    inner = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=_security(host),
        max_request_body_size=max_body_bytes,
        host=host,
    )
    return BearerToken(RequestBodyLimitMiddleware(CancelOnDisconnect(inner), max_body_bytes), token.value)


def _listen(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as error:
        sock.close()
        raise GradleReplError(
            f"can't listen on {host}:{port}: {error.strerror} (another server there? pass --port)"
        ) from None
    sock.listen(LISTEN_BACKLOG)
    return sock


def serve_http(server: MCPServer, *, token: Token, settings: Settings, allow_remote: bool) -> None:
    """Listens, says where (and where the token is, never the token), and serves until SIGTERM or Ctrl-C."""
    host, port = settings.http_host, settings.http_port
    sock = _listen(host, port)
    bound = sock.getsockname()[1]
    print(f"gradle-repl: MCP over Streamable HTTP at {settings.http_url(bound)}", file=sys.stderr)
    print(f"gradle-repl: bearer token from {token.source} (`gradle-repl token` prints it)", file=sys.stderr)
    if not is_loopback(host):
        print(
            f"gradle-repl: --allow-remote: anyone who can reach {host}:{bound} and has the token can run code as this "
            "user here; the traffic is plain HTTP, so use it on a trusted network or behind an SSH tunnel or TLS proxy",
            file=sys.stderr,
        )
    app = http_app(server, token=token, host=host, max_body_bytes=settings.http_max_body_bytes)
    config = uvicorn.Config(
        app,
        log_level="warning",
        timeout_graceful_shutdown=settings.http_shutdown_grace_seconds,
        lifespan="on",
    )
    # uvicorn stops in order on SIGTERM (the lifespan closes every session), then raises the signal again for the
    # handler it found: this one makes that an exit with status 0, as the stdio server's.
    signal.signal(signal.SIGTERM, _exit_after_orderly_stop)
    uvicorn.Server(config).run(sockets=[sock])


def _exit_after_orderly_stop(signum: int, frame: object) -> None:
    raise SystemExit(0)
