"""Turns a snippet's reply into MCP content: the one place CallToolResults are made.

Order: the compiler's warnings (they were there before the snippet ran, and often explain its result),
the result text, display frames as emitted (images as ImageContent), then what the snippet printed,
stdout and stderr as trailing text blocks, and what running it left to know (the heap). An error is one
TextContent and isError=true: the compiler's warnings, "Error: …", then anything printed before it
folded in, so nothing is lost.
"""

from __future__ import annotations

from mcp.types import CallToolResult, ImageContent, TextContent

from gradle_repl.frames import DisplayFrame, ErrorResult, SnippetResult, StreamFrame, SuccessResult
from gradle_repl.host.handle import Reply

__all__ = ["reply_to_result", "error_result", "text_result"]

Content = TextContent | ImageContent


def text_result(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)])


def error_result(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=f"Error: {message}")], is_error=True)


def _display(frame: DisplayFrame) -> Content:
    if frame.kind == "image":
        return ImageContent(type="image", data=frame.data, mime_type=frame.mime)
    if frame.kind == "html":
        # HTML from a snippet is untrusted: it travels as labelled text, never rendered markup.
        return TextContent(type="text", text=f"[html]\n{frame.data}")
    return TextContent(type="text", text=frame.data)


def _printed(frames: tuple[StreamFrame | DisplayFrame, ...]) -> list[str]:
    """Consecutive stdout/stderr frames merged into labelled blocks, in the order printed."""
    blocks: list[tuple[str, str]] = []
    for frame in frames:
        if isinstance(frame, StreamFrame):
            if blocks and blocks[-1][0] == frame.event:
                blocks[-1] = (frame.event, blocks[-1][1] + frame.data)
            else:
                blocks.append((frame.event, frame.data))
    return [f"[{stream}]\n{text.rstrip(chr(10))}" for stream, text in blocks]


def _result_text(result: SuccessResult) -> list[Content]:
    if result.value is None:
        return [TextContent(type="text", text=f"OK (no value){_type_line(result)}")]
    if result.value.kind == "image":
        return [TextContent(type="text", text=f"{result.value.mime} image{_type_line(result)}"), _display(result.value)]
    return [TextContent(type="text", text=f"{result.value.data}{_type_line(result)}")]


def _type_line(result: SuccessResult) -> str:
    return f"\n// type: {result.value_type}" if result.value_type and result.value_type != "kotlin.Unit" else ""


def _heap(result: SnippetResult) -> list[str]:
    return [result.heap_warning] if result.heap_warning is not None else []


def _truncation_note(result: SnippetResult) -> list[str]:
    if result.truncated_bytes:
        return [f"[output truncated: {result.truncated_bytes} bytes cut by the output limits]"]
    return []


def reply_to_result(reply: Reply) -> CallToolResult:
    result = reply.result
    if isinstance(result, ErrorResult):
        parts = [*result.compile_warnings, f"Error: {result.message}"]
        if result.stack:
            parts.append(result.stack)
        parts += [*_heap(result), *_printed(reply.frames), *_truncation_note(result), *reply.notices]
        return CallToolResult(content=[TextContent(type="text", text="\n".join(parts))], is_error=True)
    content: list[Content] = [TextContent(type="text", text=w) for w in result.compile_warnings]
    content += _result_text(result)
    content += [_display(f) for f in reply.frames if isinstance(f, DisplayFrame)]
    trailing = [*_printed(reply.frames), *_heap(result), *_truncation_note(result), *reply.notices]
    content += [TextContent(type="text", text=block) for block in trailing]
    return CallToolResult(content=content)
