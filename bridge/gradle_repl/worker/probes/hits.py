"""A probe's hits as the reply carries them: the JVM's records (gradlerepl.both.ProbeRun.HitRecord) read into frames,
each value's text capped as describe caps a value, the stack trimmed as an error's is."""

from __future__ import annotations

from gradle_repl.frames import Probe, ProbeCapture, ProbeHit, ProbeLocal
from gradle_repl.worker.java import JavaObject
from gradle_repl.worker.results.kotlin_types import kotlin_type_name
from gradle_repl.worker.results.probe_records import HitRecord, ProbeText
from gradle_repl.worker.results.report import StackFrame, is_snippet_file, users_frames
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.results.value_text import shown_value

__all__ = ["NO_KOTLIN_THERE", "NO_LOCAL_NAMES", "jvm_record", "probe_hit"]

NO_LOCAL_NAMES = (
    "its class was compiled without local variable names (javac without -g): locals can't be shown; "
    "`this` and `capture` still are"
)


# What a probe's code meets where the probed class's loader has no Kotlin (a Java app): it runs in that class's nest.
_NO_KOTLIN = "java.lang.NoClassDefFoundError: kotlin/"
NO_KOTLIN_THERE = (
    "the probed class's loader has no Kotlin runtime (a Java app), and `when` and `capture` run there: write them "
    "with Java's API (`names.size`, not `names.joinToString()`)"
)


def jvm_record(record: JavaObject) -> HitRecord:
    """A hit recorded in this JVM (gradlerepl.both.ProbeRun.HitRecord) as the worker keeps it."""
    return HitRecord(
        probe=int(record.probe),
        hit=int(record.hit),
        thread=jstr(record.thread),
        stack=tuple(
            StackFrame(
                class_name=jstr(e.getClassName()),
                method=jstr(e.getMethodName()),
                file=jstr(e.getFileName()) if e.getFileName() is not None else None,
                line=int(e.getLineNumber()),
            )
            for e in record.stack
        ),
        locals=[
            (jstr(name), jstr(kind), _jvm_text(value))
            for name, kind, value in zip(record.localNames, record.localTypes, record.localValues, strict=True)
        ],
        self=_jvm_text(record.self) if record.self is not None else None,
        captured=[
            (_jvm_text(value), jstr(kind) if kind is not None else None)
            for value, kind in zip(record.captured, record.capturedTypes, strict=True)
        ],
        when_error=jstr(record.whenError) if record.whenError is not None else None,
        no_local_names=bool(record.noLocalNames),
    )


def probe_hit(record: HitRecord, probes: list[Probe]) -> ProbeHit:
    """One hit record as a frame."""
    kept, hidden = users_frames(record.stack)
    stack = [frame.render().strip().removeprefix("at ") for frame in kept]
    if hidden:
        # A snippet's call reaches the line through the REPL; a request in an app, through its server and libraries.
        through = "REPL internals" if any(is_snippet_file(f.file) for f in record.stack) else "the JDK's and libraries'"
        stack.append(f"... {hidden} more ({through})")
    probe = probes[record.probe]
    notes = []
    if record.when_error is not None:
        notes.append(f"`when` threw {record.when_error}: recorded as a hit")
    if record.no_local_names:
        notes.append(NO_LOCAL_NAMES)
    errors = [record.when_error, *(value.error for value, _ in record.captured)]
    if any(error and _NO_KOTLIN in error for error in errors):
        notes.append(NO_KOTLIN_THERE)
    return ProbeHit(
        at=stack[0] if stack else "",
        probe=record.probe,
        hit=record.hit,
        thread=record.thread,
        locals=[ProbeLocal(name=name, type=kind, value=_text(value)) for name, kind, value in record.locals],
        this=_text(record.self) if record.self is not None else None,
        captured=[
            _captured(expression, value, kind)
            for expression, (value, kind) in zip(probe.capture, record.captured, strict=True)
        ],
        stack=stack,
        notes=notes,
    )


def _jvm_text(value: JavaObject) -> ProbeText:
    return ProbeText(jstr(value.text), int(value.length), jstr(value.error) if value.error is not None else None)


def _text(value: ProbeText) -> str:
    if value.error is not None:
        return f"<can't be read: {value.error}>"
    return shown_value(value.text, value.length)


def _captured(expression: str, value: ProbeText, kind: str | None) -> ProbeCapture:
    if value.error is not None:
        return ProbeCapture(expression=expression, error=value.error)
    return ProbeCapture(
        expression=expression, value=_text(value), type=kotlin_type_name(kind) if kind is not None else None
    )
