"""A declared value's text as describe shows it, read in this JVM (worker/repl/declarations.py) or in an attached one
(worker/attach/attached_runner.py): one cap, one set of times, one wording for a value that can't be read."""

from __future__ import annotations

from gradle_repl.worker.results.kotlin_types import without_snippet_classes

__all__ = ["DESCRIBE_SECONDS", "VALUE_LIMIT_CHARS", "VALUE_SECONDS", "shown_value", "unfinished", "unreadable"]

VALUE_LIMIT_CHARS = 200
# A value's toString() may block; describing waits this long for one, and this long for all of them
# (well inside the host's describe timeout, past which it would give up on the whole worker).
VALUE_SECONDS = 2.0
DESCRIBE_SECONDS = 12.0


def shown_value(capped: str, length: int) -> str:
    """A value's text as describe shows it: its first VALUE_LIMIT_CHARS characters (`capped`) on one line, and how
    many of its `length` were cut."""
    # As results read: a toString() of Any's names the class as the user wrote it (`K@1b2c3d`, not `_5_repl$K@1b2c3d`).
    capped = without_snippet_classes(capped)
    capped = " ".join(capped.split()) if "\n" in capped else capped
    cut = length - VALUE_LIMIT_CHARS
    return f"{capped}… ({cut} more characters)" if cut > 0 else capped


def unreadable(thrown_class: str) -> str:
    """A value whose reading or toString() threw, as describe shows it: the listing goes on."""
    return f"<can't be read: {thrown_class}>"


def unfinished(waited_seconds: float) -> str:
    """A value whose toString() did not finish in its time, or that was never read because describing took all of its."""
    if waited_seconds <= 0:
        return f"<not rendered: describing took its {DESCRIBE_SECONDS:g} s>"
    return f"<toString() did not finish within {waited_seconds:.1f} s>"
