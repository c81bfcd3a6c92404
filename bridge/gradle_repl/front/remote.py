"""The shell in a live session of a running `serve --http`: `eval --connect`, `repl --connect`, `sessions`.

An MCP client (the SDK's Streamable HTTP client) with the token read as the server reads it. `RemoteSessions` offers
the terminal REPL the few session-manager calls it makes, answered by the server's tools, so a person continues what
an agent built (and an agent that prefers its shell keeps one session across commands). Leaving never closes the
session: it is the server's, and whoever else uses it keeps it.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TypeVar

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, ImageContent
from pydantic import BaseModel
from pydantic.alias_generators import to_camel

if sys.version_info < (3, 11):  # built in from 3.11; before, the backport anyio itself uses
    from exceptiongroup import BaseExceptionGroup

from gradle_repl.display_kinds import DISPLAY_KINDS, DisplayKind
from gradle_repl.errors import GradleReplError
from gradle_repl.frames import (
    CheckResult,
    CompletionResult,
    Declaration,
    DisplayFrame,
    ErrorResult,
    Probe,
    SessionDescription,
    StreamFrame,
    SuccessResult,
    TestRunResult,
)
from gradle_repl.front.content import carried
from gradle_repl.front.outputs import (
    CodeCheck,
    CodeCompletions,
    LiveSession,
    NoticeItem,
    ProjectTestRun,
    SessionContents,
    SessionList,
    SessionOptionValues,
    SessionReset,
    SnippetError,
    SnippetRun,
)
from gradle_repl.front.parameters import ProbeSpec
from gradle_repl.front.token import TOKEN_ENV, token_path
from gradle_repl.host.handle import Analysis, OnFrame, OnTestProgress, Reply, TestReply
from gradle_repl.host.manager import Progress
from gradle_repl.host.notices import Notice
from gradle_repl.options import SessionOptions
from gradle_repl.target import SessionTarget
from gradle_repl.worker.results.report import Diagnostic, format_diagnostic

__all__ = [
    "client_token",
    "connected",
    "RemoteSessions",
    "live_session",
    "joined_target",
    "tool_arguments",
    "option_arguments",
    "reply_from_result",
]

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
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(
                        headers={"Authorization": f"Bearer {token}"},
                        timeout=httpx2.Timeout(CONNECT_TIMEOUT_SECONDS, read=READ_TIMEOUT_SECONDS),
                        event_hooks={"response": [note_refusal]},
                    )
                )
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


async def sessions(client: Client) -> list[LiveSession]:
    result = await client.call_tool("list_kotlin_sessions", {})
    return SessionList.model_validate(result.structured_content).sessions


async def live_session(client: Client, session_id: str) -> LiveSession | None:
    return next((s for s in await sessions(client) if s.session_id == session_id), None)


def joined_target(info: LiveSession | None, named: SessionTarget, *, root_named: bool) -> SessionTarget:
    """The target a command joins: a live session's own project (another would restart it), else the project the
    command named (root_named: it named a directory)."""
    if info is not None:
        return SessionTarget(
            info.project_root, info.project_path, info.source_set, info.build_tool or "auto", info.session_id
        )
    if not root_named:
        raise GradleReplError(
            f"session {named.session_id!r} is not live on the server; name the project to start it there"
        )
    return dataclasses.replace(named, project_root=os.path.abspath(named.project_root))


def tool_arguments(target: SessionTarget) -> dict[str, str]:
    """A target as the code tools' arguments: each field under its camelCase name (projectRoot, ..., sessionId)."""
    return {to_camel(field.name): getattr(target, field.name) for field in dataclasses.fields(target)}


def option_arguments(options: SessionOptions | None) -> dict[str, object]:
    """Session options as run_kotlin_snippet's arguments; none given, none sent (the session keeps its own)."""
    return SessionOptionValues.model_validate(options).model_dump(mode="json") if options is not None else {}


_M = TypeVar("_M", bound=BaseModel)


def _internal(model: type[_M], items: Sequence[BaseModel]) -> list[_M]:
    """Wire items as the internal model they show (a wire item is a subclass of it, which compares unequal)."""
    return [model.model_validate(item.model_dump(by_alias=False)) for item in items]


