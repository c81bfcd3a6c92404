"""Maps what the facade's driver reports for one snippet (its SnippetOutcome) to the result frame users get.

Compile errors with their positions, runtime errors with the user's part of the stack, a value rendered
with its Kotlin type, or Unit; an OutOfMemoryError is the one runtime error that costs the JVM.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from gradle_repl.frames import CompilerDiagnostic, DisplayFrame, ErrorResult, SuccessResult
from gradle_repl.worker.java import JavaObject, SnippetOutcome, java_class
from gradle_repl.worker.results.failed_uses import FailedUse
from gradle_repl.worker.results.kotlin_types import kotlin_type_name, without_snippet_classes
from gradle_repl.worker.results.output_frames import SnippetOutput
from gradle_repl.worker.results.repl_defects import known_repl_defect
from gradle_repl.worker.results.report import Diagnostic, StackFrame, ThrowableInfo, format_diagnostic, format_throwable
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.snippet_names import snippet_body_method

__all__ = [
    "ExplainFailedUse",
    "snippet_result",
    "throwable_chain",
    "failure_details",
    "wire_diagnostic",
    "read_diagnostic",
    "REPORTED_SEVERITIES",
]

# The compiler's severities a user is shown; INFO and LOGGING are the compiler talking to itself.
REPORTED_SEVERITIES = ("ERROR", "FATAL", "WARNING")

# Cause chains can be cyclic; a readable report never needs more than this many.
_MAX_CAUSES = 20

# What a runtime error met of failed snippets' declarations (worker/repl/failures.py), when that is what it was.
ExplainFailedUse = Callable[[list[ThrowableInfo]], FailedUse | None]


def snippet_result(
    outcome: SnippetOutcome, code: str, output: SnippetOutput, *, heap_mb: int, explain: ExplainFailedUse
) -> SuccessResult | ErrorResult:
    """The result of a snippet that ran to its end (not stopped), from the driver's outcome."""
    diagnostics = [read_diagnostic(d) for d in outcome.diagnostics]
    compile_warnings = [format_diagnostic(d, code) for d in diagnostics if d.severity == "WARNING"]
    if outcome.internalError is not None:
        chain = throwable_chain(outcome.internalError)
        if (defect := known_repl_defect(chain)) is not None:
            # The REPL refused what the user wrote: like a compile error, it is theirs to write another way.
            return ErrorResult(error_kind="compile", message=defect, compile_warnings=compile_warnings)
        headline, stack = format_throwable(chain)
        return ErrorResult(error_kind="internal", message=f"REPL failure: {headline}", stack=stack)
    # Errors and warnings as data too, for clients that read structured results.
    as_data = [wire_diagnostic(d) for d in diagnostics if d.severity in REPORTED_SEVERITIES]
    if not outcome.compiled:
        errors = [format_diagnostic(d, code) for d in diagnostics if d.severity in ("ERROR", "FATAL")]
        return ErrorResult(
            error_kind="compile",
            message="\n".join(errors) or "compilation failed without a diagnostic",
            compile_warnings=compile_warnings,
            diagnostics=as_data,
        )
    result = outcome.result
    if result is None:
        return _not_evaluated()
    kind = str(result.getClass().getSimpleName())
    if kind == "Error":
        chain = throwable_chain(result.getError())
        headline, stack = format_throwable(chain)
        if any(info.class_name == "java.lang.OutOfMemoryError" for info in chain):
            return ErrorResult(
                error_kind="out_of_memory",
                state_lost=True,
                message=f"{headline}\nThe session's JVM ran out of its {heap_mb} MB heap; "
                "the worker was replaced and the session's state is lost.",
                stack=stack,
            )
        if (use := explain(chain)) is not None:
            # The error's frames are REPL internals, not the user's code: the message says it all.
            return ErrorResult(
                error_kind="runtime", message=use.message(), compile_warnings=compile_warnings, diagnostics=as_data
            )
        return ErrorResult(
            error_kind="runtime", message=headline, stack=stack, compile_warnings=compile_warnings, diagnostics=as_data
        )
    if kind == "Value":
        value_type = kotlin_type_name(_declared_type(result))
        rendered = outcome.rendered
        if rendered is not None:
            value = output.display(rendered)
            if value.kind == "text":
                # A toString() of Any's (`_5_repl$K@1b2c3d`) reads with the class as the user wrote it (`K@1b2c3d`).
                value.data = without_snippet_classes(value.data)
        else:  # rendering threw: ReplDriver.kt sets either rendered or renderError
            headline, _ = format_throwable(throwable_chain(outcome.renderError))
            value = DisplayFrame(kind="text", mime="text/plain", data=f"<toString() threw {headline}>")
        return SuccessResult(value=value, value_type=value_type, compile_warnings=compile_warnings, diagnostics=as_data)
    if kind == "Unit":
        return SuccessResult(value_type="kotlin.Unit", compile_warnings=compile_warnings, diagnostics=as_data)
    return _not_evaluated()


