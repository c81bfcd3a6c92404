"""Turns compiler diagnostics and exceptions into the text a Kotlin developer reads.

Pure functions over plain data, so the trimming rules are unit-tested without a JVM.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gradle_repl.worker.results.kotlin_types import without_snippet_classes
from gradle_repl.worker.snippet_names import SNIPPET_CLASS, SNIPPET_FILE, is_snippet_body, users_number

__all__ = [
    "Diagnostic",
    "StackFrame",
    "ThrowableInfo",
    "format_diagnostic",
    "format_throwable",
    "is_snippet_file",
    "users_frames",
]

_SNIPPET_FILE = re.compile(SNIPPET_FILE)
# A snippet's class, or a class nested in it (`_4_repl$Point`, a lambda's `_4_repl$f$1`).
_SNIPPET_CLASS = re.compile(SNIPPET_CLASS + r"(?:\$(?P<inner>.+))?")
# Frames below the snippet that belong to the REPL machinery rather than to the user's code.
_INTERNAL_PREFIXES = (
    "org.jetbrains.kotlin.",
    "kotlin.script.experimental.",
    "gradlerepl.repl.",
    "gradlerepl.agent.",
    "java.lang.reflect.",
    "jdk.internal.reflect.",
    "sun.reflect.",
    "kotlin.coroutines.",
)
_MAX_FRAMES_WITHOUT_SNIPPET = 12


@dataclass(frozen=True)
class Diagnostic:
    severity: str
    message: str
    line: int | None = None
    column: int | None = None


@dataclass(frozen=True)
class StackFrame:
    class_name: str
    method: str
    file: str | None
    line: int

    def render(self) -> str:
        """A Java stack frame, except that a snippet's own frames read as users know them: `at total (snippet 2,
        line 3)`, `at snippet 3, line 1` for the snippet's body, not the REPL's `_4_repl.$$eval(_4.repl.kts:1)`."""
        snippet = _SNIPPET_CLASS.fullmatch(self.class_name) if is_snippet_file(self.file) else None
        if snippet is not None:
            where = f"snippet {users_number(int(snippet['number']))}, line {self.line}"
            if is_snippet_body(self.method) and not snippet["inner"]:
                return f"    at {where}"
            owner = f"{snippet['inner'].replace('$', '.')}." if snippet["inner"] else ""
            return f"    at {owner}{self.method} ({where})"
        where = f"{self.file}:{self.line}" if self.file and self.line >= 0 else (self.file or "Unknown Source")
        return f"    at {self.class_name}.{self.method}({where})"


@dataclass(frozen=True)
class ThrowableInfo:
    class_name: str
    message: str | None
    frames: tuple[StackFrame, ...]


def is_snippet_file(name: str | None) -> bool:
    return bool(name) and bool(_SNIPPET_FILE.fullmatch(name or ""))


def format_diagnostic(diagnostic: Diagnostic, source: str) -> str:
    """`error: <message> (line L, col C)` followed by the offending line and a caret."""
    head = f"{diagnostic.severity.lower()}: {diagnostic.message}"
    if diagnostic.line is None:
        return head
    head += f" (line {diagnostic.line}, col {diagnostic.column or 1})"
    lines = source.splitlines()
    if not 1 <= diagnostic.line <= len(lines):
        return head
    text = lines[diagnostic.line - 1]
    # Tabs stay tabs under the caret, so it lines up however the reader renders them.
    caret = "".join(c if c == "\t" else " " for c in text[: max(diagnostic.column or 1, 1) - 1]) + "^"
    return f"{head}\n    {text}\n    {caret}"


def users_frames(frames: tuple[StackFrame, ...]) -> tuple[list[StackFrame], int]:
    """The user's part of a stack: down to the last snippet frame, else down to the REPL machinery."""
    last_snippet = max((i for i, f in enumerate(frames) if is_snippet_file(f.file)), default=-1)
    if last_snippet >= 0:
        kept = list(frames[: last_snippet + 1])
    else:
        kept = []
        for frame in frames:
            if frame.class_name.startswith(_INTERNAL_PREFIXES) and kept:
                break
            kept.append(frame)
        kept = kept[:_MAX_FRAMES_WITHOUT_SNIPPET]
    return kept, len(frames) - len(kept)


def format_throwable(chain: list[ThrowableInfo]) -> tuple[str, str]:
    """(headline, trimmed stack with causes) for an exception and its causes, outermost first."""

    def headline(info: ThrowableInfo) -> str:
        # Snippet classes as written (`K@1b2c3d`, `class K cannot be cast…`), not as the REPL nests them (`_5_repl$K`).
        text = f"{info.class_name}: {info.message}" if info.message is not None else info.class_name
        return without_snippet_classes(text)

    lines: list[str] = []
    for depth, info in enumerate(chain):
        if depth:
            lines.append(f"Caused by: {headline(info)}")
        kept, hidden = users_frames(info.frames)
        lines += [frame.render() for frame in kept]
        if hidden:
            lines.append(f"    ... {hidden} more (REPL internals)")
    return headline(chain[0]), "\n".join(lines)
