"""Replies become MCP content in a fixed order; errors are one text block with nothing dropped."""

from mcp.types import ImageContent, TextContent

from gradle_repl.frames import (
    CompilerDiagnostic,
    DisplayFrame,
    ErrorResult,
    ProbeCapture,
    ProbeHit,
    ProbeLocal,
    StreamFrame,
    SuccessResult,
)
from gradle_repl.front.content import reply_to_result
from gradle_repl.host.handle import Reply
from gradle_repl.host.notices import Notice

FRAMES = (
    StreamFrame(event="stdout", data="a\n"),
    DisplayFrame(kind="image", mime="image/png", data="iVBORw0KGgo="),
    StreamFrame(event="stdout", data="b\n"),
    StreamFrame(event="stderr", data="warn\n"),
    DisplayFrame(kind="html", mime="text/html", data="<script>x</script>"),
)


def test_success_orders_result_displays_then_output() -> None:
    value = DisplayFrame(kind="text", mime="text/plain", data="42")
    result = reply_to_result(Reply(FRAMES, SuccessResult(value=value, value_type="kotlin.Int", truncated_bytes=7)))
    assert not result.is_error
    shapes = [
        b.text if isinstance(b, TextContent) else ("image", b.mime_type) if isinstance(b, ImageContent) else b
        for b in result.content
    ]
    assert shapes == [
        "42\n// type: kotlin.Int",
        ("image", "image/png"),
        "[html]\n<script>x</script>",
        "[stdout]\na\nb",
        "[stderr]\nwarn",
        "[output truncated: 7 bytes cut by the output limits]",
    ]
    assert isinstance(result.content[1], ImageContent) and result.content[1].data == "iVBORw0KGgo="


def test_error_is_one_text_block_with_stack_and_output_folded_in() -> None:
    reply = Reply(
        FRAMES,
        ErrorResult(error_kind="runtime", message="java.lang.X: y", stack="    at _2_repl.f(_2.repl.kts:1)"),
        notices=(Notice(kind="restarted", text="[session restarted]"),),
    )
    result = reply_to_result(reply)
    assert result.is_error and len(result.content) == 1
    assert isinstance(result.content[0], TextContent), result.content
    assert result.content[0].text.splitlines() == [
        "Error: java.lang.X: y",
        "    at _2_repl.f(_2.repl.kts:1)",
        "[stdout]",
        "a",
        "b",
        "[stderr]",
        "warn",
        "[session restarted]",
    ]


DIVISION_WARNING = "warning: Division by zero. (line 1, col 9)\n    val d = 1 / 0\n            ^"
HEAP_WARNING = "memory: this session's heap is 91% full after garbage collection (700 of 768 MB)"


def test_compile_warnings_come_before_the_result_and_the_heap_after_it() -> None:
    """The compiler's warnings precede the value they may explain; what running left to know follows the output."""
    value = DisplayFrame(kind="text", mime="text/plain", data="0")
    result = SuccessResult(
        value=value, value_type="kotlin.Int", compile_warnings=[DIVISION_WARNING], heap_warning=HEAP_WARNING
    )
    texts = [
        b.text if isinstance(b, TextContent) else b
        for b in reply_to_result(Reply((StreamFrame(event="stdout", data="a\n"),), result)).content
    ]
    assert texts == [DIVISION_WARNING, "0\n// type: kotlin.Int", "[stdout]\na", HEAP_WARNING]


def test_an_errors_block_starts_with_the_compile_warnings_that_explain_it() -> None:
    """A runtime error after a compile warning reads in the order it happened: the warning, then the error."""
    result = ErrorResult(
        type="error",
        error_kind="runtime",
        message="java.lang.ArithmeticException: / by zero",
        stack="    at _2_repl.$$eval(_2.repl.kts:1)",
        compile_warnings=[DIVISION_WARNING],
    )
    (block,) = reply_to_result(Reply((), result)).content
    assert isinstance(block, TextContent), block
    assert block.text.splitlines() == [
        *DIVISION_WARNING.splitlines(),
        "Error: java.lang.ArithmeticException: / by zero",
        "    at _2_repl.$$eval(_2.repl.kts:1)",
    ]


