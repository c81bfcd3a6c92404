"""Worker log files: one per launch, old ones pruned, never a live worker's; tails read from the end."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import psutil

from gradle_repl.paths import log_dir

__all__ = ["new_log_path", "tail", "KEPT_WORKER_LOGS"]

# Worker logs are for diagnosing the recent past.
KEPT_WORKER_LOGS = 50
# A tail for an error message: the last lines of at most this many bytes.
_TAIL_BYTES = 16 * 1024
_SERVER_PID = re.compile(r"-(\d+)\.log(\.\d+)?$")
_ROTATED = re.compile(r"\.log\.\d+$")


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label)[:80]


def _in_use(path: Path, keep: set[Path]) -> bool:
    """A log of a worker this server still runs, or of another server that is still alive."""
    base = path.with_name(_ROTATED.sub(".log", path.name))  # worker-….log.1 is part of worker-….log
    if base in keep:
        return True
    match = _SERVER_PID.search(path.name)
    if match is None:
        return False
    server = int(match.group(1))
    return server != os.getpid() and psutil.pid_exists(server)


def new_log_path(label: str, *, keep: set[Path]) -> Path:
    """A log file of this launch's own; beyond the newest KEPT_WORKER_LOGS, logs not in use are deleted."""
    directory = log_dir()
    directory.mkdir(parents=True, exist_ok=True)
    logs = []
    for path in directory.glob("worker-*.log*"):
        try:
            logs.append((path.stat().st_mtime, path))
        except OSError:
            continue
    logs.sort()
    for _, old in logs[: max(0, len(logs) - KEPT_WORKER_LOGS + 1)]:
        if not _in_use(old, keep):
            old.unlink(missing_ok=True)
    return directory / f"worker-{_safe(label)}-{time.time_ns() // 1_000_000}-{os.getpid()}.log"


def tail(path: Path | None, lines: int = 20) -> str:
    """The last lines of a log, read from its end however large it is."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as file:
            file.seek(0, os.SEEK_END)
            size = file.tell()
            file.seek(max(0, size - _TAIL_BYTES))
            data = file.read()
    except OSError:
        return ""
    return "\n".join(data.decode("utf-8", "replace").splitlines()[-lines:])
