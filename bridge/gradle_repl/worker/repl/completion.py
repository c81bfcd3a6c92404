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
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import TypeAdapter

from gradle_repl.errors import WorkerFailed
from gradle_repl.frames import Completion, CompletionKind, CompletionResult, Declaration, TextEdit
from gradle_repl.worker.artifacts.facade import build_completion_addon, first_compile_error
from gradle_repl.worker.java import (
    Completer,
    JavaException,
    JavaObject,
    ReplDriver,
    addon_loader,
    completer,
    string_array,
)
from gradle_repl.worker.results.kotlin_types import without_snippet_classes
from gradle_repl.worker.results.safety import jstr

__all__ = [
    "SessionCompletion",
    "Candidate",
    "rank",
    "used_names",
    "prefix_start",
    "utf16_offset",
    "import_edit",
    "MAX_COMPLETIONS",
    "DEFAULT_PACKAGES",
    "KEYWORDS",
]

MAX_COMPLETIONS = 50
# Kotlin's default imports on the JVM (the language specification's list), searched for callables and classes.
DEFAULT_PACKAGES = (
    "kotlin",
    "kotlin.annotation",
    "kotlin.collections",
    "kotlin.comparisons",
    "kotlin.io",
    "kotlin.ranges",
    "kotlin.sequences",
    "kotlin.text",
    "kotlin.jvm",
    "java.lang",
)
# Keywords that begin a statement or an expression, offered where a name may start.
KEYWORDS = (
    "val",
    "var",
    "fun",
    "class",
    "data",
    "object",
    "interface",
    "enum",
    "sealed",
    "typealias",
    "import",
    "if",
    "else",
    "when",
    "for",
    "while",
    "do",
    "return",
    "try",
    "catch",
    "finally",
    "throw",
    "null",
    "true",
    "false",
    "this",
    "is",
    "in",
    "as",
    "break",
    "continue",
    "open",
    "abstract",
    "override",
    "private",
    "internal",
    "lateinit",
    "suspend",
)
# Ranks, lower is better (the add-on's: 0 locals, 1 the snippet's own, 2 members, 3 extensions, 4 imported, and
# from its AUTO_IMPORT_RANK, 7, classes not imported yet).
_EARLIER_SNIPPETS = 1
_KEYWORD = 6
# Lines that may stand before a snippet's imports, or are imports: where an added import goes after.
_HEADER_LINE = re.compile(r"\s*(?:$|//|@file:|import\s)")
_CLASS_KINDS = frozenset({"class", "interface", "object", "enum", "typealias"})
_IDENTIFIER = re.compile(r"[A-Za-z0-9_]*$")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DECLARATION_KINDS: dict[str, CompletionKind] = {
    "val": "variable",
    "var": "variable",
    "fun": "function",
    "class": "class",
    "data class": "class",
    "object": "object",
    "interface": "interface",
    "enum class": "enum",
    "annotation class": "class",
    "typealias": "typealias",
}

# The add-on's kinds (Completer.kt) checked against the frames' names: an unknown one is a ValidationError naming it.
_COMPLETION_KIND: TypeAdapter[CompletionKind] = TypeAdapter(CompletionKind)


@dataclass(frozen=True)
class Candidate:
    text: str
    kind: CompletionKind
    detail: str
    rank: int
    import_name: str = ""
    """The class this candidate needs imported (`java.io.File`); empty when it is in scope."""


def import_edit(code: str, name: str) -> TextEdit:
    """The edit that imports `name` into the code: a line of its own after the code's leading `@file:` annotations,
    comments and imports (where Kotlin allows an import), at the first line of code."""
    offset = 0
    for line in code.splitlines(keepends=True):
        if not _HEADER_LINE.match(line) or not line.endswith("\n"):
            break
        offset += len(line)
    return TextEdit(start=offset, end=offset, text=f"import {name}\n")


def utf16_offset(code: str, index: int) -> int:
    """A character offset into `code` as the JVM's strings count it: in UTF-16 units, where a character beyond the
    Basic Multilingual Plane (an emoji) is two."""
    return len(code[:index].encode("utf-16-le")) // 2


def prefix_start(code: str, cursor: int) -> int:
    """Where the identifier that ends at the cursor starts (the cursor itself when none does)."""
    match = _IDENTIFIER.search(code, 0, cursor)
    return match.start() if match else cursor


