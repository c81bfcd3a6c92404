"""ruff (configured in pyproject.toml's [tool.ruff]) finds nothing to lint or to reformat in the Python sources."""

from __future__ import annotations

import subprocess
import sys

from support.paths import REPO

ROOT = REPO
# Every folder of Python the project keeps; each is linted and formatted alike.
SOURCES = ("bridge", "tests", "bench", "scripts")
# ruff reads a tree in well under a second; past this it hangs.
RUFF_TIMEOUT_SECONDS = 120


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, "--config", str(ROOT / "pyproject.toml"), *SOURCES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=RUFF_TIMEOUT_SECONDS,
    )


def test_sources_pass_ruff_check() -> None:
    """No lint finding in bridge/, tests/, bench/ or scripts/; a failure shows ruff's report."""
    done = _ruff("check", "--no-cache", "--output-format", "full")
    assert done.returncode == 0, done.stdout + done.stderr


def test_sources_are_ruff_formatted() -> None:
    """Every Python source is as `ruff format` writes it; a failure lists the files (`ruff format` rewrites them)."""
    done = _ruff("format", "--no-cache", "--check")
    assert done.returncode == 0, done.stdout + done.stderr
