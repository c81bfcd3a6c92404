"""Turns a snippet's reply into MCP content: the one place CallToolResults are made. (How a reply reads in a
terminal is front/reply_text.py's; how a client reads a result back into a reply, front/remote.py's.)

Every result that carries data carries it twice: as content (text and images, for clients that read text only,
unchanged) and as `structuredContent`, the tool's output model (front/outputs.py) dumped by alias.

Order: the compiler's warnings (they were there before the snippet ran, and often explain its result),
the result text, display frames as emitted (images as ImageContent), then what the snippet printed,
stdout and stderr as trailing text blocks, and what running it left to know (the heap). An error is one
TextContent and isError=true: the compiler's warnings, "Error: …", then anything printed before it
folded in, so nothing is lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# The SDK's wire types from their own package: `mcp.types` would import the whole SDK (client and server, ~0.4 s)
# into every CLI process that only prints a result.
from mcp_types import CallToolResult, ContentBlock, ImageContent, TextContent
from pydantic import BaseModel

from gradle_repl.display_kinds import DISPLAY_KINDS
from gradle_repl.frames import (
    CheckResult,
    CompletionResult,
    DisplayFrame,
    ErrorResult,
    SnippetResult,
    StreamFrame,
    SuccessResult,
    TestRunResult,
)
from gradle_repl.front.outputs import (
    CodeCheck,
    CodeCompletions,
    DisplayItem,
    NoticeItem,
    ProjectTestRun,
    SnippetError,
    SnippetRun,
    Wire,
    wire_list,
)
from gradle_repl.front.probe_report import probe_report
from gradle_repl.front.project_tests_report import fit_test_run, run_report
from gradle_repl.front.reply_text import check_text, shown_type, truncation_note
from gradle_repl.host.handle import Analysis, Reply, TestReply
from gradle_repl.host.notices import Notice

__all__ = [
    "CallToolResult",
    "SHARED_FIELDS",
    "carried",
    "reply_to_result",
    "error_result",
    "text_result",
    "snippet_run",
    "request_failed",
    "check_to_result",
    "completion_text",
    "completion_to_result",
    "check_failed",
    "completion_failed",
    "printed_blocks",
    "test_reply_to_result",
    "tests_failed",
]

Content = TextContent | ImageContent
# HTML from a snippet is labelled text, never markup a client would render.
_HTML_LABEL = "[html]\n"


# What a result and its tool's data say alike: fields of one name and one shape, carried as they are both ways (here
# into the data; front/remote.py reads them back into the result), so the two directions can't drift apart. Each
# writes by hand only what differs: a value split into kind, MIME and text, output merged per stream, the heap warning
# as a notice, an error's kind.
SHARED_FIELDS: dict[type[Wire], frozenset[str]] = {
    SnippetRun: frozenset({"diagnostics", "truncated_bytes", "duration_ms", "probe_hits", "probe_notes"}),
    SnippetError: frozenset({"message", "stack", "state_lost"}),
    CodeCheck: frozenset({"value_type", "diagnostics", "duration_ms"}),
    CodeCompletions: frozenset({"items", "prefix_start", "unavailable", "duration_ms"}),
    ProjectTestRun: frozenset(
        {"passed", "failed", "skipped", "aborted", "duration_ms", "failures", "stopped", "probe_hits", "probe_notes"}
    ),
}


def carried(source: BaseModel, data: type[Wire]) -> dict[str, Any]:
    """The fields a result shares with its tool's data model (SHARED_FIELDS), read from either one as plain data by
    their Python names, for the other side's model to validate: the data from a result, or the result back."""
    return source.model_dump(include=set(SHARED_FIELDS[data]), by_alias=False)


def _data(data: Wire | None) -> dict[str, object] | None:
    return data.model_dump(mode="json", by_alias=True) if data is not None else None


def text_result(text: str, data: Wire | None = None) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=_data(data))


def error_result(message: str, data: Wire | None = None) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=f"Error: {message}")], is_error=True, structured_content=_data(data)
    )


def request_failed(message: str) -> SnippetRun:
    """A run_kotlin_snippet call that could not run its snippet (bad arguments, a failed build), as data."""
    return SnippetRun(ok=False, error=SnippetError(kind="request", message=message))