def rank(
    candidates: list[Candidate],
    prefix: str,
    limit: int = MAX_COMPLETIONS,
    *,
    code: str | None = None,
    used: frozenset[str] = frozenset(),
) -> list[Completion]:
    """Those that start with the prefix (exact case first, then any case), then names the code already uses (what an
    IDE's statistics learn: `String` where the file writes String), best rank first, then by name; one entry per
    text, kind and detail. A candidate that needs an import carries the edit that adds it to `code`."""
    lower = prefix.lower()
    # (case tier, not used by the code, rank, name, candidate)
    kept: dict[tuple[str, str, str], tuple[int, bool, int, str, Candidate]] = {}
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
        order = (
            tier,
            candidate.kind == "keyword" or candidate.text not in used,
            candidate.rank,
            candidate.text.lower(),
            candidate,
        )
        if key not in kept or order[:3] < kept[key][:3]:
            kept[key] = order
    best = sorted(kept.values(), key=lambda o: (o[0], o[1], o[2], o[3], len(o[4].detail)))
    return [Completion(text=c.text, kind=c.kind, detail=c.detail, edits=_edits(c, code)) for *_, c in best[:limit]]


def used_names(code: str, start: int, cursor: int) -> frozenset[str]:
    """The identifiers the code writes, but for the prefix being completed."""
    return frozenset(_WORD.findall(code[:start])) | frozenset(_WORD.findall(code[cursor:]))


def _edits(candidate: Candidate, code: str | None) -> list[TextEdit]:
    return [import_edit(code, candidate.import_name)] if candidate.import_name and code is not None else []


def _earlier(declarations: list[Declaration]) -> list[Candidate]:
    return [
        Candidate(d.name, _DECLARATION_KINDS.get(d.kind, "variable"), d.signature, _EARLIER_SNIPPETS)
        for d in declarations
    ]


class SessionCompletion:
    """The add-on's Completer for one session, made on first use."""

    def __init__(
        self,
        driver: ReplDriver,
        facade_loader: JavaObject,
        *,
        kotlin_version: str,
        compile_classpath: list[str],
        index_classpath: list[str],
    ) -> None:
        """`compile_classpath` compiles the add-on; `index_classpath` is what snippets may import from (with the JDK)."""
        self._driver = driver
        self._index_classpath = index_classpath
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
                self._completer = completer(addon_loader(jar, self._facade_loader), self._driver, self._index_classpath)
            except WorkerFailed as error:
                self.unavailable = f"completion is unavailable on Kotlin {self._kotlin_version}: its add-on did not compile ({first_compile_error(str(error))})"
            except (JavaException, TypeError) as error:
                self.unavailable = (
                    f"completion is unavailable on Kotlin {self._kotlin_version}: its add-on could not start ({error})"
                )
        return self._completer

    def complete(
        self, code: str, cursor: int, source_name: str, earlier: list[Declaration], *, imported: Sequence[str] = ()
    ) -> CompletionResult:
        """`imported`: what earlier snippets imported; a class they import needs no import again."""
        start = prefix_start(code, cursor)
        completer = self.load()
        if completer is None:
            return CompletionResult(prefix_start=start, unavailable=self.unavailable)
        outcome = completer.complete(
            code,
            utf16_offset(code, start),
            utf16_offset(code, cursor),
            source_name,
            string_array(DEFAULT_PACKAGES),
        )
        if outcome.internalError is not None:
            error = outcome.internalError
            return CompletionResult(
                prefix_start=start,
                unavailable=f"completion failed on Kotlin {self._kotlin_version}: {jstr(error.getClass().getName())}: {jstr(error.getMessage())}",
            )
        found = [
            Candidate(
                jstr(c.text),
                _COMPLETION_KIND.validate_python(jstr(c.kind)),
                without_snippet_classes(jstr(c.detail)),
                int(c.rank),
                _needed(jstr(c.importName), imported),
            )
            for c in outcome.candidates
        ]
        position = jstr(outcome.position)
        if outcome.found and position == "scope":
            found += _earlier(earlier) + [Candidate(k, "keyword", "", _KEYWORD) for k in KEYWORDS]
        elif outcome.found and position == "type":
            found += [c for c in _earlier(earlier) if c.kind in _CLASS_KINDS]
        items = rank(found, code[start:cursor], code=code, used=used_names(code, start, cursor))
        return CompletionResult(prefix_start=start, items=items)


def _needed(name: str, imported: Sequence[str]) -> str:
    """The import a candidate needs, unless an earlier snippet imported it or its package (the compiler's file holds
    only this snippet's imports)."""
    if not name or name in imported or f"{name.rpartition('.')[0]}.*" in imported:
        return ""
    return name
