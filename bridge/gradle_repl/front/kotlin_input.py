"""Whether typed Kotlin is complete: the terminal REPL keeps reading lines while it isn't.

Only what a line editor needs: open brackets, string literals (plain, raw, with `${…}` templates),
character literals and comments (block comments nest in Kotlin). The compiler judges the rest.
"""

from __future__ import annotations

__all__ = ["is_complete"]

_OPENERS = {"(": ")", "[": "]", "{": "}"}


def is_complete(text: str) -> bool:
    """False while a bracket, string or block comment is still open at the end of `text`."""
    # Each frame is what we are inside: a closing bracket we expect, '"' / '"""' for strings, '/*' for comments.
    stack: list[str] = []
    i, n = 0, len(text)
    while i < n:
        top = stack[-1] if stack else None
        c = text[i]
        if top == "/*":
            if text.startswith("/*", i):
                stack.append("/*")
                i += 2
            elif text.startswith("*/", i):
                stack.pop()
                i += 2
            else:
                i += 1
        elif top in ('"', '"""'):
            if top == '"' and c == "\\":
                i += 2
            elif text.startswith("${", i):
                stack.append("}")
                i += 2
            elif top == '"""' and text.startswith('"""', i):
                stack.pop()
                i += 3
                while i < n and text[i] == '"':  # a raw string may end with extra quotes: """a""""
                    i += 1
            elif top == '"' and c == '"':
                stack.pop()
                i += 1
            elif top == '"' and c == "\n":
                return True  # an unterminated one-line string is an error the compiler should report
            else:
                i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            stack.append("/*")
            i += 2
        elif text.startswith('"""', i):
            stack.append('"""')
            i += 3
        elif c == '"':
            stack.append('"')
            i += 1
        elif c == "'":
            literal_end = _char_literal_end(text, i)
            if literal_end is None:
                return True  # a stray quote: let the compiler say so
            i = literal_end
        elif c in _OPENERS:
            stack.append(_OPENERS[c])
            i += 1
        elif c in ")]}":
            if stack and stack[-1] == c:
                stack.pop()
            elif not stack:
                return True  # more closers than openers: complete (and wrong), the compiler reports it
            i += 1
        else:
            i += 1
    return not stack


def _char_literal_end(text: str, start: int) -> int | None:
    i = start + 1
    if i < len(text) and text[i] == "\\":
        i += 2
        while i < len(text) and text[i] != "'" and text[i] != "\n":
            i += 1  # \uXXXX
    else:
        i += 1
    return i + 1 if i < len(text) and text[i] == "'" else None
