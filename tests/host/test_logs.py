"""Worker logs: one file per launch, the newest KEPT_WORKER_LOGS kept, and never a log in use deleted — a live
worker's of this server, or any of another server that still runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gradle_repl.host.logs import KEPT_WORKER_LOGS, new_log_path


@pytest.fixture
def logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "logs"
    monkeypatch.setenv("GRADLE_REPL_LOG_DIR", str(directory))
    return directory


def _old_log(directory: Path, name: str, age: int) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("x")
    stamp = time.time() - 1_000 + age
    os.utime(path, (stamp, stamp))
    return path


def test_each_launch_gets_a_log_of_its_own_named_after_its_session(logs: Path) -> None:
    first = new_log_path("session a", keep=set())
    second = new_log_path("session/b", keep={first})
    assert first != second and first.parent == logs == second.parent
    assert "session_a" in first.name and "session_b" in second.name, "a label never escapes the log directory"


def test_the_newest_are_kept_and_logs_in_use_are_never_deleted(logs: Path) -> None:
    """Seventy old logs of this server: the oldest go, but not the one a live worker writes (`keep`), nor the
    rotated part of it, nor those of another server that still runs."""
    mine = os.getpid()
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        old = [_old_log(logs, f"worker-s{n}-{n}-{mine}.log", n) for n in range(70)]
        live = old[0]
        rotated = _old_log(logs, f"{live.name}.1", 0)
        foreign = _old_log(logs, f"worker-x-1-{other.pid}.log", 0)
        new_log_path("next", keep={live})
        # 72 files, room for the new one: the 23 oldest go unless in use — the three in use stay, so old[1:21] go.
        assert set(logs.iterdir()) == {live, rotated, foreign, *old[21:]}
        assert len(old[21:]) == KEPT_WORKER_LOGS - 1
    finally:
        other.kill()
        other.wait()
