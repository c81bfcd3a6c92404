"""Whether an edit can be compiled in the session, as IntelliJ's HotSwap compiles only what changed.

Only an edit of the source set's own source files qualifies (a test source set's main sources too, compiled as main:
the session of the tests runs them, as surefire's does): every changed path a .kt or .java file under one of its
source roots, none deleted, no build file, resource, generated source or sibling module among them. What the build
tool would compile differently goes to it, with the reason in the reply's notice: a file declaring an inline function
(its callers in other files hold the old body), a multiplatform expect or actual declaration (compiled with its
counterpart), a build generating sources (kapt, KSP, annotation processors). What
only the compile can tell (a class's shape, a constant's value, errors in other files) the worker decides
(worker/classes/edit_compiler.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gradle_repl.environment import EditSources, ReplEnvironment
from gradle_repl.project.build_inputs import Fingerprint

__all__ = ["EditPlan", "plan_edit", "deleted_sources", "declares_inline", "declares_expect_or_actual"]

_SOURCE_SUFFIXES = (".kt", ".java")
# Comments and strings, blanked before looking for the `inline` modifier (a comment saying "inline" is no declaration).
_NOT_CODE = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"', re.DOTALL)
# An inline function or property: `inline` among a declaration's modifiers (`public inline fun`, `inline val`).
_INLINE = re.compile(r"\binline\s+(?:[a-z]+\s+)*(?:fun|val|var)\b")
# A multiplatform expect or actual declaration (`expect fun`, `actual data class`): KGP compiles it together with its
# counterpart (-Xmulti-platform, -Xcommon-sources); compiled alone, the session's compiler would report false errors.
_EXPECT_ACTUAL = re.compile(
    r"\b(?:expect|actual)\s+(?:[a-z]+\s+)*(?:fun|val|var|class|interface|object|typealias|constructor)\b"
)


@dataclass(frozen=True)
class EditPlan:
    """The edited files and how to compile them."""

    files: list[str]
    sources: EditSources


def plan_edit(before: Fingerprint, now: Fingerprint, environment: ReplEnvironment) -> EditPlan | str:
    """The files to compile in the session, or why the build tool compiles this edit (one phrase)."""
    sources = environment.edit_sources
    if sources is None or not sources.output_dir:
        return f"{(environment.build_tool or 'the build').capitalize()} gives gradle-repl no source roots for this source set"
    if sources.unavailable is not None:
        return sources.unavailable
    if gone := deleted_sources(before, now) or sorted(set(before.stats) - set(now.stats)):
        return f"{Path(gone[0]).name} was deleted or renamed"
    changed = sorted(path for path, stat in now.stats.items() if before.stats.get(path) != stat)
    files: list[str] = []
    units: list[EditSources] = []
    for path in changed:
        if Path(path).is_dir():
            continue  # a directory's time moves with the files in it
        unit = _unit_of(path, sources)
        if unit is None:
            return f"{Path(path).name} is not a source file of this source set"
        if path.endswith(".kt") and declares_inline(Path(path)):
            return f"{Path(path).name} declares an inline function"
        if path.endswith(".kt") and declares_expect_or_actual(Path(path)):
            return f"{Path(path).name} declares a multiplatform expect or actual declaration"
        files.append(path)
        if unit not in units:
            units.append(unit)
    if not files:
        return "no source file changed"
    if len(units) > 1:
        # The build compiles main first, then the tests against it: two compiles in one edit are the build tool's.
        return "main and test sources changed together"
    if units[0].unavailable is not None:
        return units[0].unavailable
    return EditPlan(files=files, sources=units[0])


def deleted_sources(before: Fingerprint, now: Fingerprint) -> list[str]:
    """The Kotlin and Java files that were there when `before` was taken and are gone now (deleted or renamed)."""
    return sorted(path for path in set(before.stats) - set(now.stats) if path.endswith(_SOURCE_SUFFIXES))


def _unit_of(path: str, sources: EditSources) -> EditSources | None:
    """The sources (the source set's own, or a test source set's main ones) whose roots hold the file, if a source file."""
    if not path.endswith(_SOURCE_SUFFIXES):
        return None
    for unit in (sources, sources.main_sources):
        if unit is not None and unit.output_dir and any(Path(path).is_relative_to(root) for root in unit.roots):
            return unit
    return None


def declares_inline(path: Path) -> bool:
    """Whether the Kotlin file declares an inline function or property (unreadable: as if it did)."""
    return _declares(path, _INLINE)


def declares_expect_or_actual(path: Path) -> bool:
    """Whether the Kotlin file declares a multiplatform expect or actual declaration (unreadable: as if it did)."""
    return _declares(path, _EXPECT_ACTUAL)


def _declares(path: Path, declaration: re.Pattern[str]) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return True
    return declaration.search(_NOT_CODE.sub(" ", text)) is not None
