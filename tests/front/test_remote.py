"""The shell's --connect reads a server's run_kotlin_snippet result back into the reply it was made from, from the
result's structuredContent (an image's bytes from its image content, in order), never from where text blocks stand."""

from __future__ import annotations

import pytest
from mcp.types import CallToolResult, ImageContent, TextContent

from gradle_repl.errors import GradleReplError
from gradle_repl.frames import CompilerDiagnostic, DisplayFrame, ErrorResult, StreamFrame, SuccessResult
from gradle_repl.front.content import error_result, reply_to_result, request_failed
from gradle_repl.front.remote import reply_from_result, tool_arguments
from gradle_repl.host.handle import Reply
from gradle_repl.host.notices import Notice
from gradle_repl.target import SessionTarget

DIVISION_WARNING = "warning: Division by zero. (line 1, col 9)\n    val d = 1 / 0\n            ^"
HEAP_WARNING = "memory: this session's heap is 91% full after garbage collection (700 of 768 MB)"
PNG = "iVBORw0KGgo="
FRAMES = (
    StreamFrame(event="stdout", data="a\n"),
    DisplayFrame(kind="image", mime="image/png", data=PNG),
    StreamFrame(event="stdout", data="b\n"),
    StreamFrame(event="stderr", data="warn\n"),
    DisplayFrame(kind="html", mime="text/html", data="<script>x</script>"),
    DisplayFrame(kind="markdown", mime="text/markdown", data="**bold**"),
    DisplayFrame(kind="image", mime="image/jpeg", data="/9j/4AAQ"),
)
WARNING = CompilerDiagnostic(severity="warning", message="Division by zero.", line=1, column=9)


def test_a_result_read_back_is_the_reply_it_was_made_from() -> None:
    """Warnings (their text made again from the diagnostics and the code), value and type, every display in order with
    its kind, output per stream, notices and the heap warning; a failed run as its error."""
    value = DisplayFrame(kind="text", mime="text/plain", data="0")
    ok = SuccessResult(
        value=value,
        value_type="kotlin.Int",
        compile_warnings=[DIVISION_WARNING],
        diagnostics=[WARNING],
        heap_warning=HEAP_WARNING,
        truncated_bytes=3,
        duration_ms=5,
    )
    restarted = Notice(kind="restarted", text="[session restarted]")
    back = reply_from_result(reply_to_result(Reply(FRAMES, ok, notices=(restarted,))), "val d = 1 / 0")
    assert back.result == ok and back.notices == (restarted,)
    displays = tuple(frame for frame in FRAMES if isinstance(frame, DisplayFrame))
    assert back.frames == (
        StreamFrame(event="stdout", data="a\nb\n"),
        StreamFrame(event="stderr", data="warn\n"),
        *displays,
    )
    failed = ErrorResult(
        error_kind="runtime",
        message="java.lang.ArithmeticException: / by zero",
        stack="    at snippet 2, line 1",
        compile_warnings=[DIVISION_WARNING],
        diagnostics=[WARNING],
        state_lost=True,
    )
    assert reply_from_result(reply_to_result(Reply((), failed)), "val d = 1 / 0").result == failed


def test_an_image_value_and_image_displays_take_the_image_contents_in_order() -> None:
    """An image value takes the first image content, each image display the next, in the order shown."""
    value = DisplayFrame(kind="image", mime="image/gif", data="R0lGOD")
    ok = SuccessResult(value=value, value_type="java.awt.image.BufferedImage")
    back = reply_from_result(reply_to_result(Reply(FRAMES, ok)), "image(x)")
    assert back.result == ok
    assert [f.data for f in back.frames if isinstance(f, DisplayFrame) and f.kind == "image"] == [PNG, "/9j/4AAQ"]


def test_the_text_blocks_of_a_result_are_not_read() -> None:
    """Text content in another order, or none at all, reads back the same: only the data and the images count."""
    value = DisplayFrame(kind="text", mime="text/plain", data="42")
    made = reply_to_result(
        Reply(
            FRAMES,
            SuccessResult(
                value=value, value_type="kotlin.Int", compile_warnings=[DIVISION_WARNING], diagnostics=[WARNING]
            ),
        )
    )
    images = [block for block in made.content if isinstance(block, ImageContent)]
    shuffled = CallToolResult(
        content=[TextContent(type="text", text="something else"), *images, TextContent(type="text", text="more")],
        structured_content=made.structured_content,
    )
    assert reply_from_result(shuffled, "val d = 1 / 0") == reply_from_result(made, "val d = 1 / 0")


def test_a_result_naming_an_image_it_lacks_is_one_clear_error() -> None:
    """Data naming an image the result does not carry is a GradleReplError saying so, not an IndexError."""
    made = reply_to_result(Reply(FRAMES, SuccessResult()))
    stripped = CallToolResult(content=[], structured_content=made.structured_content)
    with pytest.raises(GradleReplError, match="names an image it does not carry"):
        reply_from_result(stripped, "x")


def test_a_call_that_could_not_run_reads_back_as_the_error_it_was() -> None:
    """A request error (the call ran nothing) comes back as the GradleReplError a session in this process raises."""
    with pytest.raises(GradleReplError, match="code is empty"):
        reply_from_result(error_result("code is empty", request_failed("code is empty")), "")


def test_a_target_is_the_tools_camel_case_arguments() -> None:
    """A SessionTarget becomes the code tools' five arguments under their published names."""
    target = SessionTarget("/p", ":app", "test", "maven", "s")
    assert tool_arguments(target) == {
        "projectRoot": "/p",
        "projectPath": ":app",
        "sourceSet": "test",
        "buildTool": "maven",
        "sessionId": "s",
    }
