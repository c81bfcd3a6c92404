"""Runs a build tool as a child process: output streamed line by line, a deadline, no escape.

Every build runs under gradle_repl.project.buildguard, which ends the build's process tree when the server
lets go of it or dies; running builds are also tracked here so an orderly exit (stdin EOF, SIGTERM)
stops them at once instead of waiting for them.

Build output reaches users as progress messages and in error text, never on a terminal: each line is
made plain text here, where it enters (Maven 3.8 colours even in batch mode: `\x1b[0m\x1b[0m[ERROR] …`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from gradle_repl.errors import BuildFailed
from gradle_repl.progress import ProgressCallback
from gradle_repl.settings import TOKEN_ENV
from gradle_repl.stopping import stop_processes_now

__all__ = [
    "BuildLine",
    "ProcessOutcome",
    "run_streaming",
    "ProgressCallback",
    "join_capped",
    "failure_text",
    "stop_all_builds",
    "refuse_new_builds",
    "ERROR_LINES",
    "plain_text",
]


class BuildLine(str):
    """A line of a build tool's own output, as handed to a ProgressCallback; gradle-repl's own
    progress lines are plain strings, so a caller may show one without the other."""

    __slots__ = ()


# How much of a failed build's error text an error message carries; the rest is counted, not shown.
ERROR_LINES = 20
_STACK_FRAME = re.compile(r"\s+(at |\.\.\. \d+ more)")
# Terminal control sequences (ECMA-48): CSI (colours, cursor moves; also as the one byte 0x9b), OSC (titles,
# links) and the other escapes (`ESC ( B`, `ESC =`); then any C0 or C1 control left but the tab.
_ESCAPE_SEQUENCE = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]?")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain_text(line: str) -> str:
    """A line of terminal output as plain text: escape sequences and control characters gone, and of a line
    redrawn with carriage returns (a progress bar), what a terminal would show last."""
    line = _ESCAPE_SEQUENCE.sub("", line)
    redrawn = [part for part in line.split("\r") if part]
    return _CONTROL.sub("", redrawn[-1] if redrawn else "")


# After SIGTERM, how long a build tool gets to stop its daemons' clients before SIGKILL.
TERMINATE_GRACE_SECONDS = 5.0

_RUNNING: set[subprocess.Popen[bytes]] = set()
_RUNNING_LOCK = threading.Lock()
# Set when the server is going: a resolve still on its way must not start another build.
_REFUSING = threading.Event()


@dataclass
class ProcessOutcome:
    returncode: int
    lines: list[str]
    timed_out: bool


def run_streaming(
    command: Sequence[str],
    *,
    cwd: Path,
    timeout_seconds: float,
    on_line: ProgressCallback | None = None,
    env: dict[str, str] | None = None,
) -> ProcessOutcome:
    """Runs command, handing each output line (stdout and stderr merged) to on_line as it comes."""
    if _REFUSING.is_set():
        raise BuildFailed("the server is shutting down; no new build was started")
    process = subprocess.Popen(
        [sys.executable, "-m", "gradle_repl.project.buildguard", *command],
        cwd=cwd,
        # The guard's lifeline: held open until the build is done, closed (by the OS if need be) when we go.
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        # A build script is the project's code: the server's token is not for it to read.
        env={name: value for name, value in (os.environ if env is None else env).items() if name != TOKEN_ENV},
        start_new_session=True,
    )
    with _RUNNING_LOCK:
        _RUNNING.add(process)
    lines: list[str] = []

    def pump() -> None:
        assert process.stdout is not None
        for raw in process.stdout:
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            line = plain_text(text)
            lines.append(line)
            if on_line is not None and (line or not text):  # a line of nothing but colour resets is no progress
                on_line(BuildLine(line))

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    timed_out = False
    try:
        process.wait(timeout=timeout_seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        if process.poll() is None:
            _stop(process)
        with _RUNNING_LOCK:
            _RUNNING.discard(process)
        if process.stdin is not None:
            process.stdin.close()
    reader.join(timeout=TERMINATE_GRACE_SECONDS)
    return ProcessOutcome(process.returncode, lines, timed_out)


def _stop(process: subprocess.Popen[bytes]) -> None:
    try:
        stop_processes_now([psutil.Process(process.pid)], grace_seconds=TERMINATE_GRACE_SECONDS)
    except psutil.Error:
        pass
    try:
        process.wait(timeout=TERMINATE_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        pass


def refuse_new_builds() -> None:
    """From now on run_streaming starts nothing (the server is exiting)."""
    _REFUSING.set()


def stop_all_builds() -> None:
    """Ends every running build (the guard and the build's whole tree); their callers see them fail."""
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for process in running:
        if process.poll() is None:
            _stop(process)


def join_capped(lines: list[str], limit: int) -> str:
    """The first `limit` lines of a build tool's error text, saying how many more there were."""
    cut = len(lines) - limit
    return "\n".join(lines[:limit]) + (f"\n… {cut} more lines" if cut > 0 else "")


def failure_text(error_lines: list[str], output: list[str], *, boilerplate: re.Pattern[str]) -> str:
    """What a failed build said, for its error message: the tool's error lines in the order it printed them, so
    the first real error (often the cause of the rest) leads, without its boilerplate (headings, how to re-run
    or resume, where to get help). When the tool printed none it recognisably marked, the last lines of its
    output, so that a message never comes without a cause to read."""
    # A stack trace's frames (`at …`, `... 12 more`) say where the tool failed, not what: its message line stays.
    errors = [
        line for line in error_lines if line.strip() and not boilerplate.search(line) and not _STACK_FRAME.match(line)
    ]
    if not errors:
        said = [line for line in output if line.strip()]
        errors = [line for line in said if not _STACK_FRAME.match(line) and not boilerplate.search(line)] or said
        errors = errors[-ERROR_LINES:]
    return join_capped(errors, ERROR_LINES)