def _probe_arguments(probes: Sequence[Probe]) -> list[dict[str, object]]:
    """Probes as the tools take them (camelCase)."""
    return [ProbeSpec.model_validate(probe.model_dump()).model_dump(by_alias=True) for probe in probes]


def _notices(items: list[NoticeItem]) -> tuple[Notice, ...]:
    return tuple(_internal(Notice, items))


def reply_from_result(result: CallToolResult, code: str) -> Reply:
    """A run_kotlin_snippet result as the reply it was made from, read from its structuredContent: the value, the
    displays, the output per stream, the diagnostics (the warnings' text made again from them and the code, as the
    worker makes it) and the notices. Only an image's bytes are not in the data: they are the result's image content,
    in order (the value's first when the value is an image). What the data does not keep (how stdout and stderr
    interleaved) comes back one stream after the other. A call that could not run its snippet is its error."""
    data = SnippetRun.model_validate(result.structured_content or {})
    if data.error is not None and data.error.kind == "request":
        raise GradleReplError(data.error.message)
    images = iter([block for block in result.content if isinstance(block, ImageContent)])

    def shown(kind: DisplayKind, mime: str, text: str | None) -> DisplayFrame:
        if not DISPLAY_KINDS[kind].binary:
            return DisplayFrame(kind=kind, mime=mime, data=text or "")
        image = next(images, None)
        if image is None:
            raise GradleReplError("the server's result names an image it does not carry (no image content left)")
        return DisplayFrame(kind=kind, mime=image.mime_type, data=image.data)

    value: DisplayFrame | None = None
    if data.value_kind is not None and DISPLAY_KINDS[data.value_kind].binary:
        value = shown(data.value_kind, "", None)
    elif data.value_kind is not None and data.value is not None:
        value = shown(data.value_kind, data.value_mime or "", data.value)
    frames: list[StreamFrame | DisplayFrame] = []
    if data.stdout:
        frames.append(StreamFrame(event="stdout", data=data.stdout))
    if data.stderr:
        frames.append(StreamFrame(event="stderr", data=data.stderr))
    frames += [shown(item.kind, item.mime, item.text) for item in data.displays]
    warnings = [
        format_diagnostic(Diagnostic("WARNING", d.message, d.line, d.column), code)
        for d in data.diagnostics
        if d.severity == "warning"
    ]
    heap = next((n.text for n in data.notices if n.kind == "memory"), None)
    notices = _notices([n for n in data.notices if n.kind != "memory"])
    shared = carried(data, SnippetRun)
    result_frame: SuccessResult | ErrorResult
    if data.error is not None:
        error = data.error
        assert error.kind != "request"
        result_frame = ErrorResult(
            **shared,
            **carried(error, SnippetError),
            error_kind=error.kind,
            compile_warnings=warnings,
            heap_warning=heap,
        )
    else:
        result_frame = SuccessResult(
            **shared, value=value, value_type=data.value_type, compile_warnings=warnings, heap_warning=heap
        )
    return Reply(tuple(frames), result_frame, notices)


