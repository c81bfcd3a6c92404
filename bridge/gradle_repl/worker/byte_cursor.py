"""Reading a big-endian byte string front to back: the attach agent's messages (agent_wire.py) and class files
(class_files.py) alike. Each reader names what running past the end means in its own terms."""

from __future__ import annotations

import struct

__all__ = ["ByteCursor"]


class ByteCursor:
    """A position in `data`; every read moves it on, and a read past the end raises `error(ends_early)`."""

    def __init__(self, data: bytes, *, error: type[Exception], ends_early: str) -> None:
        self._data = data
        self._at = 0
        self._error, self._ends_early = error, ends_early

    def take(self, size: int) -> bytes:
        chunk = self._data[self._at : self._at + size]
        if len(chunk) != size:
            raise self._error(self._ends_early)
        self._at += size
        return chunk

    def unpack(self, layout: str) -> int:
        """One integer of a struct layout (`>q`, `>H`, ...), read at the position."""
        return int(struct.unpack(layout, self.take(struct.calcsize(layout)))[0])
