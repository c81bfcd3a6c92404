"""A probe's hits as the reply carries them: the JVM's records (gradlerepl.both.ProbeRun.HitRecord) read into frames,
each value's text capped as describe caps a value, the stack trimmed as an error's is."""

from __future__ import annotations

from gradle_repl.frames import Probe, ProbeCapture, ProbeHit, ProbeLocal
from gradle_repl.worker.java import JavaObject
from gradle_repl.worker.results.kotlin_types import kotlin_type_name
from gradle_repl.worker.results.report import StackFrame, users_frames
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.results.value_text import shown_value

__all__ = ["NO_LOCAL_NAMES", "probe_hit"]

NO_LOCAL_NAMES = (
    "its class was compiled without local variable names (javac without -g): locals can't be shown; "
    "`this` and `capture` still are"
)


def probe_hit(record: JavaObject, probes: list[Probe]) -> ProbeHit:
    """One hit record as a frame."""
    frames = tuple(
        StackFrame(
            class_name=jstr(e.getClassName()),
            method=jstr(e.getMethodName()),
            file=jstr(e.getFileName()) if e.getFileName() is not None else None,
            line=int(e.getLineNumber()),
        )
        for e in record.stack
    )
    kept, hidden = users_frames(frames)
    stack = [frame.render().strip().removeprefix("at ") for frame in kept]
    if hidden:
        stack.append(f"... {hidden} more (REPL internals)")
    probe = probes[int(record.probe)]
    notes = []
    if record.whenError is not None:
        notes.append(f"`when` threw {jstr(record.whenError)}: recorded as a hit")
    if bool(record.noLocalNames):
        notes.append(NO_LOCAL_NAMES)
    return ProbeHit(
        at=stack[0] if stack else "",
        probe=int(record.probe),
        hit=int(record.hit),
        thread=jstr(record.thread),
        locals=[
            ProbeLocal(name=jstr(name), type=jstr(kind), value=_text(value))
            for name, kind, value in zip(record.localNames, record.localTypes, record.localValues, strict=True)
        ],
        this=_text(record.self) if record.self is not None else None,
        captured=[
            _captured(expression, value, kind)
            for expression, value, kind in zip(probe.capture, record.captured, record.capturedTypes, strict=True)
        ],
        stack=stack,
        notes=notes,
    )


def _text(value: JavaObject) -> str:
    if value.error is not None:
        return f"<can't be read: {jstr(value.error)}>"
    return shown_value(jstr(value.text), int(value.length))


def _captured(expression: str, value: JavaObject, kind: JavaObject) -> ProbeCapture:
    if value.error is not None:
        return ProbeCapture(expression=expression, error=jstr(value.error))
    return ProbeCapture(
        expression=expression, value=_text(value), type=kotlin_type_name(jstr(kind)) if kind is not None else None
    )
