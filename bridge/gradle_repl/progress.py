"""Where progress lines go: a build's output lines and gradle-repl's own, as they happen."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ProgressCallback"]

ProgressCallback = Callable[[str], None]
