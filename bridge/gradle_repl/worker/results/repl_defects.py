"""Names a known K2 REPL defect that a snippet met, with the way around it, in place of the compiler's stack trace.

What the worker can work around it does (jvm-worker `SnippetModifiers.kt`: `internal` and `const`;
`MangledBodyEvaluation.kt`: a value-class value on 2.2, when the value class can be named); what remains is
recognised here from the failure's own facts (which REPL method failed how), not from a Kotlin version number.
Pure functions over plain data, tested without a JVM.
"""

from __future__ import annotations

from gradle_repl.worker.results.report import ThrowableInfo

__all__ = ["known_repl_defect"]

_NPE = "java.lang.NullPointerException"
# Kotlin 2.2's evaluator looks the snippet's body method up by its plain name (`$$eval`, non-null asserted); a snippet
# whose value is of a value class has it mangled (`$$eval-<hash>`), so the lookup fails before the snippet runs.
_EVALUATOR = "org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplEvaluator"
_VALUE_CLASS_RESULT = (
    "Kotlin 2.2's REPL can't hand back a value of a value class (Duration, Result, UInt, a @JvmInline class) as a "
    "snippet's value: the compiler mangles the snippet's body method and the REPL's evaluator doesn't find it (fixed "
    "in Kotlin 2.3). The snippet did not run; end it with `.toString()`, or keep the value in a val and use it."
)


def known_repl_defect(chain: list[ThrowableInfo]) -> str | None:
    """A one-line message naming the REPL defect behind an internal error and the way around it, or None."""
    if not chain:
        return None
    error = chain[0]
    top = error.frames[0] if error.frames else None
    if error.class_name == _NPE and top is not None and top.class_name == _EVALUATOR and top.method == "evalSnippet":
        return _VALUE_CLASS_RESULT
    return None
