"""Says which declaration a snippet used whose own snippet failed, in place of an error from REPL internals.

The K2 REPL keeps a failed snippet's declarations visible to later snippets. A val whose initialiser threw
holds null (or 0) — using it throws a NullPointerException from the snippet's own code, worded by the JDK
after the REPL's layout (`"...SnippetInstances.get(String).ctx" is null` on Kotlin 2.2, through the REPL's state
object, `"ReplState.get(Object).ctx"` with the one it generates; `"_2_repl.getCtx()"` on 2.3,
nothing at all on a JDK without helpful NPE messages). A snippet the compiler refused after recording its
declarations has no class (NoClassDefFoundError `_3_repl$Point`) or no instance (Kotlin's `null cannot be
cast to non-null type <root>._4_repl`). A snippet stopped while it compiled is in the REPL's history too, but never
ran: it has no instance either.

So the explanation rests on facts rather than on one wording: which vals the session recorded as declared
by a failed snippet and still null, which snippets never compiled (the JVM and Kotlin name a missing class),
and the lines of the snippet its frames stood on. Pure functions over plain data, tested without a JVM.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from gradle_repl.worker.results.kotlin_types import property_accessors
from gradle_repl.worker.results.report import ThrowableInfo
from gradle_repl.worker.snippet_names import SNIPPET_CLASS, snippet_file

__all__ = ["FailedSnippet", "FailedUse", "explain_use_of_failed"]

_NPE = "java.lang.NullPointerException"
_NO_CLASS = "java.lang.NoClassDefFoundError"
# The JVM names the class it could not find; "Could not initialize class …" is another matter (an
# initialiser that threw), not a class that was never compiled.
_SNIPPET_CLASS = re.compile(rf"(?:<root>\.)?{SNIPPET_CLASS}(?P<nested>(?:\$\w+)*)")
_CAST_OF_NULL = "null cannot be cast to non-null type "
# JEP 358's helpful NPE messages end in `because "<what was null>" is null`: the member is named there.
_NULL_MEMBER = re.compile(r'because (?:the return value of )?"([^"]+)" is null')
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_DECLARED_NAME = re.compile(
    r"^\s*(?:@[\w.:]+(?:\([^)]*\))?\s+)*(?:(?:private|internal|public|lateinit|const|inline|data|enum|sealed|abstract|open|suspend|operator|infix)\s+)*"
    r"(?:val|var|fun|class|object|interface|typealias)\s+(?:<[^>]*>\s*)?(?:[\w.]+\.)?(\w+)",
    re.MULTILINE,
)
_QUOTED_LINE_CHARS = 120


@dataclass(frozen=True)
class FailedSnippet:
    code: str
    compiled: bool  # False: the compiler refused it after recording its declarations, so none of them exists
    ran: bool = True  # False: compiled, then stopped (cancel, timeout) before it ran, so it has no instance

    def declared(self) -> list[str]:
        """The names its code declares: read from the text, as a snippet never compiled has no class to reflect on."""
        return list(dict.fromkeys(_DECLARED_NAME.findall(self.code)))


@dataclass(frozen=True)
class FailedUse:
    """Names a snippet used that its failed snippets never initialised or never compiled."""

    names: tuple[str, ...]
    never_compiled: bool
    failed_code: tuple[str, ...]  # the failed snippets' code, one per snippet, in order
    never_ran: bool = False  # the one snippet named was stopped while it compiled

    def message(self) -> str:
        many = len(self.names) > 1
        names = ", ".join(f"'{n}'" for n in self.names)
        what = "never compiled" if self.never_compiled else "not initialised"
        snippets = (
            "the snippets that declared them"
            if len(self.failed_code) > 1
            else ("the snippet that declared them" if many else "the snippet that declared it")
        )
        quoted = ", ".join(f"`{_first_line(code)}`" for code in self.failed_code)
        ended = "was stopped while it compiled and never ran" if self.never_ran else "failed"
        return (
            f"{names} {'were' if many else 'was'} {what}: {snippets} {ended}{f' ({quoted})' if quoted else ''}. "
            f"Declare {'them' if many else 'it'} again in a snippet that succeeds."
        )


def explain_use_of_failed(
    chain: list[ThrowableInfo],
    *,
    code: str,
    number: int,
    uninitialised: Mapping[str, int],
    failed: Mapping[int, FailedSnippet],
) -> FailedUse | None:
    """What a runtime error of snippet `number` (its `code`) says about failed snippets' declarations, if anything.

    `uninitialised`: each val or var a failed snippet declared that still holds null, with that snippet's number.
    `failed`: each failed snippet, by number.
    """
    if not chain or chain[0].class_name not in (_NPE, _NO_CLASS):
        return None
    error = chain[0]
    on_stack = _identifiers(_lines_on_stack(error, code, number))
    missing = _missing_snippet_class(error, failed)
    if missing is not None:
        return missing.used(on_stack)
    if error.class_name != _NPE:
        return None
    named = _named_null_member(error.message)
    if named is not None:
        # The JDK named what was null; it explains the error only if it is one of the failed vals.
        used = [name for name in uninitialised if named in _member_names(name)]
    else:
        # No member named (an older JDK, or Kotlin's own null check): the snippet's lines on the stack decide.
        used = [name for name in dict.fromkeys(on_stack) if name in uninitialised]
    if not used:
        return None
    numbers = sorted({uninitialised[name] for name in used})
    return FailedUse(
        tuple(used), never_compiled=False, failed_code=tuple(failed[n].code for n in numbers if n in failed)
    )


@dataclass(frozen=True)
class _MissingClass:
    """A class of a failed snippet that the JVM could not find, or whose instance the REPL never made."""

    snippet: FailedSnippet
    nested: str | None  # `Point` of `_3_repl$Point`; None for the snippet's own class

    def used(self, on_stack: list[str]) -> FailedUse | None:
        if self.nested is not None:
            names = [self.nested]  # the class the snippet declared, whichever of its members was used
        else:
            # The snippet's whole class is missing: what it declared that the stack's lines use, else all it declared.
            declared = self.snippet.declared()
            names = [n for n in declared if n in on_stack] or declared
        if not names:
            return None
        return FailedUse(
            tuple(names),
            never_compiled=not self.snippet.compiled,
            failed_code=(self.snippet.code,),
            never_ran=not self.snippet.ran,
        )


def _missing_snippet_class(error: ThrowableInfo, failed: Mapping[int, FailedSnippet]) -> _MissingClass | None:
    """The failed snippet's class an error names: NoClassDefFoundError `_3_repl$Point` (never written), or
    Kotlin's `null cannot be cast to non-null type <root>._4_repl` (a snippet the compiler refused, or one
    stopped before it ran, has no instance for the REPL to hand out)."""
    message = (error.message or "").replace("/", ".")
    if error.class_name == _NO_CLASS:
        match = _SNIPPET_CLASS.fullmatch(message)
    else:
        match = _SNIPPET_CLASS.search(message) if message.startswith(_CAST_OF_NULL) else None
    snippet = failed.get(int(match.group("number"))) if match else None
    if match is None or snippet is None or (error.class_name == _NPE and snippet.compiled and snippet.ran):
        return None
    nested = match.group("nested").split("$")[1:]
    return _MissingClass(snippet, nested[0] if nested else None)


def _named_null_member(message: str | None) -> str | None:
    """The field or method a helpful NPE message says was null: `ctx` of `"SnippetInstances.get(String).ctx"`,
    `getCtx` of `"_2_repl.getCtx()"`; None when the message names none."""
    match = _NULL_MEMBER.search(message or "")
    if match is None:
        return None
    return match.group(1).removesuffix("()").rsplit(".", 1)[-1]


def _member_names(name: str) -> set[str]:
    """The JVM members that can hold a property's value: its field and its getter."""
    return {name, property_accessors(name)[0]}


def _lines_on_stack(error: ThrowableInfo, code: str, number: int) -> str:
    """The lines of this snippet's code that its frames stood on when it threw, innermost first: the call
    `f(ctx)` as well as the line inside `f` that met the null."""
    lines = code.splitlines()
    on_stack = dict.fromkeys(
        f.line for f in error.frames if f.file == snippet_file(number) and 1 <= f.line <= len(lines)
    )
    return "\n".join(lines[n - 1] for n in on_stack)


def _identifiers(line: str) -> list[str]:
    return _IDENTIFIER.findall(line)


def _first_line(code: str) -> str:
    lines = code.strip().splitlines() or [""]
    first = lines[0]
    if len(first) > _QUOTED_LINE_CHARS:
        return f"{first[:_QUOTED_LINE_CHARS]}… ({len(first) - _QUOTED_LINE_CHARS} more characters)"
    return first
