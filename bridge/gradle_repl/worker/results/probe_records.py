"""A probe's hit as recorded where it fired (gradlerepl.both.ProbeRun.HitRecord): read through JPype in the worker's
own JVM, or off the agent's wire from an attached app. Values are text already, capped where they were read."""

from __future__ import annotations

from dataclasses import dataclass, field

from gradle_repl.worker.results.report import StackFrame

__all__ = ["HitRecord", "ProbeSetSpec", "ProbeText", "RunCounts", "SetProbe", "SetSite"]


@dataclass(frozen=True)
class ProbeText:
    """A value's first characters and its whole length, or why it couldn't be read."""

    text: str
    length: int
    error: str | None = None


@dataclass(frozen=True)
class HitRecord:
    probe: int  # the probe's index in its set
    hit: int
    thread: str
    stack: tuple[StackFrame, ...]
    locals: list[tuple[str, str, ProbeText]]  # name, declared type (Kotlin), value
    self: ProbeText | None
    captured: list[tuple[ProbeText, str | None]]  # value, runtime class (Class.getName) or None
    when_error: str | None
    no_local_names: bool


@dataclass
class RunCounts:
    """A set of probes after a look: each probe's hits (up to its maxHits) and whether it is still in the code, and
    what happened to them besides their hits."""

    hits: list[int] = field(default_factory=list)
    active: list[bool] = field(default_factory=list)


@dataclass(frozen=True)
class SetSite:
    """A site of a probe as an attached app's agent gets it: its id, class, method, locals (name, declared Kotlin type),
    its compiled `when`/`capture` class and its package's door class (both None for none)."""

    id: int
    class_name: str
    method: str
    locals: list[tuple[str, str]]
    code: bytes | None
    door: bytes | None


@dataclass(frozen=True)
class SetProbe:
    index: int
    max_hits: int
    line: int
    last_line: int
    has_when: bool
    captures: int
    no_local_names: bool
    sites: list[SetSite]


@dataclass(frozen=True)
class ProbeSetSpec:
    """A set of probes for an attached app (the wire's `P`): the worker's number for it, the longest value text, when
    it expires (ms from now; 0 never), its probes, and each probed class's instrumented bytes with the version of the
    bytes they were made from."""

    run: int
    value_limit: int
    expires_ms: int
    probes: list[SetProbe]
    classes: list[tuple[str, int, bytes]]
