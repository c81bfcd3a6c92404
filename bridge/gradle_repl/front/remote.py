"""The shell in a live session of a running `serve --http`: `eval --connect`, `repl --connect`, `sessions`.

An MCP client (the SDK's Streamable HTTP client) with the token read as the server reads it. `RemoteSessions` offers
the terminal REPL the few session-manager calls it makes, answered by the server's tools, so a person continues what
an agent built (and an agent that prefers its shell keeps one session across commands). Leaving never closes the
session: it is the server's, and whoever else uses it keeps it.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from gradle_repl.errors import GradleReplError
from gradle_repl.frames import CheckResult, CompletionResult, SessionDescription
from gradle_repl.front.content import reply_from_result
from gradle_repl.front.outputs import CodeCheck, CodeCompletions, SessionContents, SessionList
from gradle_repl.front.token import TOKEN_ENV, token_path
from gradle_repl.host.handle import Analysis, Reply
from gradle_repl.host.notices import Notice
from gradle_repl.host.sessions import SessionInfo

__all__ = ["client_token", "connected", "RemoteSessions", "live_session"]

# A snippet may run for up to an hour (the tool's own cap) without a progress line; a build before it, minutes.
READ_TIMEOUT_SECONDS = 3600.0
# Reaching the server and sending a request: it is local or near, and answers at once when it is up.
CONNECT_TIMEOUT_SECONDS = 30.0


def client_token() -> str:
    """GRADLE_REPL_TOKEN, else the token file a local server made; a client never makes one."""
    given = os.environ.get(TOKEN_ENV)
    if given:
        return given.strip()
    try:
        return token_path().read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise GradleReplError(
            f"no token: {token_path()} doesn't exist and {TOKEN_ENV} is not set (on the server's machine, "
            "`gradle-repl token` prints it)"
        ) from None


def _unwrapped(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _refusal(url: str, status: int) -> str:
    if status == 401:
        return f"{url} refused the token (401): use the server's (`gradle-repl token` on its machine, or {TOKEN_ENV})"
    return (
        f"{url} refused the request ({status}): the server listens on loopback and accepts only loopback names; "
        "connect through 127.0.0.1 or localhost (an SSH tunnel from another machine)"
    )


def _why(url: str, error: BaseException) -> str:
    error = _unwrapped(error)
    if isinstance(error, httpx2.HTTPStatusError):
        status = error.response.status_code
        if status in (401, 403, 421):
            return _refusal(url, status)
        return f"{url} answered {status} {error.response.reason_phrase}"
    if isinstance(error, httpx2.ConnectError | httpx2.ConnectTimeout | OSError):
        return f"can't reach {url}: is `gradle-repl serve --http` running there? ({error})"
    return f"{url}: {type(error).__name__}: {error}"


@asynccontextmanager
async def connected(url: str) -> AsyncIterator[Client]:
    """An MCP client of the server at url, or a GradleReplError saying why there is none. A GradleReplError raised
    inside comes out as itself, not wrapped in the client's task group."""
    token = client_token()
    refused: list[int] = []

    async def note_refusal(response: httpx2.Response) -> None:
        # The SDK reports a refused request as a generic error; the status says which refusal it was.
        if response.status_code in (401, 403, 421):
            refused.append(response.status_code)

    try:
        async with AsyncExitStack() as stack:
            try:
                http = await stack.enter_async_context(httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=httpx2.Timeout(CONNECT_TIMEOUT_SECONDS, read=READ_TIMEOUT_SECONDS),
                    event_hooks={"response": [note_refusal]},
                ))
                client = await stack.enter_async_context(
                    Client(streamable_http_client(url, http_client=http), read_timeout_seconds=READ_TIMEOUT_SECONDS)
                )
            except Exception as error:  # noqa: BLE001 - every way of not connecting becomes one clear line
                raise GradleReplError(_refusal(url, refused[0]) if refused else _why(url, error)) from None
            yield client
    except BaseExceptionGroup as group:
        inner = _unwrapped(group)
        if isinstance(inner, GradleReplError):
            raise inner from None
        raise


async def sessions(client: Client) -> list[SessionInfo]:
    result = await client.call_tool("list_kotlin_sessions", {})
    return SessionList.model_validate(result.structured_content).sessions


