"""The `@file:Repository` and `@file:DependsOn` lines gradle-repl writes as Kotlin: the one place their text is built.

The host writes them to add a restarted session's libraries again (host/libraries.py); a session's description shows
the libraries it added the way a user would write them (frames.SessionDescription.summary)."""

from __future__ import annotations

__all__ = ["depends_on", "repository", "kotlin_string"]

# Kotlin's escapes, `$` among them: a coordinate must not become a string template.
_ESCAPES = {"\\": "\\\\", '"': '\\"', "$": "\\$", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def depends_on(coordinate: str) -> str:
    """`@file:DependsOn("group:artifact:version")`."""
    return f"@file:DependsOn({kotlin_string(coordinate)})"


def repository(url: str) -> str:
    """`@file:Repository("https://…")`."""
    return f"@file:Repository({kotlin_string(url)})"


def kotlin_string(text: str) -> str:
    """A Kotlin string literal holding text as it is."""
    escaped = (_ESCAPES.get(c, c if c.isprintable() else f"\\u{ord(c):04x}") for c in text)
    return f'"{"".join(escaped)}"'
