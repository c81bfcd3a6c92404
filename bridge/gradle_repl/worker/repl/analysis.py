"""Answers to questions about code that never runs: a check's diagnostics and type, a completion's candidates.

Pure mapping from what the facade reported to frames; the facade compiles in the session's state and takes the
compilation back (jvm-worker CompilerMarks.kt), so nothing here can change the session.
"""

from __future__ import annotations

from gradle_repl.frames import CheckResult, CodeDiagnostic, ErrorResult
from gradle_repl.worker.java import SnippetOutcome
from gradle_repl.worker.results.kotlin_types import kotlin_type_name
from gradle_repl.worker.results.outcomes import REPORTED_SEVERITIES, read_diagnostic, throwable_chain, wire_diagnostic
from gradle_repl.worker.results.report import Diagnostic, format_diagnostic, format_throwable
from gradle_repl.worker.results.safety import jstr

__all__ = ["check_result", "code_diagnostics"]


def code_diagnostics(diagnostics: list[Diagnostic], code: str) -> list[CodeDiagnostic]:
    """Each diagnostic worth a user's eye, errors first, each rendered as a run shows it."""
    kept = sorted(
        (d for d in diagnostics if d.severity in REPORTED_SEVERITIES),
        key=lambda d: (d.severity == "WARNING", d.line or 0, d.column or 0),
    )
    return [CodeDiagnostic(**wire_diagnostic(d).model_dump(), text=format_diagnostic(d, code)) for d in kept]


def check_result(outcome: SnippetOutcome | None, code: str) -> CheckResult | ErrorResult:
    """A check's answer from the facade's outcome: diagnostics, and the value's type when the code compiles."""
    if outcome is None:
        return ErrorResult(error_kind="internal", message="the check ended without an outcome")
    if outcome.internalError is not None:
        headline, stack = format_throwable(throwable_chain(outcome.internalError))
        return ErrorResult(error_kind="internal", message=f"checking failed inside the REPL: {headline}", stack=stack)
    diagnostics = code_diagnostics([read_diagnostic(d) for d in outcome.diagnostics], code)
    compiled = bool(outcome.compiled) and not any(d.severity == "error" for d in diagnostics)
    # The compiled snippet's result field names the type; a snippet without a value has none, and Kotlin 2.2's REPL
    # compiler records none at all.
    value_type = kotlin_type_name(jstr(outcome.valueType)) if compiled and outcome.valueType is not None else None
    return CheckResult(diagnostics=diagnostics, compiled=compiled, value_type=value_type)