def _display(frame: DisplayFrame) -> Content:
    if DISPLAY_KINDS[frame.kind].binary:
        return ImageContent(type="image", data=frame.data, mime_type=frame.mime)
    if DISPLAY_KINDS[frame.kind].untrusted_markup:
        # HTML from a snippet is untrusted: it travels as labelled text, never rendered markup.
        return TextContent(type="text", text=f"{_HTML_LABEL}{frame.data}")
    return TextContent(type="text", text=frame.data)


def printed_blocks(frames: Sequence[StreamFrame | DisplayFrame]) -> list[tuple[str, str]]:
    """Consecutive stdout/stderr frames merged, as (stream, text) in the order printed: how a worker chunked what a
    snippet printed is no part of what it printed."""
    blocks: list[tuple[str, str]] = []
    for frame in frames:
        if isinstance(frame, StreamFrame):
            if blocks and blocks[-1][0] == frame.event:
                blocks[-1] = (frame.event, blocks[-1][1] + frame.data)
            else:
                blocks.append((frame.event, frame.data))
    return blocks


def _printed(frames: tuple[StreamFrame | DisplayFrame, ...]) -> list[str]:
    """Consecutive stdout/stderr frames merged into labelled blocks, in the order printed."""
    return [f"[{stream}]\n{text.rstrip(chr(10))}" for stream, text in printed_blocks(frames)]


def _result_text(result: SuccessResult) -> list[Content]:
    if result.value is None:
        return [TextContent(type="text", text=f"OK (no value){_type_line(result)}")]
    if DISPLAY_KINDS[result.value.kind].binary:
        return [TextContent(type="text", text=f"{result.value.mime} image{_type_line(result)}"), _display(result.value)]
    return [TextContent(type="text", text=f"{result.value.data}{_type_line(result)}")]


def _type_line(result: SuccessResult) -> str:
    typed = shown_type(result.value_type)
    return f"\n// type: {typed}" if typed else ""


def _heap(result: SnippetResult) -> list[str]:
    return [result.heap_warning] if result.heap_warning is not None else []


def _probes(result: SnippetResult | TestRunResult) -> list[str]:
    report = probe_report(result.probe_hits, result.probe_notes)
    return [report] if report is not None else []


def _truncation_note(result: SnippetResult) -> list[str]:
    note = truncation_note(result.truncated_bytes)
    return [note] if note is not None else []


def snippet_run(reply: Reply) -> SnippetRun:
    """A snippet's reply as data: what the text content says, field by field."""
    result = reply.result
    streams = {"stdout": "", "stderr": ""}
    for frame in reply.frames:
        if isinstance(frame, StreamFrame):
            streams[frame.event] += frame.data
    notices = [*reply.notices, *(Notice(kind="memory", text=warning) for warning in _heap(result))]
    displays = [frame for frame in reply.frames if isinstance(frame, DisplayFrame)]
    run = SnippetRun(
        **carried(result, SnippetRun),
        ok=not isinstance(result, ErrorResult),
        display_count=len(displays),
        displays=[
            DisplayItem(kind=d.kind, mime=d.mime, text=None if DISPLAY_KINDS[d.kind].binary else d.data)
            for d in displays
        ],
        notices=wire_list(NoticeItem, notices),
        stdout=streams["stdout"],
        stderr=streams["stderr"],
    )
    if isinstance(result, ErrorResult):
        run.error = _worker_error(result)
    else:
        run.value_type = result.value_type
        if result.value is not None:
            run.value_kind = result.value.kind
            run.value_mime = result.value.mime
            run.value = result.value.data if not DISPLAY_KINDS[result.value.kind].binary else None
    return run


def reply_to_result(reply: Reply) -> CallToolResult:
    result = reply.result
    notices = [notice.text for notice in reply.notices]
    data = _data(snippet_run(reply))
    if isinstance(result, ErrorResult):
        parts = [*result.compile_warnings, f"Error: {result.message}"]
        if result.stack:
            parts.append(result.stack)
        parts += [*_probes(result), *_heap(result), *_printed(reply.frames), *_truncation_note(result), *notices]
        return CallToolResult(
            content=[TextContent(type="text", text="\n".join(parts))], is_error=True, structured_content=data
        )
    content: list[ContentBlock] = [TextContent(type="text", text=w) for w in result.compile_warnings]
    content += _result_text(result)
    content += [_display(f) for f in reply.frames if isinstance(f, DisplayFrame)]
    trailing = [*_probes(result), *_printed(reply.frames), *_heap(result), *_truncation_note(result), *notices]
    content += [TextContent(type="text", text=block) for block in trailing]
    return CallToolResult(content=content, structured_content=data)


