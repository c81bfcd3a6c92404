"""Known K2 REPL defects are named with their way around, from the failure's facts alone."""

from __future__ import annotations

from gradle_repl.worker.results.repl_defects import known_repl_defect
from gradle_repl.worker.results.report import StackFrame, ThrowableInfo

_EVALUATOR = "org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplEvaluator"


def test_a_value_class_result_on_kotlin_2_2_is_named_with_its_way_around() -> None:
    """2.2's evaluator fails on its own lookup of the snippet's body method (an NPE at its top): one line, no stack."""
    chain = [
        ThrowableInfo(
            "java.lang.NullPointerException", None, (StackFrame(_EVALUATOR, "evalSnippet", "K2ReplEvaluator.kt", 54),)
        )
    ]
    message = known_repl_defect(chain)
    assert message is not None and "\n" not in message
    assert "Kotlin 2.2" in message and "value class" in message and ".toString()" in message


def test_other_internal_errors_are_left_as_they_are() -> None:
    """An NPE elsewhere, or another exception from the evaluator, is not taken for the value-class defect."""
    elsewhere = ThrowableInfo(
        "java.lang.NullPointerException",
        None,
        (StackFrame("org.jetbrains.kotlin.fir.backend.Fir2IrVisitor", "visitSimpleFunction", None, 485),),
    )
    other = ThrowableInfo("java.lang.IllegalStateException", "x", (StackFrame(_EVALUATOR, "evalSnippet", None, 54),))
    assert known_repl_defect([elsewhere]) is None
    assert known_repl_defect([other]) is None
    assert known_repl_defect([]) is None