class RemoteSessions:
    """What the terminal REPL asks of a session manager, answered by a server's tools."""

    def __init__(self, client: Client) -> None:
        self._client = client

    async def open_session(
        self, target: SessionTarget, *, progress: Progress | None = None, options: SessionOptions | None = None
    ) -> tuple[Notice, ...]:
        """The server's session starts with its first snippet, which carries the options."""
        return ()

    async def run_snippet(
        self,
        target: SessionTarget,
        *,
        code: str,
        timeout_seconds: float | None = None,
        progress: Progress | None = None,
        on_frame: OnFrame | None = None,
        options: SessionOptions | None = None,
        probes: Sequence[Probe] = (),
    ) -> Reply:
        show = progress

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if show is not None and message:
                show(message)

        arguments: dict[str, object] = {**tool_arguments(target), **option_arguments(options), "code": code}
        if timeout_seconds is not None:
            arguments["timeoutSeconds"] = timeout_seconds
        if probes:
            arguments["probes"] = _probe_arguments(probes)
        result: CallToolResult = await self._client.call_tool(
            "run_kotlin_snippet", arguments, progress_callback=on_progress
        )
        reply = reply_from_result(result, code)
        if on_frame is not None:
            # What the snippet printed and showed, as a session in this process hands it over before its reply.
            for frame in reply.frames:
                on_frame(frame)
        return reply

    async def complete_snippet(
        self, target: SessionTarget, *, code: str, cursor: int | None = None, progress: Progress | None = None
    ) -> Analysis:
        arguments = {**tool_arguments(target), "code": code, "cursor": cursor}
        result = await self._client.call_tool("complete_kotlin_snippet", arguments)
        data = CodeCompletions.model_validate(result.structured_content or {})
        if data.error is not None:
            raise GradleReplError(data.error.message)
        return Analysis(CompletionResult(**carried(data, CodeCompletions)), _notices(data.notices))

    async def check_snippet(self, target: SessionTarget, *, code: str, progress: Progress | None = None) -> Analysis:
        result = await self._client.call_tool("check_kotlin_snippet", {**tool_arguments(target), "code": code})
        data = CodeCheck.model_validate(result.structured_content or {})
        if data.error is not None:
            raise GradleReplError(data.error.message)
        checked = CheckResult(**carried(data, CodeCheck), compiled=data.ok)
        return Analysis(checked, _notices(data.notices))

    async def run_tests(
        self,
        target: SessionTarget,
        *,
        selectors: list[str] | None = None,
        failed_only: bool = False,
        timeout_seconds: float | None = None,
        progress: Progress | None = None,
        on_test: OnTestProgress | None = None,
        probes: Sequence[Probe] = (),
        explain_failures: bool = False,
    ) -> TestReply:
        """run_project_tests in the server's test session; the run read back from its data."""

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if on_test is not None and message:
                on_test(message)

        arguments: dict[str, object] = {
            "projectRoot": target.project_root,
            "projectPath": target.project_path,
            "sourceSet": target.source_set,
            "buildTool": target.build_tool,
            "sessionId": target.session_id,
            "tests": selectors or [],
            "failedOnly": failed_only,
            "explainFailures": explain_failures,
        }
        if timeout_seconds is not None:
            arguments["timeoutSeconds"] = timeout_seconds
        if probes:
            arguments["probes"] = _probe_arguments(probes)
        result = await self._client.call_tool("run_project_tests", arguments, progress_callback=on_progress)
        data = ProjectTestRun.model_validate(result.structured_content or {})
        notices = _notices(data.notices)
        if data.error is not None:
            kind = data.error.kind if data.error.kind != "request" else "runtime"
            return TestReply(ErrorResult(error_kind=kind, message=data.error.message), notices)
        run = TestRunResult(**carried(data, ProjectTestRun), notices=[data.cut] if data.cut else [])
        return TestReply(run, notices)

    async def describe(self, session_id: str) -> SessionDescription:
        result = await self._client.call_tool("describe_kotlin_session", {"sessionId": session_id})
        if result.is_error:
            raise GradleReplError(getattr(result.content[0], "text", "").removeprefix("Error: "))
        contents = SessionContents.model_validate(result.structured_content)
        declarations = _internal(Declaration, contents.declarations)
        return SessionDescription(declarations=declarations, imports=contents.imports, libraries=contents.libraries)

    async def reset(self, session_id: str) -> bool:
        await self._client.call_tool("reset_kotlin_session", {"sessionId": session_id})
        return True

    async def reset_and_replay(self, session_id: str) -> tuple[Notice, ...]:
        """The server's session restarted and its snippets run again; the notices its reply carries."""
        result = await self._client.call_tool("reset_kotlin_session", {"sessionId": session_id, "replay": True})
        if result.is_error:
            raise GradleReplError(
                getattr(result.content[0], "text", "").removeprefix("Error: ") if result.content else "the reset failed"
            )
        return _notices(SessionReset.model_validate(result.structured_content or {}).notices)

    async def close_all(self) -> None:
        """Leaving keeps the session: it is the server's."""
