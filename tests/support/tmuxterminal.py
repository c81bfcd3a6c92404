"""A terminal a person types into: one tmux pane on a private tmux server, read back as its screen; and the
gradle-repl command installed beside this Python."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["GRADLE_REPL", "Terminal"]

GRADLE_REPL = str(Path(sys.executable).with_name("gradle-repl"))


class Terminal:
    """One tmux pane on a private tmux server running a command."""

    def __init__(self, socket: str, name: str, command: str) -> None:
        self._tmux = ["tmux", "-L", socket]
        self._name = name
        subprocess.run([*self._tmux, "new-session", "-d", "-s", name, "-x", "180", "-y", "60", command], check=True)

    def keys(self, *keys: str) -> None:
        subprocess.run([*self._tmux, "send-keys", "-t", self._name, *keys], check=True)

    def type(self, line: str) -> None:
        self.keys("-l", line)
        self.keys("Enter")

    def screen(self) -> str:
        return subprocess.run(
            [*self._tmux, "capture-pane", "-p", "-J", "-S", "-200", "-t", self._name],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    def wait_for(self, pattern: str, after: int = 0, seconds: float = 120.0) -> re.Match[str]:
        """Polls the screen until `pattern` appears past character `after` (never a fixed sleep)."""
        deadline = time.monotonic() + seconds
        while True:
            screen = self.screen()
            match = re.compile(pattern).search(screen, after)
            if match:
                return match
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} never appeared; screen:\n{screen}")
            time.sleep(0.1)

    def mark(self) -> int:
        return len(self.screen().rstrip())
