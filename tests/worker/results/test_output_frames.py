"""How printed text is put into frames (worker/results/output_frames.frame_pieces): all of it, each frame within the limit,
split after a line end when one is near, never inside a character. Pure logic; the real worker's end of it is in
test_worker_output.py."""

from __future__ import annotations

import pytest

from gradle_repl.worker.results.output_frames import frame_pieces

LIMIT = 1_000


def _fits(pieces: list[str]) -> bool:
    return all(len(piece.encode()) <= LIMIT for piece in pieces)


def test_text_within_a_frame_is_one_piece_unchanged() -> None:
    """Text of exactly the limit is one piece, the same text."""
    text = "é" * (LIMIT // 2)
    assert frame_pieces(text, LIMIT) == [text]


def test_lines_are_split_after_a_line_end_in_the_pieces_last_quarter() -> None:
    """40-byte lines: every piece but the last ends with a whole line, is within the limit and at least three
    quarters full; the pieces join back to the text."""
    text = "".join(f"line {n:04d} {'-' * 29}\n" for n in range(500))
    pieces = frame_pieces(text, LIMIT)
    assert "".join(pieces) == text and _fits(pieces) and len(pieces) == 20
    assert all(piece.endswith("\n") and len(piece) >= LIMIT * 3 // 4 for piece in pieces[:-1])


def test_a_line_end_far_from_the_limit_does_not_split_there() -> None:
    """A line end in a piece's first three quarters is not near: the piece is filled to the limit."""
    text = "head\n" + "x" * 3_000
    pieces = frame_pieces(text, LIMIT)
    assert [len(piece) for piece in pieces] == [1_000, 1_000, 1_000, 5] and "".join(pieces) == text


# Each multi-byte character with each count of its bytes that would fall past the limit.
_STRADDLING = [(char, past) for char in ("é", "€", "😀") for past in range(1, len(char.encode()))]


@pytest.mark.parametrize(
    ("char", "past"), _STRADDLING, ids=[f"{len(c.encode())} bytes, {p} past" for c, p in _STRADDLING]
)
def test_a_character_across_the_limit_goes_whole_into_the_next_piece(char: str, past: int) -> None:
    """A multi-byte character whose bytes would straddle the limit is never split: it opens the next piece."""
    text = "a" * (LIMIT - len(char.encode()) + past) + char + "b" * 10
    pieces = frame_pieces(text, LIMIT)
    assert "".join(pieces) == text and _fits(pieces) and len(pieces) == 2
    assert pieces[1].startswith(char) and "\ufffd" not in "".join(pieces)