async def live_session(client: Client, session_id: str) -> SessionInfo | None:
    return next((s for s in await sessions(client) if s.session_id == session_id), None)


def snippet_arguments(info: SessionInfo | None, session_id: str, project_root: str | None, **given: Any) -> dict[str, Any]:
    """run_kotlin_snippet's arguments for a session: a live one's own project (another would restart it), else the
    project the command named."""
    if info is not None:
        project = {
            "projectRoot": info.project_root, "projectPath": info.project_path, "sourceSet": info.source_set,
            "buildTool": info.build_tool,
        }
    elif project_root is not None:
        project = {"projectRoot": os.path.abspath(project_root), **given}
    else:
        raise GradleReplError(f"session {session_id!r} is not live on the server; name the project to start it there")
    return {**project, "sessionId": session_id}


class RemoteSessions:
    """What the terminal REPL asks of a session manager, answered by a server's tools."""

    def __init__(self, client: Client, arguments: dict[str, Any]) -> None:
        self._client = client
        self._arguments = arguments

    async def open_session(self, *, progress: Callable[[str], None] | None = None, **_: object) -> tuple[Notice, ...]:
        return ()

    async def run_snippet(
        self, *, code: str, timeout_seconds: float | None = None, progress: Callable[[str], None] | None = None,
        **_: object,
    ) -> Reply:
        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            if progress is not None and message:
                progress(message)

        arguments = {**self._arguments, "code": code}
        if timeout_seconds is not None:
            arguments["timeoutSeconds"] = timeout_seconds
        result: CallToolResult = await self._client.call_tool("run_kotlin_snippet", arguments, progress_callback=on_progress)
        return reply_from_result(result, code)

    def _where(self) -> dict[str, Any]:
        return {name: self._arguments[name] for name in ("projectRoot", "projectPath", "sourceSet", "buildTool", "sessionId")}

    async def complete_snippet(self, *, code: str, cursor: int | None = None, **_: object) -> Analysis:
        result = await self._client.call_tool("complete_kotlin_snippet", {**self._where(), "code": code, "cursor": cursor})
        data = CodeCompletions.model_validate(result.structured_content or {})
        if data.error is not None:
            raise GradleReplError(data.error.message)
        completed = CompletionResult(items=data.items, prefix_start=data.prefix_start, unavailable=data.unavailable)
        return Analysis(completed, tuple(data.notices))

    async def check_snippet(self, *, code: str, progress: Callable[[str], None] | None = None, **_: object) -> Analysis:
        result = await self._client.call_tool("check_kotlin_snippet", {**self._where(), "code": code})
        data = CodeCheck.model_validate(result.structured_content or {})
        if data.error is not None:
            raise GradleReplError(data.error.message)
        checked = CheckResult(compiled=data.ok, value_type=data.value_type, diagnostics=data.diagnostics, duration_ms=data.duration_ms)
        return Analysis(checked, tuple(data.notices))

    async def describe(self, session_id: str) -> SessionDescription:
        result = await self._client.call_tool("describe_kotlin_session", {"sessionId": session_id})
        if result.is_error:
            raise GradleReplError(getattr(result.content[0], "text", "").removeprefix("Error: "))
        contents = SessionContents.model_validate(result.structured_content)
        return SessionDescription(declarations=contents.declarations, imports=contents.imports, libraries=contents.libraries)

    async def reset(self, session_id: str) -> bool:
        await self._client.call_tool("reset_kotlin_session", {"sessionId": session_id})
        return True

    async def reset_and_replay(self, session_id: str) -> tuple[Notice, ...]:
        """The server's session restarted and its snippets run again; its reply's lines after the first, as notices."""
        result = await self._client.call_tool("reset_kotlin_session", {"sessionId": session_id, "replay": True})
        lines = getattr(result.content[0], "text", "").splitlines() if result.content else []
        if result.is_error:
            raise GradleReplError(" ".join(lines).removeprefix("Error: "))
        return tuple(Notice(kind="replayed", text=line) for line in lines[1:])

    async def close_all(self) -> None:
        """Leaving keeps the session: it is the server's."""