def _worker_error(result: ErrorResult) -> SnippetError:
    """A worker's error result as the tools' data: its kind, message, stack and whether the session's state is gone."""
    return SnippetError(**carried(result, SnippetError), kind=result.error_kind)


def check_failed(message: str) -> CodeCheck:
    """A check_kotlin_snippet call that could not check its code (bad arguments, a failed build), as data."""
    return CodeCheck(ok=False, error=SnippetError(kind="request", message=message))


def check_to_result(analysis: Analysis) -> CallToolResult:
    """A check as MCP content and data: isError only when the code has errors (warnings alone compile)."""
    result = analysis.result
    notices = list(analysis.notices)
    if isinstance(result, ErrorResult):
        data = CodeCheck(ok=False, error=_worker_error(result), notices=wire_list(NoticeItem, notices))
        return error_result(
            "\n".join([result.message, *([result.stack] if result.stack else []), *map(str, notices)]), data
        )
    assert isinstance(result, CheckResult)
    data = CodeCheck(**carried(result, CodeCheck), ok=result.compiled, notices=wire_list(NoticeItem, notices))
    text = "\n".join([check_text(result), *map(str, notices)])
    return CallToolResult(
        content=[TextContent(type="text", text=text)], is_error=not result.compiled, structured_content=_data(data)
    )


def completion_text(result: CompletionResult) -> str:
    """One candidate a line, best first: the text to insert, its kind and its signature or type, and the import it
    adds (`+ import java.io.File`) when it needs one."""
    if result.unavailable is not None:
        return f"Completion unavailable: {result.unavailable}"
    if not result.items:
        return "No completions here."
    return "\n".join(
        f"{item.text}    ({item.kind}{': ' + item.detail if item.detail else ''})"
        + "".join(f"    + {edit.text.strip()}" for edit in item.edits)
        for item in result.items
    )


def completion_failed(message: str) -> CodeCompletions:
    """A complete_kotlin_snippet call that could not complete (bad arguments, a failed build), as data."""
    return CodeCompletions(ok=False, error=SnippetError(kind="request", message=message))


def completion_to_result(analysis: Analysis) -> CallToolResult:
    """Candidates as one text line each and as data; a session that can't complete says why, with isError."""
    result = analysis.result
    notices = list(analysis.notices)
    if isinstance(result, ErrorResult):
        data = CodeCompletions(
            ok=False,
            error=SnippetError(kind=result.error_kind, message=result.message, state_lost=result.state_lost),
            notices=wire_list(NoticeItem, notices),
        )
        return error_result("\n".join([result.message, *map(str, notices)]), data)
    assert isinstance(result, CompletionResult)
    data = CodeCompletions(
        **carried(result, CodeCompletions), ok=result.unavailable is None, notices=wire_list(NoticeItem, notices)
    )
    text = "\n".join([completion_text(result), *map(str, notices)])
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        is_error=result.unavailable is not None,
        structured_content=_data(data),
    )


def tests_failed(message: str) -> ProjectTestRun:
    """A run_project_tests call that could not run the tests (bad arguments, a failed build), as data."""
    return ProjectTestRun(ok=False, error=SnippetError(kind="request", message=message))


def test_reply_to_result(reply: TestReply) -> CallToolResult:
    """A test run as a few lines of text (failures, then the summary line) and as data; isError only when the tests
    could not run: failing tests are the run's answer, not the call's error."""
    result = reply.result
    notices = [notice.text for notice in reply.notices]
    if isinstance(result, ErrorResult):
        data = ProjectTestRun(ok=False, error=_worker_error(result), notices=wire_list(NoticeItem, reply.notices))
        return CallToolResult(
            content=[TextContent(type="text", text="\n".join([f"Error: {result.message}", *notices]))],
            is_error=True,
            structured_content=_data(data),
        )
    fitted, cut = fit_test_run(result)
    data = ProjectTestRun(
        **carried(fitted, ProjectTestRun),
        ok=True,
        cut=cut,
        notices=wire_list(
            NoticeItem,
            [
                *reply.notices,
                *(Notice(kind="tests", text=n) for n in fitted.failed_only_notes),
                *(Notice(kind="environment", text=n) for n in fitted.notices),
            ],
        ),
    )
    text = "\n".join([*notices, run_report(fitted, cut), *_probes(fitted)])
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=_data(data))
