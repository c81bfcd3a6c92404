"""Completion in a live session: the facade's completion add-on asks the K2 compiler what fits at the cursor; the
session adds what it knows of its earlier snippets, and keywords, and ranks the lot. The same add-on ends a check's
compilation once the frontend's checkers are done (without it a check runs the JVM backend too, whose state the
REPL keeps: ~2 MB a check).

The add-on reads the compiler's FIR, whose API moves between Kotlin releases, so it is compiled for the session's
Kotlin on the first completion (cached per version, like the facade) and loaded beside the facade. When it does
not compile, or its probe fails, every completion in the session answers "unavailable on Kotlin X: why" and
nothing else in the session is affected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import TypeAdapter

from gradle_repl.errors import WorkerFailed
from gradle_repl.frames import Completion, CompletionKind, CompletionResult, Declaration
from gradle_repl.worker.facade import build_completion_addon, first_compile_error
from gradle_repl.worker.java import Completer, JavaException, JavaObject, ReplDriver, addon_loader, completer, string_array
from gradle_repl.worker.kotlin_types import without_snippet_classes
from gradle_repl.worker.safety import jstr

__all__ = ["SessionCompletion", "Candidate", "rank", "prefix_start", "utf16_offset", "MAX_COMPLETIONS", "DEFAULT_PACKAGES", "KEYWORDS"]

MAX_COMPLETIONS = 50
# Kotlin's default imports on the JVM (the language specification's list), searched for callables and classes.
DEFAULT_PACKAGES = (
    "kotlin", "kotlin.annotation", "kotlin.collections", "kotlin.comparisons", "kotlin.io", "kotlin.ranges",
    "kotlin.sequences", "kotlin.text", "kotlin.jvm", "java.lang",
)
# Keywords that begin a statement or an expression, offered where a name may start.
KEYWORDS = (
    "val", "var", "fun", "class", "data", "object", "interface", "enum", "sealed", "typealias", "import", "if", "else",
    "when", "for", "while", "do", "return", "try", "catch", "finally", "throw", "null", "true", "false", "this", "is",
    "in", "as", "break", "continue", "open", "abstract", "override", "private", "internal", "lateinit", "suspend",
)
# Ranks, lower is better (the add-on's: 0 locals, 1 the snippet's own, 2 members, 3 extensions, 4 imported).
_EARLIER_SNIPPETS = 1
_KEYWORD = 6
_IDENTIFIER = re.compile(r"[A-Za-z0-9_]*$")
_DECLARATION_KINDS: dict[str, CompletionKind] = {
    "val": "variable", "var": "variable", "fun": "function", "class": "class", "data class": "class", "object": "object",
    "interface": "interface", "enum class": "enum", "annotation class": "class", "typealias": "typealias",
}

# The add-on's kinds (Completer.kt) checked against the frames' names: an unknown one is a ValidationError naming it.
_COMPLETION_KIND: TypeAdapter[CompletionKind] = TypeAdapter(CompletionKind)


@dataclass(frozen=True)
class Candidate:
    text: str
    kind: CompletionKind
    detail: str
    rank: int


def utf16_offset(code: str, index: int) -> int:
    """A character offset into `code` as the JVM's strings count it: in UTF-16 units, where a character beyond the
    Basic Multilingual Plane (an emoji) is two."""
    return len(code[:index].encode("utf-16-le")) // 2


def prefix_start(code: str, cursor: int) -> int:
    """Where the identifier that ends at the cursor starts (the cursor itself when none does)."""
    match = _IDENTIFIER.search(code, 0, cursor)
    return match.start() if match else cursor


def rank(candidates: list[Candidate], prefix: str, limit: int = MAX_COMPLETIONS) -> list[Completion]:
    """Those that start with the prefix (exact case first, then any case), best rank first, then by name; one
    entry per text, kind and detail."""
    lower = prefix.lower()
    kept: dict[tuple[str, str, str], tuple[int, int, str, Candidate]] = {}
    for candidate in candidates:
        if candidate.text == prefix and candidate.kind == "keyword":
            continue
        if candidate.text.startswith(prefix):
            tier = 0
        elif candidate.text.lower().startswith(lower):
            tier = 1
        else:
            continue
        key = (candidate.text, candidate.kind, candidate.detail)
        order = (tier, candidate.rank, candidate.text.lower(), candidate)
        if key not in kept or order[:2] < kept[key][:2]:
            kept[key] = order
    best = sorted(kept.values(), key=lambda o: (o[0], o[1], o[2], len(o[3].detail)))
    return [Completion(text=c.text, kind=c.kind, detail=c.detail) for *_, c in best[:limit]]


def _earlier(declarations: list[Declaration]) -> list[Candidate]:
    return [Candidate(d.name, _DECLARATION_KINDS.get(d.kind, "variable"), d.signature, _EARLIER_SNIPPETS) for d in declarations]


class SessionCompletion:
    """The add-on's Completer for one session, made on first use."""

    def __init__(self, driver: ReplDriver, facade_loader: JavaObject, *, kotlin_version: str, compile_classpath: list[str]) -> None:
        self._driver = driver
        self._facade_loader = facade_loader
        self._kotlin_version = kotlin_version
        self._compile_classpath = compile_classpath
        self._completer: Completer | None = None
        self.unavailable: str | None = None

    def load(self) -> Completer | None:
        """The add-on's Completer, compiled and loaded on first use; None when this Kotlin can't have it. Once loaded it
        also ends checks before the JVM backend (ReplDriver.analysis)."""
        if self._completer is None and self.unavailable is None:
            try:
                jar, _ = build_completion_addon(self._kotlin_version, self._compile_classpath)
                self._completer = completer(addon_loader(jar, self._facade_loader), self._driver)
            except WorkerFailed as error:
                self.unavailable = f"completion is unavailable on Kotlin {self._kotlin_version}: its add-on did not compile ({first_compile_error(str(error))})"
            except (JavaException, TypeError) as error:
                self.unavailable = f"completion is unavailable on Kotlin {self._kotlin_version}: its add-on could not start ({error})"
        return self._completer

    def complete(self, code: str, cursor: int, source_name: str, earlier: list[Declaration]) -> CompletionResult:
        start = prefix_start(code, cursor)
        completer = self.load()
        if completer is None:
            return CompletionResult(prefix_start=start, unavailable=self.unavailable)
        outcome = completer.complete(
            code, utf16_offset(code, start), utf16_offset(code, cursor), source_name,
            string_array(DEFAULT_PACKAGES),
        )
        if outcome.internalError is not None:
            error = outcome.internalError
            return CompletionResult(
                prefix_start=start,
                unavailable=f"completion failed on Kotlin {self._kotlin_version}: {jstr(error.getClass().getName())}: {jstr(error.getMessage())}",
            )
        found = [
            Candidate(jstr(c.text), _COMPLETION_KIND.validate_python(jstr(c.kind)), without_snippet_classes(jstr(c.detail)), int(c.rank))
            for c in outcome.candidates
        ]
        if outcome.found and jstr(outcome.position) == "scope":
            found += _earlier(earlier) + [Candidate(k, "keyword", "", _KEYWORD) for k in KEYWORDS]
        return CompletionResult(prefix_start=start, items=rank(found, code[start:cursor]))
