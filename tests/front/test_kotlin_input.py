"""The terminal REPL reads more lines exactly while brackets, strings or comments are open."""

from __future__ import annotations

import pytest

from gradle_repl.front.kotlin_input import is_complete


@pytest.mark.parametrize(
    "text",
    [
        "1 + 1",
        "val x = listOf(1, 2)",
        "fun f(a: Int) {\n    return a + 1\n}",
        '"a { b"',
        '"${listOf(1).map { it }}"',
        '"""\nraw { text\n"""',
        '"""a""""',
        "'{'",
        "'\\''",
        "'\\u007B'",
        "// a comment {",
        "/* outer /* inner */ still { */ 1",
        'val s = "\\"{"',
        "x)",  # too many closers: the compiler reports it
    ],
)
def test_complete(text: str) -> None:
    assert is_complete(text)


@pytest.mark.parametrize(
    "text",
    [
        "fun f(a: Int) {",
        "listOf(\n1,",
        "val m = mapOf(1 to [",
        '"""\nraw',
        '"${listOf(1).map {',
        "/* open",
        "/* outer /* inner */",
        'class C {\n  val s = "}"',
    ],
)
def test_incomplete(text: str) -> None:
    assert not is_complete(text)
