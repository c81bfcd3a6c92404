"""Runs a build tool as a child process: stdin closed, output streamed line by line, a deadline."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ProcessOutcome", "run_streaming", "ProgressCallback", "join_capped"]

ProgressCallback = Callable[[str], None]
# After SIGTERM, how long a build tool gets to stop its daemons' clients before SIGKILL.
TERMINATE_GRACE_SECONDS = 5.0


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
    process = subprocess.Popen(
        list(command),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    lines: list[str] = []

    def pump() -> None:
        assert process.stdout is not None
        for raw in process.stdout:
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            lines.append(line)
            if on_line is not None:
                on_line(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    timed_out = False
    try:
        process.wait(timeout=timeout_seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
        _stop(process)
    finally:
        if process.poll() is None:
            _stop(process)
    reader.join(timeout=TERMINATE_GRACE_SECONDS)
    return ProcessOutcome(process.returncode, lines, timed_out)


def _stop(process: subprocess.Popen[bytes]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=TERMINATE_GRACE_SECONDS)
            return
        except subprocess.TimeoutExpired:
            continue


def join_capped(lines: list[str], limit: int) -> str:
    """The first `limit` lines of a build tool's error text, saying how many more there were."""
    cut = len(lines) - limit
    return "\n".join(lines[:limit]) + (f"\n… {cut} more lines" if cut > 0 else "")
