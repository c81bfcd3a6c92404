"""A call's probe hits as text, after the result: one head line per hit (which probe, which time, where, on which
thread), then its locals, `this` and captures, one per line. The data (structuredContent's probeHits) has the same
and each hit's stack."""

from __future__ import annotations

from collections.abc import Sequence

from gradle_repl.frames import ProbeHit

__all__ = ["probe_report"]


def probe_report(hits: Sequence[ProbeHit], notes: Sequence[str]) -> str | None:
    """The hits and notes as text; None when the call set no probe that fired and has nothing to say of one."""
    if not hits and not notes:
        return None
    lines: list[str] = []
    for hit in hits:
        lines.append(f"[probe {hit.probe} hit {hit.hit}] {hit.at} on {hit.thread}")
        lines += [f"  {local.name}: {local.type} = {local.value}" for local in hit.locals]
        if hit.this is not None:
            lines.append(f"  this = {hit.this}")
        for captured in hit.captured:
            shown = f"threw {captured.error}" if captured.error is not None else f"= {captured.value}"
            lines.append(f"  {captured.expression} {shown}")
        lines += [f"  ({note})" for note in hit.notes]
    lines += [f"[probes] {note}" for note in notes]
    return "\n".join(lines)
