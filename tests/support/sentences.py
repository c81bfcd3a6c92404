"""What an error message a user reads must be: one sentence, on one line, with no repr of an internal object and no
Java or Python stack."""

from __future__ import annotations

import re

__all__ = ["is_a_sentence"]

# What an internal object's repr, a Python traceback or a Java stack (a frame, even alone on one line) looks like in
# a message.
_INTERNALS = re.compile(r"\w+\(\w+=|Traceback|\n\s+at |\bat [\w$./<>]+\([\w$.]+:\d+\)|<[\w.]+ object at")


def is_a_sentence(message: str) -> bool:
    """One line, under 400 characters, with nothing of the internals in it."""
    return "\n" not in message and not _INTERNALS.search(message) and len(message) < 400