def _not_evaluated() -> ErrorResult:
    return ErrorResult(error_kind="internal", message="the snippet was compiled but not evaluated")


def failure_details(outcome: SnippetOutcome | None) -> list[str]:
    """What a compile that produced nothing said: the compiler's messages, then the internal error's report."""
    if outcome is None:
        return []
    details = [str(d.getMessage()) for d in outcome.diagnostics]
    if outcome.internalError is not None:
        details.append("\n".join(format_throwable(throwable_chain(outcome.internalError))))
    return details


def throwable_chain(throwable: JavaObject) -> list[ThrowableInfo]:
    """A Java throwable and its causes as plain data, outermost first."""
    chain: list[ThrowableInfo] = []
    while throwable is not None and len(chain) < _MAX_CAUSES:
        frames = tuple(
            StackFrame(
                class_name=str(e.getClassName()),
                method=str(e.getMethodName()),
                file=str(e.getFileName()) if e.getFileName() is not None else None,
                line=int(e.getLineNumber()),
            )
            for e in throwable.getStackTrace()
        )
        message = throwable.getMessage()
        chain.append(
            ThrowableInfo(str(throwable.getClass().getName()), jstr(message) if message is not None else None, frames)
        )
        cause = throwable.getCause()
        throwable = cause if cause is not None and not cause.equals(throwable) else None
    return chain


def _declared_type(result: JavaObject) -> str:
    """The result's type as the REPL reports it; where that is an erased JVM name (Kotlin 2.2), the result
    snippet's generic return type, so `List<Int>` doesn't read as a bare `java.util.List`."""
    reported = jstr(result.getType())
    if reported.startswith("kotlin.") or "->" in reported or "<" in reported:
        return reported
    try:
        owner = java_class("kotlin.jvm.JvmClassMappingKt").getJavaClass(result.getScriptClass())
        # K2 snippets return their value from their body method; its generic return type is the value's declared type.
        method = owner.getDeclaredMethod(snippet_body_method())
        if jstr(method.getReturnType().getName()) == reported:
            return jstr(method.getGenericReturnType().getTypeName())
        return reported
    except Exception:  # noqa: BLE001 - another REPL layout: the reported name will do
        return reported


def wire_diagnostic(d: Diagnostic) -> CompilerDiagnostic:
    """A diagnostic as the result frame carries it as data."""
    severity: Literal["error", "warning"] = "warning" if d.severity == "WARNING" else "error"
    return CompilerDiagnostic(severity=severity, message=d.message, line=d.line, column=d.column)


def read_diagnostic(d: JavaObject) -> Diagnostic:
    location = d.getLocation()
    start = location.getStart() if location is not None else None
    # Kotlin 2.3 names a snippet's class in diagnostics as the REPL nests it (`'_2_repl.K' was expected`).
    message = without_snippet_classes(jstr(d.getMessage()))
    if d.getException() is not None:
        message += f" ({d.getException()})"
    return Diagnostic(
        severity=str(d.getSeverity().name()),
        message=message,
        line=int(start.getLine()) if start is not None else None,
        column=int(start.getCol()) if start is not None else None,
    )
