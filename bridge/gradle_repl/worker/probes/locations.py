"""Where a probe's `at` points: a source file of the project and a line of it, or a class and a line of its source.

Pure: the file system and the text of `at` only. Each bad `at` gets one sentence that says what would be right.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gradle_repl.worker.runner import ProbeError

__all__ = ["ProbeError", "ProbeLocation", "locate", "nearest_lines", "source_of_class", "source_package"]

_AT = re.compile(r"^(?P<where>[^:\s][^:]*?):(?P<line>\d+)$")
_SOURCE_SUFFIXES = (".kt", ".java")
# A source's package: Kotlin's `package a.b` (after @file: annotations and comments), Java's `package a.b;`.
_PACKAGE = re.compile(r"^\s*package\s+([\w.`]+)", re.MULTILINE)
_QUALIFIED_CLASS = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$")


@dataclass(frozen=True)
class ProbeLocation:
    """A probe's place: a source file (by its package and name, with its path and length when found) or a class."""

    line: int
    file_name: str | None = None  # Cart.kt; None for a class given by name until its class file names its source
    package: str = ""  # shop
    path: Path | None = None
    last_line: int = 0  # the source's line count; 0 when its file wasn't found (then every line is its own)
    class_name: str | None = None  # shop.Cart, for `fully.qualified.Class:LINE`


def locate(at: str, source_roots: list[Path], *, without_sources: str | None = None) -> ProbeLocation:
    """The place `at` names among the project's sources, or a ProbeError saying what is wrong with it; a source
    file's name where there are no source roots is answered with `without_sources`, when given."""
    match = _AT.match(at.strip())
    if match is None:
        raise ProbeError(
            f"`{at}` is not a probe location: write `File.kt:LINE`, `dir/File.kt:LINE` or `fully.qualified.Class:LINE`"
        )
    where, line = match["where"].strip(), int(match["line"])
    if line < 1:
        raise ProbeError(f"`{at}`: lines are counted from 1")
    if where.endswith(_SOURCE_SUFFIXES):
        if not source_roots and without_sources is not None:
            raise ProbeError(f"`{at}`: {without_sources}")
        return _in_source(at, where, line, source_roots)
    if not _QUALIFIED_CLASS.match(where):
        raise ProbeError(
            f"`{at}` names neither a .kt or .java file nor a class: write `File.kt:LINE` or `fully.qualified.Class:LINE`"
        )
    return ProbeLocation(line=line, class_name=where)


def source_of_class(location: ProbeLocation, file_name: str, source_roots: list[Path]) -> ProbeLocation:
    """A class's probe with the source its class file names (`SourceFile`), found in its package's directory."""
    package = location.class_name.rpartition(".")[0] if location.class_name else ""
    relative = Path(*package.split("."), file_name) if package else Path(file_name)
    path = next((root / relative for root in source_roots if (root / relative).is_file()), None)
    last = _line_count(path) if path is not None else 0
    _check_line(f"{location.class_name}:{location.line}", location.line, last, path)
    return ProbeLocation(
        line=location.line,
        file_name=file_name,
        package=package,
        path=path,
        last_line=last,
        class_name=location.class_name,
    )


def source_package(text: str) -> str:
    """The package a Kotlin or Java source declares ("" for none)."""
    without_comments = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.DOTALL)
    match = _PACKAGE.search(without_comments)
    return match[1].replace("`", "") if match else ""


def nearest_lines(line: int, with_code: list[int]) -> str:
    """The lines with code nearest `line`, for a message: `15 and 18`, `16`, or that the file has none."""
    before = [n for n in with_code if n < line]
    after = [n for n in with_code if n > line]
    near = [*([before[-1]] if before else []), *([after[0]] if after else [])]
    if not near:
        return "the file has no code a probe can stop at"
    return "the nearest lines with code are " + " and ".join(str(n) for n in near)


def _in_source(at: str, where: str, line: int, source_roots: list[Path]) -> ProbeLocation:
    suffix = Path(where)
    name = suffix.name
    found = sorted(
        {
            p.resolve()
            for root in source_roots
            if root.is_dir()
            for p in root.rglob(name)
            if p.is_file() and p.as_posix().endswith("/" + suffix.as_posix().lstrip("/"))
        }
    )
    if not found:
        raise ProbeError(f"`{at}`: no source file {where} in the project's sources ({_roots(source_roots)})")
    if len(found) > 1:
        listed = ", ".join(str(p) for p in found)
        raise ProbeError(f"`{at}`: {len(found)} source files end with {where} ({listed}); name one by a longer path")
    path = found[0]
    last = _line_count(path)
    _check_line(at, line, last, path)
    return ProbeLocation(
        line=line, file_name=name, package=source_package(path.read_text(errors="replace")), path=path, last_line=last
    )


def _check_line(at: str, line: int, last: int, path: Path | None) -> None:
    if path is not None and line > last:
        raise ProbeError(f"`{at}`: {path.name} has {last} lines")


def _line_count(path: Path) -> int:
    return len(path.read_text(errors="replace").splitlines())


def _roots(roots: list[Path]) -> str:
    return ", ".join(str(r) for r in roots) if roots else "none known"
