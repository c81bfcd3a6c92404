"""mypy --strict over bridge/, tests/ and bench/ (configured in pyproject.toml's [tool.mypy]) finds nothing: the types are a
checked claim."""

from __future__ import annotations

import subprocess
import sys

from support.paths import REPO

ROOT = REPO


def test_bridge_passes_mypy_strict() -> None:
    """Every module under bridge/gradle_repl, tests/ and bench/ type-checks under mypy's strict mode with zero errors; a
    failure shows mypy's report."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
