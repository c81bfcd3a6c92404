"""`gradle-repl repl` as a person uses it: typed into a real terminal (tmux), against the real JVM."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.paths import SAMPLE_PROJECT
from support.rawserver import wait_gone
from support.tmuxterminal import GRADLE_REPL, Terminal

pytestmark = [pytest.mark.jvm, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[str]:
    # The process id too: tmp_path's name repeats across concurrent runs, whose teardowns would kill each other's server.
    socket = f"gradle-repl-test-{os.getpid()}-{tmp_path.name}"
    yield socket
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)


def _repl(tmux: str, name: str, data: Path) -> Terminal:
    command = (
        f"GRADLE_REPL_DATA_DIR={data} {GRADLE_REPL} repl {SAMPLE_PROJECT} --build-tool maven; "
        "echo repl-exit=$?; sleep 600"
    )
    return Terminal(tmux, name, command)


def test_a_person_types_multiline_code_cancels_resets_quits_and_finds_their_history(tmux: str, tmp_path: Path) -> None:
    """A person's session at the prompt: multi-line input, checks, Tab completion, a warning before its error, a
    cancel that keeps the state, :session, :reset --replay (the successful inputs run again in a new JVM), :reset,
    Ctrl-D ending the worker, and the history kept for the next prompt."""
    data = tmp_path / "data"
    term = _repl(tmux, "first", data)
    term.wait_for(r"(?m)^kotlin>", seconds=300)

    term.type("val x = 21")
    term.type("fun twice(a: Int): Int {")
    term.wait_for(r"\.\.\.>")  # the bracket is open: the input continues
    term.type("    return a * 2")
    term.type("}")
    at = term.mark()
    term.type("twice(x)")
    term.wait_for(r"42\s+// kotlin\.Int", at)

    at = term.mark()
    term.type(':check twice("no")')  # compiled against the session, never run
    term.wait_for(r"Error: 1 error\(s\); nothing was run\.\nerror: Argument type mismatch[^\n]*\(line 1, col 7\)", at)
    at = term.mark()
    term.type(":check val checkedOnly = twice(x)")
    term.wait_for(r"Compiles; nothing was run\.", at)

    at = term.mark()
    term.keys("-l", "twi")
    term.keys("Tab")  # one candidate: completed in place
    term.wait_for(r"(?m)twice$", at)
    term.keys("-l", "(x) + 1")
    term.keys("Enter")
    term.wait_for(r"43\s+// kotlin\.Int", at)
    at = term.mark()
    term.keys("-l", "x.toSh")
    term.keys("Tab")
    term.wait_for(r"(?m)x\.toShort$", at)
    term.keys("C-c")  # the line is dropped and a fresh prompt follows
    term.wait_for(r"x\.toShort\s*\nkotlin>", at)
    at = term.mark()
    term.keys("-l", "x.co")
    term.keys("Tab")  # several: a menu of them, each with its signature
    term.wait_for(r"coerceAtLeast\s+function fun", at)
    term.wait_for(r"compareTo", at)
    term.keys("C-c")  # the menu closes with the line
    term.wait_for(r"x\.co\s*\nkotlin>\s*$", at)
    at = term.mark()
    term.keys("-l", "val deque = ConcurrentLinkedDe")
    term.keys("Tab")  # one candidate, not imported yet: completed, and its import added above the line
    term.wait_for(
        r"import java\.util\.concurrent\.ConcurrentLinkedDeque\s*\n\s*\.\.\.> val deque = ConcurrentLinkedDeque", at
    )
    term.keys("-l", "<Int>(listOf(4, 5))")
    term.keys("Enter")  # the import and the line run as one snippet
    term.wait_for(r"(?m)^kotlin>", at + 1)
    at = term.mark()
    term.type("deque.size")
    term.wait_for(r"2\s+// kotlin\.Int", at)

    at = term.mark()
    term.type("sample.classics.books.first().author.name")
    term.wait_for(r"Franz Kafka", at)

    at = term.mark()
    term.type("val d = 1 / 0")  # a compile warning, labelled once, before the runtime error it explains
    term.wait_for(r"(?m)^warning: Division by zero\.[^\n]*\n.*\n.*\nerror: java\.lang\.ArithmeticException", at)
    assert "warning: warning:" not in term.screen()

    at = term.mark()
    term.type('println("sleeping"); Thread.sleep(60_000)')
    term.wait_for(r"(?m)^sleeping", at)  # the snippet's output, not the echo of what was typed
    term.keys("C-c")
    term.wait_for(r"\[cancelled\]", at)
    at = term.mark()
    term.type("x")
    term.wait_for(r"21\s+// kotlin\.Int", at)  # an interrupted snippet keeps the session's state
    at = term.mark()
    term.type(":session")
    term.wait_for(r"fun twice\(kotlin\.Int\): kotlin\.Int\s+// snippet 2", at)
    assert "checkedOnly" not in term.screen()[at:]

    at = term.mark()
    term.type(":reset --replay")  # a new JVM, the successful inputs again (not the failed or cancelled ones)
    term.wait_for(r"\[replayed (\d+) of \1 earlier snippet\(s\)\]", at, seconds=180)
    at = term.mark()
    term.type("twice(x)")
    term.wait_for(r"42\s+// kotlin\.Int", at)

    term.type(":reset")
    at = term.mark()
    term.type("x")
    term.wait_for(r"Unresolved reference 'x'", at, seconds=180)
    at = term.mark()
    term.type("ProcessHandle.current().pid()")
    pid = int(term.wait_for(r"(\d+)\s+// kotlin\.Long", at).group(1))

    term.type('"remember me"')
    term.wait_for(r"remember me\s+// kotlin\.String")
    term.keys("C-d")
    term.wait_for(r"repl-exit=0")
    assert wait_gone(pid, 10), "a worker JVM outlived the repl"

    again = _repl(tmux, "second", data)
    again.wait_for(r"(?m)^kotlin>", seconds=180)
    again.keys("Up")
    again.wait_for(r'kotlin> "remember me"')
