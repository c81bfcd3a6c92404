"""A reply as a terminal prints it, for repl, eval and check alike: output as it arrives, then what the session went
through, the compiler's warnings, the error or the value with its type, the heap and what the limits cut."""

from __future__ import annotations

import io
import re
from pathlib import Path

from gradle_repl.frames import (
    CheckResult,
    CodeDiagnostic,
    DisplayFrame,
    ErrorResult,
    FailureFrame,
    ProbeHit,
    ProbeLocal,
    StreamFrame,
    SuccessResult,
    TestFailureDetail,
    TestRunResult,
)
from gradle_repl.front.project_tests_report import run_report
from gradle_repl.front.reply_text import ReplyPrinter
from gradle_repl.host.handle import Analysis, Reply
from gradle_repl.host.notices import Notice

WARNING = "warning: Division by zero. (line 1, col 9)\n    val d = 1 / 0\n            ^"
HEAP = "memory: this session's heap is 91% full after garbage collection (700 of 768 MB)"


def _printed(action: str, *arguments: object) -> tuple[str, bool]:
    out = io.StringIO()
    failed = getattr(ReplyPrinter(out), action)(*arguments)
    return out.getvalue(), failed


def test_a_value_prints_after_the_notices_and_warnings_with_its_type_and_then_the_heap() -> None:
    """Notices, then warnings, then the value with its type, then the heap warning and the truncation note."""
    value = DisplayFrame(kind="text", mime="text/plain", data="0")
    reply = Reply(
        (),
        SuccessResult(
            value=value, value_type="kotlin.Int", compile_warnings=[WARNING], heap_warning=HEAP, truncated_bytes=7
        ),
        notices=(Notice(kind="restarted", text="[session restarted]"),),
    )
    text, failed = _printed("result", reply)
    assert not failed
    assert text.splitlines() == [
        "[session restarted]",
        *WARNING.splitlines(),
        "0   // kotlin.Int",
        HEAP,
        "[output truncated: 7 bytes cut by the output limits]",
    ]


def test_no_value_and_a_unit_value_print_no_type() -> None:
    """A declaration prints nothing, and a Unit value no type after it."""
    assert _printed("result", Reply((), SuccessResult())) == ("", False)
    unit = DisplayFrame(kind="text", mime="text/plain", data="kotlin.Unit")
    assert _printed("result", Reply((), SuccessResult(value=unit, value_type="kotlin.Unit")))[0] == "kotlin.Unit\n"


def test_an_error_is_labelled_once_and_its_stack_follows() -> None:
    """An error reads `error: …` once (a message that says error already is not labelled again), then its stack."""
    text, failed = _printed(
        "result",
        Reply((), ErrorResult(error_kind="runtime", message="java.lang.X: y", stack="    at snippet 2, line 1")),
    )
    assert failed and text.splitlines() == ["error: java.lang.X: y", "    at snippet 2, line 1"]
    text, _ = _printed(
        "result", Reply((), ErrorResult(error_kind="compile", message="error: Unresolved reference 'x'."))
    )
    assert text == "error: Unresolved reference 'x'.\n"


def test_output_prints_as_it_arrives_and_an_image_is_saved_to_the_file_it_names() -> None:
    """Printed output and text displays print as they are; an image is written to a file, whose path and size print."""
    out = io.StringIO()
    printer = ReplyPrinter(out)
    printer.frame(StreamFrame(event="stdout", data="a\n"))
    printer.frame(DisplayFrame(kind="html", mime="text/html", data="<b>x</b>"))
    printer.frame(DisplayFrame(kind="image", mime="image/png", data="iVBORw0KGgo="))
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["a", "<b>x</b>"]
    saved = re.fullmatch(r"\[image/png image, 8 bytes: (.+\.png)\]", lines[2])
    assert saved is not None and Path(saved[1]).read_bytes() == b"\x89PNG\r\n\x1a\n"


def test_a_check_prints_its_verdict_and_fails_only_on_errors() -> None:
    """A check prints its errors after the verdict and counts as failed when the code has errors or could not be checked."""
    error = CodeDiagnostic(severity="error", message="x", line=1, column=1, text="error: x (line 1, col 1)")
    text, failed = _printed("check", Analysis(CheckResult(compiled=False, diagnostics=[error]), ()))
    assert failed and text.splitlines() == ["Error: 1 error(s); nothing was run.", "error: x (line 1, col 1)"]
    text, failed = _printed("check", Analysis(CheckResult(compiled=True, value_type="kotlin.Int"), ()))
    assert not failed and text == "Compiles; nothing was run. Its value would be of type kotlin.Int.\n"
    assert _printed("check", Analysis(ErrorResult(error_kind="internal", message="boom"), ()))[1] is True


def test_a_runs_probe_hits_print_after_its_error_and_an_explained_failure_its_frames() -> None:
    hit = ProbeHit(
        at="shop.Cart.totalCents(Cart.kt:18)",
        probe=0,
        hit=1,
        thread="main",
        locals=[ProbeLocal(name="subtotal", type="kotlin.Long", value="1000")],
    )
    failed = ErrorResult(error_kind="runtime", message="java.lang.IllegalStateException: x", probe_hits=[hit])
    out = io.StringIO()
    assert ReplyPrinter(out).result(Reply((), failed))
    assert out.getvalue().splitlines() == [
        "error: java.lang.IllegalStateException: x",
        "[probe 0 hit 1] shop.Cart.totalCents(Cart.kt:18) on main",
        "  subtotal: kotlin.Long = 1000",
    ]
    failure = TestFailureDetail(
        test="shop.CartTest.oneItem",
        display_name="oneItem()",
        message="org.opentest4j.AssertionFailedError: expected: <2> but was: <1>",
        stack=["shop.CartTest.oneItem(CartTest.kt:9)"],
        frames=[FailureFrame(at="shop.CartTest.oneItem(CartTest.kt:9)", locals=hit.locals, this="CartTest()")],
    )
    report = run_report(TestRunResult(failed=1, failures=[failure]))
    assert report.splitlines()[3:7] == [
        "  what each frame held, the last time it reached its line:",
        "    shop.CartTest.oneItem(CartTest.kt:9)",
        "      subtotal: kotlin.Long = 1000",
        "      this = CartTest()",
    ]
