"""Makes any frame safe to put on the wire: valid UTF-8 and every field within the frame limit.

Strings from the JVM may hold lone surrogates (a Java String is UTF-16 and need not be valid), and
an exception message can be 70 MB. Either would break the channel: the first can't be encoded, the
second overruns the server's line limit. Both are repaired here, once, for every frame the worker
sends, and every byte cut is counted in the result's `truncated_bytes`.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from gradle_repl.display_kinds import DISPLAY_KINDS
from gradle_repl.frames import DisplayFrame, ErrorResult, SnippetResult, StreamFrame, SuccessResult
from gradle_repl.worker.java import JavaObject

__all__ = ["sanitize_text", "jstr", "cap_text", "safe_frame", "MAX_WARNINGS"]

# A snippet that produces more warnings than this has a problem no reader needs 10,000 lines for.
MAX_WARNINGS = 50

_Model = TypeVar("_Model", bound=BaseModel)


def sanitize_text(text: str) -> str:
    """Lone surrogates become U+FFFD; everything else is kept as is."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def jstr(value: JavaObject) -> str:
    """A Java string as Python text, even when it holds lone surrogates (JPype's own conversion raises)."""
    try:
        return str(value)
    except UnicodeDecodeError:
        # UTF-16 is the String's own encoding: every char survives, a lone surrogate becomes U+FFFD.
        units = bytes(value.getBytes("UTF-16LE"))
        return sanitize_text(units.decode("utf-16-le", "surrogatepass"))


def cap_text(text: str, limit: int) -> tuple[str, int]:
    """The text cut to at most `limit` UTF-8 bytes *including* a note saying how much went, and the bytes cut.

    The note fits inside the limit, so capping capped text again changes nothing: a second cut would replace the
    first note (the whole cut) with one that names only its own few bytes."""
    encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return text, 0
    note_room = len(_truncation_note(len(encoded)).encode("utf-8"))  # the longest the note can be
    kept = encoded[: max(0, limit - note_room)].decode("utf-8", errors="ignore")
    cut = len(encoded) - len(kept.encode("utf-8"))
    return kept + _truncation_note(cut), cut


def _truncation_note(cut: int) -> str:
    return f"\n… [{cut} bytes truncated]"


def _clean(value: object) -> object:
    if isinstance(value, str):
        return sanitize_text(value)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, BaseModel):
        return _clean_model(value)
    return value


def _clean_model(model: _Model) -> _Model:
    return model.model_copy(update={name: _clean(getattr(model, name)) for name in type(model).model_fields})


def safe_frame(frame: BaseModel, limit: int) -> BaseModel:
    """A copy of frame with valid text and every text field of a stream, display or result frame capped."""
    frame = _clean_model(frame)
    if isinstance(frame, (StreamFrame, DisplayFrame)) and not (
        isinstance(frame, DisplayFrame) and DISPLAY_KINDS[frame.kind].binary
    ):
        data, _ = cap_text(frame.data, limit)
        return frame.model_copy(update={"data": data})
    if not isinstance(frame, SnippetResult):
        return frame
    compile_warnings, cut = _cap_warnings(frame.compile_warnings, limit)
    update: dict[str, object] = {"compile_warnings": compile_warnings}
    if isinstance(frame, ErrorResult):
        update["message"], n = cap_text(frame.message, limit)
        cut += n
        update["stack"], n = cap_text(frame.stack, limit)
        cut += n
    if isinstance(frame, SuccessResult) and frame.value is not None and not DISPLAY_KINDS[frame.value.kind].binary:
        data, n = cap_text(frame.value.data, limit)
        cut += n
        update["value"] = frame.value.model_copy(update={"data": data})
    return frame.model_copy(update={**update, "truncated_bytes": frame.truncated_bytes + cut})


def _cap_warnings(warnings: list[str], limit: int) -> tuple[list[str], int]:
    """At most MAX_WARNINGS warnings of a tenth of the frame limit each, saying how many more were dropped;
    and how many bytes that cut."""
    capped: list[str] = []
    cut = 0
    for warning in warnings[:MAX_WARNINGS]:
        text, n = cap_text(warning, limit // 10)
        capped.append(text)
        cut += n
    dropped = warnings[MAX_WARNINGS:]
    if dropped:
        cut += sum(len(w.encode("utf-8")) for w in dropped)
        capped.append(f"… {len(dropped)} more warnings dropped")
    return capped, cut
