"""A declared value's text as describe shows it (worker/results/value_text.py): one line, capped with the cut counted,
snippet classes named as written, and one wording each for a value that threw or didn't finish."""

from __future__ import annotations

from gradle_repl.worker.results.value_text import (
    DESCRIBE_SECONDS,
    VALUE_LIMIT_CHARS,
    shown_value,
    unfinished,
    unreadable,
)


def test_a_short_value_is_shown_as_it_is() -> None:
    """Within the cap, nothing is cut or added."""
    assert shown_value("[1, 2, 3]", 9) == "[1, 2, 3]"


def test_a_long_value_says_how_many_characters_were_cut() -> None:
    """Past the cap, the capped text is followed by the count of what was left out."""
    length = VALUE_LIMIT_CHARS + 42
    assert shown_value("x" * VALUE_LIMIT_CHARS, length) == "x" * VALUE_LIMIT_CHARS + "… (42 more characters)"


def test_a_value_of_several_lines_is_shown_on_one() -> None:
    """Line breaks and the runs of blanks around them become single spaces."""
    assert shown_value("Cart(\n  items=2,\n  total=9\n)", 26) == "Cart( items=2, total=9 )"


def test_a_snippet_class_is_named_as_the_user_wrote_it() -> None:
    """A toString() of Any's reads `K@…`, not the REPL's nested `_5_repl$K@…`."""
    assert shown_value("_5_repl$K@1b2c3d", 16) == "K@1b2c3d"


def test_a_value_that_threw_or_never_finished_says_which() -> None:
    """A throw names its class; a slow toString() its wait; one never read the describe's own time."""
    assert unreadable("java.lang.IllegalStateException") == "<can't be read: java.lang.IllegalStateException>"
    assert unfinished(2.0) == "<toString() did not finish within 2.0 s>"
    assert unfinished(0) == f"<not rendered: describing took its {DESCRIBE_SECONDS:g} s>"