def test_a_reply_as_data_says_what_the_text_says_field_by_field() -> None:
    """structuredContent beside the text: value and type, output per stream, displays counted, notices with their
    kind (the heap warning among them as memory); an error's kind, position and whether the state is gone."""
    value = DisplayFrame(kind="text", mime="text/plain", data="0")
    ok = SuccessResult(value=value, value_type="kotlin.Int", heap_warning=HEAP_WARNING, duration_ms=12)
    restarted = Notice(kind="restarted", text="[session restarted]")
    data = reply_to_result(Reply(FRAMES, ok, notices=(restarted,))).structured_content
    assert data == {
        "ok": True,
        "value": "0",
        "valueType": "kotlin.Int",
        "valueKind": "text",
        "error": None,
        "diagnostics": [],
        "valueMime": "text/plain",
        "stdout": "a\nb\n",
        "stderr": "warn\n",
        "displayCount": 2,
        "truncatedBytes": 0,
        "displays": [
            {"kind": "image", "mime": "image/png", "text": None},
            {"kind": "html", "mime": "text/html", "text": "<script>x</script>"},
        ],
        "notices": [{"kind": "restarted", "text": "[session restarted]"}, {"kind": "memory", "text": HEAP_WARNING}],
        "probeHits": [],
        "probeNotes": [],
        "durationMs": 12,
    }
    failed = ErrorResult(
        error_kind="compile",
        message="error: x",
        diagnostics=[CompilerDiagnostic(severity="error", message="x", line=2, column=5)],
    )
    data = reply_to_result(Reply((), failed)).structured_content
    assert data["ok"] is False and data["value"] is None
    assert data["error"] == {"kind": "compile", "message": "error: x", "stack": "", "stateLost": False}
    assert data["diagnostics"] == [{"severity": "error", "message": "x", "line": 2, "column": 5}]
    lost = ErrorResult(error_kind="timeout", message="stopped", state_lost=True)
    assert reply_to_result(Reply((), lost)).structured_content["error"]["stateLost"] is True


def test_a_completion_that_needs_an_import_says_so_in_text_and_carries_it_as_an_edit_in_data() -> None:
    from gradle_repl.frames import Completion, CompletionResult, TextEdit
    from gradle_repl.front.content import completion_to_result
    from gradle_repl.host.handle import Analysis

    edit = TextEdit(start=0, end=0, text="import java.io.File\n")
    items = [
        Completion(text="FileTreeWalk", kind="class", detail="kotlin.io"),
        Completion(text="File", kind="class", detail="java.io", edits=[edit]),
    ]
    result = completion_to_result(Analysis(CompletionResult(prefix_start=8, items=items)))
    assert isinstance(result.content[0], TextContent)
    assert (
        result.content[0].text
        == "FileTreeWalk    (class: kotlin.io)\nFile    (class: java.io)    + import java.io.File"
    )
    assert result.structured_content is not None
    assert result.structured_content["items"][1]["edits"] == [{"start": 0, "end": 0, "text": "import java.io.File\n"}]
    assert result.structured_content["items"][0]["edits"] == []


def test_probe_hits_follow_the_result_in_the_text_and_are_data() -> None:
    hit = ProbeHit(
        at="shop.Cart.totalCents(Cart.kt:18)",
        probe=0,
        hit=1,
        thread="main",
        locals=[ProbeLocal(name="subtotal", type="kotlin.Long", value="1000")],
        this="Cart(items=[])",
        captured=[
            ProbeCapture(expression="size > 10", value="false", type="kotlin.Boolean"),
            ProbeCapture(expression="items[3]", error="java.lang.IndexOutOfBoundsException: 3"),
        ],
        stack=["shop.Cart.totalCents(Cart.kt:18)", "snippet 1, line 1"],
    )
    value = DisplayFrame(kind="text", mime="text/plain", data="1000")
    result = SuccessResult(
        value=value, value_type="kotlin.Long", probe_hits=[hit], probe_notes=["2 more hits left out"]
    )
    reply = reply_to_result(Reply((), result, ()))
    texts = [block.text for block in reply.content if isinstance(block, TextContent)]
    assert texts[0].startswith("1000")
    assert texts[1] == (
        "[probe 0 hit 1] shop.Cart.totalCents(Cart.kt:18) on main\n"
        "  subtotal: kotlin.Long = 1000\n"
        "  this = Cart(items=[])\n"
        "  size > 10 = false\n"
        "  items[3] threw java.lang.IndexOutOfBoundsException: 3\n"
        "[probes] 2 more hits left out"
    )
    data = reply.structured_content or {}
    assert data["probeHits"][0]["captured"][1] == {
        "expression": "items[3]",
        "value": None,
        "type": None,
        "error": "java.lang.IndexOutOfBoundsException: 3",
    }
    assert data["probeNotes"] == ["2 more hits left out"]
