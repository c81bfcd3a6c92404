"""Turns what a snippet printed and displayed (the facade's ReplEvents, or an attached session's agent's messages) into
frames that fit the frame limit.

Printed text larger than a frame goes out as several frames (frame_pieces): nothing printed is cut here, only past
the snippet's output limit, where the facade's ReplOutput (or the attach agent) stops keeping it and counts the rest.
A display's text over the limit is cut with a note; an image over it is downscaled by the facade's renderer, else
replaced by a line saying so. Every byte cut is counted, for the result's `truncated_bytes`.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable
from typing import Any, Literal

from gradle_repl.display_kinds import DISPLAY_KINDS, display_kind
from gradle_repl.frames import DisplayFrame, StreamFrame
from gradle_repl.worker.java import Renderer, ReplEvent, byte_array
from gradle_repl.worker.results.safety import cap_text, jstr, sanitize_text

__all__ = ["SnippetOutput", "Send", "frame_pieces"]

Send = Callable[[Any], None]
# ReplEventKind (jvm-worker ReplOutput.kt) of a snippet's streams, by enum name, as the frames name them.
_STREAMS: dict[str, Literal["stdout", "stderr"]] = {"STDOUT": "stdout", "STDERR": "stderr"}
# A piece ends after the last line end in its final quarter when there is one, so a reader (and the progress a
# client shows, the frame's last line) sees whole lines, while no piece is under three quarters full.
_LINE_END_REACH = 4


def frame_pieces(text: str, limit: int) -> list[str]:
    """The text in pieces of at most `limit` UTF-8 bytes that join back to exactly the text (a lone surrogate, which
    UTF-8 can't hold, as U+FFFD as on every frame): each ends after a line end when one lies in its last quarter, else
    at the limit, never inside a character. `limit` is a frame's (at least 1,000 bytes, WorkerOptions), far more than
    the 4 bytes of the longest character."""
    encoded = sanitize_text(text).encode("utf-8")
    if len(encoded) <= limit:
        return [text]
    pieces: list[str] = []
    start = 0
    while len(encoded) - start > limit:
        end = start + limit
        while encoded[end] & 0xC0 == 0x80:  # a continuation byte: the character it belongs to began before the cut
            end -= 1
        line_end = encoded.rfind(b"\n", end - limit // _LINE_END_REACH, end)
        if line_end >= 0:
            end = line_end + 1
        pieces.append(encoded[start:end].decode("utf-8"))
        start = end
    pieces.append(encoded[start:].decode("utf-8"))
    return pieces


class SnippetOutput:
    """The frames of one snippet's output; `truncated` counts the bytes the frame limit cut (of displays: printed
    text is split, not cut)."""

    def __init__(self, renderer: Renderer, frame_limit: int) -> None:
        self._renderer = renderer
        self._limit = frame_limit
        self.truncated = 0

    def forward(self, events: Iterable[ReplEvent], send: Send) -> None:
        """Sends the facade's events (what a snippet in this JVM printed and showed, ReplOutput.drain), in order."""
        for event in events:
            stream = _STREAMS.get(str(event.kind.name()))
            if stream is not None:
                for frame in self.streams(stream, jstr(event.text)):
                    send(frame)
            else:
                send(self.display(event))

    @property
    def frame_limit(self) -> int:
        """The most bytes one frame's data may hold."""
        return self._limit

    def streams(self, stream: Literal["stdout", "stderr"], text: str) -> list[StreamFrame]:
        """Printed text as frames within the limit, all of it, in order."""
        return [StreamFrame(event=stream, data=piece) for piece in frame_pieces(text, self._limit)]

    def display(self, event: ReplEvent) -> DisplayFrame:
        """A display event (or a rendered value) as a frame within the limit."""
        binary = event.bytes is not None
        return self.item(
            str(event.displayKind),
            str(event.mime),
            None if binary else jstr(event.text),
            bytes(event.bytes) if binary else None,
        )

    def item(self, kind_name: str, mime: str, text: str | None, data: bytes | None) -> DisplayFrame:
        """A display item of kind `kind_name` (text for the text kinds, bytes for an image) as a frame within the limit."""
        kind = display_kind(kind_name)
        if not DISPLAY_KINDS[kind].binary:
            return DisplayFrame(kind=kind, mime=mime, data=self._text(text or ""))
        data = data or b""
        # base64 grows data by a third: fit the encoded frame, not the raw bytes.
        raw_limit = self._limit * 3 // 4
        if len(data) <= raw_limit:
            return DisplayFrame(kind="image", mime=mime, data=base64.b64encode(data).decode())
        fitted = self._renderer.fitImage(byte_array(data), raw_limit)
        if fitted is None:
            self.truncated += len(data)
            return DisplayFrame(
                kind="text",
                mime="text/plain",
                data=f"[image dropped: {len(data)} bytes of {mime} did not fit the {raw_limit}-byte frame limit "
                "even downscaled]",
            )
        meta = {"downscaled_from_bytes": str(len(data))}
        return DisplayFrame(kind="image", mime="image/png", data=base64.b64encode(bytes(fitted)).decode(), meta=meta)

    def _text(self, text: str) -> str:
        capped, cut = cap_text(text, self._limit)
        self.truncated += cut
        return capped
