"""A big-endian reader (worker/byte_cursor.py) reads front to back and says, in its reader's own terms, when the
bytes end before a read does."""

from __future__ import annotations

import struct

import pytest

from gradle_repl.worker.byte_cursor import ByteCursor


class Truncated(Exception):
    """What this test's reader raises for bytes that end early."""


def test_reads_move_the_position_on_in_order() -> None:
    """Each read starts where the last ended: a long, a short, then raw bytes."""
    cursor = ByteCursor(struct.pack(">qH", -2, 513) + b"end", error=Truncated, ends_early="cut")
    assert cursor.unpack(">q") == -2
    assert cursor.unpack(">H") == 513
    assert cursor.take(3) == b"end"


def test_a_read_past_the_end_raises_the_readers_own_error_and_moves_nothing() -> None:
    """Running past the end raises the given exception with the given message; the position stays where it was."""
    cursor = ByteCursor(b"\x00\x01\x02", error=Truncated, ends_early="the message ends early")
    with pytest.raises(Truncated, match="the message ends early"):
        cursor.unpack(">i")
    assert cursor.take(3) == b"\x00\x01\x02"
    with pytest.raises(Truncated):
        cursor.take(1)
