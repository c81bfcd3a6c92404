"""`gradle-repl cache` lists the cache's place and its size by kind; `cache clean` empties it, and refuses in one line
naming the pids while a real session worker uses that cache (a worker of another cache doesn't stop it)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from gradle_repl.front.cache_usage import CACHE_KINDS, human_size
from gradle_repl.front.cache_users import cache_users
from gradle_repl.front.cli import main

# How long a worker process may take to show up in the process table with its command line.
WORKER_SEEN_SECONDS = 30.0


def fill(cache: Path) -> None:
    """A cache as gradle-repl leaves it: known kinds of several sizes and a directory an older version left."""
    for relative, size in {
        "class-data/jdk17-abc.jsa": 5000,
        "class-data/jpype-1.jar": 1000,
        "facade/jvm-worker-2.3.21-x.jar": 3000,
        "environments/abc.json": 200,
        "old-thing/a.bin": 700,
    }.items():
        path = cache / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * size)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own cache directory, where gradle-repl's commands look (paths.cache_dir)."""
    directory = tmp_path / "cache"
    directory.mkdir()
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(directory))
    return directory


@contextmanager
def live_worker(cache: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A real session worker process (`python -m gradle_repl.worker`, waiting for its start request) whose cache is
    cache; it exits when its request pipe closes, as when its server goes."""
    env = {**os.environ, "GRADLE_REPL_CACHE_DIR": str(cache)}
    worker = subprocess.Popen(
        [sys.executable, "-m", "gradle_repl.worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    try:
        deadline = time.monotonic() + WORKER_SEEN_SECONDS
        while "gradle_repl.worker" not in psutil.Process(worker.pid).cmdline():
            assert time.monotonic() < deadline, "the worker never showed its command line"
            time.sleep(0.05)
        yield worker
    finally:
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait(timeout=60)


def test_cache_lists_each_kind_by_size_with_what_it_holds(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The first line is the place (and what moved it) and the total; then each kind, largest first, with what it
    holds; a directory gradle-repl doesn't write is "other"."""
    fill(cache)
    assert main(["cache"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{cache} (GRADLE_REPL_CACHE_DIR): {human_size(9900)}"
    kinds = [line.split()[0] for line in lines[1:]]
    assert kinds == ["class-data", "facade", "other", "environments"]
    assert lines[1].split("  ")[-1] == CACHE_KINDS["class-data"]
    assert human_size(6000) in lines[1] and "an older version's" in lines[3]


def test_an_empty_or_absent_cache_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(tmp_path / "never-made"))
    assert main(["cache"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "  (empty: made as sessions need it)"


def test_clean_empties_the_cache_and_says_how_much(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Everything under the cache goes (the directory stays); a link in it goes without what it points to."""
    fill(cache)
    elsewhere = cache.parent / "shared"
    elsewhere.mkdir()
    (elsewhere / "keep.jar").write_bytes(b"k")
    (cache / "agent").symlink_to(elsewhere, target_is_directory=True)
    assert main(["cache", "clean"]) == 0
    assert capsys.readouterr().out.startswith(f"removed {human_size(9900 + len(str(elsewhere)))} from {cache}")
    assert cache.is_dir() and list(cache.iterdir()) == []
    assert (elsewhere / "keep.jar").is_file()


def test_clean_is_refused_while_a_worker_uses_the_cache(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A live session worker of this cache: one line naming its pid, exit 1, nothing removed. A worker of another
    cache (another test run's, say) is no reason to refuse; once the worker is gone, the clean goes ahead."""
    fill(cache)
    with live_worker(cache) as worker:
        assert [user.pid for user in cache_users(cache)] == [worker.pid]
        assert main(["cache", "clean"]) == 1
        err = capsys.readouterr().err
        assert err == (
            f"gradle-repl: not cleaning {cache}: in use by pid {worker.pid} (session worker); "
            "stop them (close their sessions) and run it again\n"
        )
        assert (cache / "facade").is_dir()
    with live_worker(tmp_path / "another-cache"):
        assert cache_users(cache) == []
        assert main(["cache", "clean"]) == 0
    assert list(cache.iterdir()) == []


def test_a_front_end_keeping_sessions_counts_as_a_user_and_a_doctor_does_not(cache: Path) -> None:
    """`gradle-repl serve` (as a client starts it, through the console script) holds the cache; commands that only
    look (doctor, cache, token) don't."""
    from gradle_repl.front.cache_users import _what

    assert _what(["/usr/bin/python3", "/home/u/.local/bin/gradle-repl", "serve", "--http"]) == "gradle-repl serve"
    assert _what(["python", "-m", "gradle_repl", "repl", "."]) == "gradle-repl repl"
    assert _what(["python", "-m", "gradle_repl.project.buildguard", "mvn", "compile"]) == "build"
    assert _what(["/usr/bin/python3", "/home/u/.local/bin/gradle-repl", "doctor"]) is None
    assert _what(["python", "-m", "gradle_repl", "cache", "clean"]) is None
    assert _what(["java", "-jar", "app.jar"]) is None
