"""The CLI's eval and demo commands run real sessions and print real results."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import SAMPLE_PROJECT

pytestmark = pytest.mark.jvm


def gradle_repl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gradle_repl", *args], capture_output=True, text=True, timeout=600)


def test_eval_runs_snippets_in_one_session():
    done = gradle_repl("eval", str(SAMPLE_PROJECT), "--build-tool", "maven", "-e", "val x = 6", "-e", "x * 7")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [">>> val x = 6", "OK (no value)", ">>> x * 7", "42", "// type: kotlin.Int"]


def test_eval_exits_1_when_a_snippet_fails():
    """A failed snippet sets the exit status; a compile warning is printed once, before the error it explains."""
    done = gradle_repl("eval", str(SAMPLE_PROJECT), "--build-tool", "maven", "-e", "missing", "-e", "val d = 1 / 0")
    assert done.returncode == 1 and "Unresolved reference 'missing'" in done.stdout
    lines = done.stdout.splitlines()
    warning = lines.index("warning: Division by zero. (line 1, col 9)")
    assert lines[warning + 3] == "Error: java.lang.ArithmeticException: / by zero", done.stdout
    assert "warning: warning:" not in done.stdout


def test_usage_errors_exit_2():
    assert gradle_repl("eval").returncode == 2


def test_demo_prints_each_snippet_and_its_real_result():
    """README command (1)'s last step: a session through the MCP server over stdio."""
    done = gradle_repl("demo")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "tools run_kotlin_snippet" in out
    assert "[The Trial, Dubliners, The Waves]" in out
    assert "Loan(title=dubliners, days=14)" in out
    assert "{Franz Kafka=1925.0, James Joyce=1914.0, Virginia Woolf=1931.0}" in out
    assert "Error: java.lang.IllegalStateException: a runtime error" in out
