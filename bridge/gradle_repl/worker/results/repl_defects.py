"""Names a known K2 REPL defect that a snippet met, with the way around it, in place of the compiler's stack trace.

What the worker can work around it does (jvm-worker `SnippetModifiers.kt`: `internal` and `const`;
`MangledBodyEvaluation.kt`: a value-class value on 2.2, when the value class can be named); what remains is
recognised here from the failure's own facts (which REPL method failed how), not from a Kotlin version number: the
value-class defect's sign is the facade's (`MangledBodyDefect`), read from its source, not spelled again here.
Pure functions over plain data, tested without a JVM.
"""

from __future__ import annotations

import re
from functools import cache

from gradle_repl.resources import jvm_worker_facade_source
from gradle_repl.worker.results.report import ThrowableInfo

__all__ = ["known_repl_defect"]

_VALUE_CLASS_RESULT = (
    "Kotlin 2.2's REPL can't hand back a value of a value class (Duration, Result, UInt, a @JvmInline class) as a "
    "snippet's value: the compiler mangles the snippet's body method and the REPL's evaluator doesn't find it (fixed "
    "in Kotlin 2.3). The snippet did not run; end it with `.toString()`, or keep the value in a val and use it."
)
_SIGN = ("EXCEPTION", "FAILING_CLASS", "FAILING_METHOD")


@cache
def _mangled_body_defect() -> tuple[str, ...]:
    """The value-class defect's sign as the facade states it (MangledBodyEvaluation.kt's `MangledBodyDefect`): the
    exception, and the class and method of its top frame. Kotlin 2.2's evaluator looks the snippet's body method up by
    its plain name (`$$eval`, non-null asserted); a snippet whose value is of a value class has it mangled
    (`$$eval-<hash>`), so the lookup fails before the snippet runs."""
    source = jvm_worker_facade_source("MangledBodyEvaluation.kt").read_text(encoding="utf-8")
    found = dict(re.findall(r'const val (\w+) = "([^"]+)"', source))
    if not all(name in found for name in _SIGN):
        raise RuntimeError("MangledBodyEvaluation.kt no longer declares the defect's sign as repl_defects reads it")
    return tuple(found[name] for name in _SIGN)


def known_repl_defect(chain: list[ThrowableInfo]) -> str | None:
    """A one-line message naming the REPL defect behind an internal error and the way around it, or None."""
    if not chain:
        return None
    error = chain[0]
    top = error.frames[0] if error.frames else None
    if top is not None and (error.class_name, top.class_name, top.method) == _mangled_body_defect():
        return _VALUE_CLASS_RESULT
    return None
