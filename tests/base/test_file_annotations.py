"""The `@file:` lines gradle-repl writes are Kotlin that reads back the text they were given: quotes, backslashes,
a `$` that would start a template, line breaks and unprintable characters all escaped."""

from __future__ import annotations

import pytest

from gradle_repl.file_annotations import depends_on, kotlin_string, repository


def test_a_coordinate_and_a_repository_are_written_as_the_annotations_a_user_would_write() -> None:
    """The two annotations, each around one string literal."""
    assert depends_on("org.jetbrains.kotlinx:kotlinx-datetime:0.6.1") == (
        '@file:DependsOn("org.jetbrains.kotlinx:kotlinx-datetime:0.6.1")'
    )
    assert repository("https://repo.example.com/maven2") == '@file:Repository("https://repo.example.com/maven2")'


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ('a"b', r'"a\"b"'),
        ("a\\b", r'"a\\b"'),
        ("${x}", r'"\${x}"'),
        ("a\nb\r\tc", r'"a\nb\r\tc"'),
        ("\x00\x7f", r'"\u0000\u007f"'),
        ("é ü 日本", '"é ü 日本"'),
    ],
)
def test_a_kotlin_string_escapes_what_kotlin_would_read_otherwise(text: str, literal: str) -> None:
    """A quote, a backslash, a `$`, line breaks and unprintable characters are escaped; printable text stays as it is."""
    assert kotlin_string(text) == literal
