"""Build output reaches users as plain text: no terminal escapes in progress messages or error text."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gradle_repl.errors import BuildFailed
from gradle_repl.project.process import plain_text, run_streaming
from gradle_repl.project.toolchain import Coordinate, resolve_jars

ESC = "\x1b"


@pytest.mark.parametrize(
    ("terminal", "plain"),
    [
        ("\x1b[0m\x1b[0m[ERROR] Failed to execute goal", "[ERROR] Failed to execute goal"),  # Maven 3.8 in batch mode
        ("\x1b[1;31mBUILD FAILURE\x1b[m", "BUILD FAILURE"),
        ("\x1b[2K\r> Task :compileKotlin", "> Task :compileKotlin"),
        ("10%\r50%\r100%", "100%"),  # a redrawn line reads as a terminal would show it last
        ("\x1b]0;gradle\x07title set", "title set"),
        ("\x1b]8;;https://example.org\x1b\\a link\x1b]8;;\x1b\\", "a link"),
        ("\x1b(Bcharset\x1b=", "charset"),
        ("bell\x07 and\x00 nul", "bell and nul"),
        ("a\ttab, Zoë 日本語", "a\ttab, Zoë 日本語"),
    ],
)
def test_plain_text(terminal: str, plain: str) -> None:
    """Escape sequences and control characters go; tabs and any other text stay as they are."""
    assert plain_text(terminal) == plain


def test_a_builds_lines_are_plain_in_progress_and_in_the_outcome(tmp_path: Path) -> None:
    """Each line is made plain where it enters: the progress callback and the lines kept for error text see
    the same text, and a line of nothing but colour resets is no progress message."""
    printing = "print('\\x1b[0m\\x1b[0m'); print('\\x1b[1m[ERROR]\\x1b[m broken'); print(''); print('done')"
    progress: list[str] = []
    outcome = run_streaming([sys.executable, "-c", printing], cwd=tmp_path, timeout_seconds=60, on_line=progress.append)
    assert outcome.lines == ["", "[ERROR] broken", "", "done"]
    assert progress == ["[ERROR] broken", "", "done"]


@pytest.mark.jvm
def test_a_failed_maven_resolution_reads_plain(tmp_path: Path) -> None:
    """Maven 3.8 colours its error lines even with -B; neither its progress lines nor the error show it."""
    progress: list[str] = []
    with pytest.raises(BuildFailed) as failed:
        resolve_jars(
            {"missing": [Coordinate("gradle-repl.test", "no-such-artifact", "1.0")]}, on_progress=progress.append
        )
    assert "no-such-artifact" in str(failed.value)
    assert ESC not in str(failed.value), str(failed.value)
    assert any("[ERROR]" in line for line in progress) and not [line for line in progress if ESC in line], progress
