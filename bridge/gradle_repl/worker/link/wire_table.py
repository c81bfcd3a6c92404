"""The agent wire's one table, as the worker reads it: the agent's WireTable.java (jvm-worker/runs-in-app/agent).

Both sides check every message against it as they write or read one: the agent's Wire in Java, agent_wire.py here
with WireCheck. A row is a kind's letter, who sends it (`agent` or `worker`), and its fields in order: `name:type` with
type `long`, `int`, `text` or `bytes`, `?` when it may be null, and `name:int*(...)` for a count and that many groups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal, get_args

from gradle_repl.errors import GradleReplError
from gradle_repl.resources import jvm_worker_attach_agent_sources

__all__ = ["Sender", "FieldType", "WireField", "message_shapes", "WireCheck", "agent_constant"]

Sender = Literal["agent", "worker"]
FieldType = Literal["long", "int", "text", "bytes"]
_ROW = re.compile(r'\{"(\w)", "(agent|worker)", "([^"]*)"\}')
_FIELD = re.compile(r"\s*(\w+):(long|int|text|bytes)(\?)?(\*\()?")


@dataclass(frozen=True)
class WireField:
    name: str
    type: FieldType
    nullable: bool
    group: tuple[WireField, ...] | None  # the fields repeated as often as this count says


@cache
def message_shapes() -> dict[tuple[Sender, str], tuple[WireField, ...]]:
    """Every message's fields by (sender, kind), read from WireTable.java."""
    (source,) = [path for path in jvm_worker_attach_agent_sources() if path.name == "WireTable.java"]
    shapes: dict[tuple[Sender, str], tuple[WireField, ...]] = {}
    for kind, sender, spec in _ROW.findall(source.read_text(encoding="utf-8")):
        fields, rest = _fields(spec)
        if rest.strip():
            raise GradleReplError(f"WireTable.java's message {kind} has fields that don't parse: {rest!r}")
        shapes[(sender, kind)] = fields
    return shapes


@cache
def agent_constant(source: str, name: str) -> str:
    """A `static final` String or int constant of the agent's source file `source` (WireTable.java's handshake lines,
    AgentOptions.java's token variable, AttachAgent.java's keep-alive timings), as its text: what both sides must agree on, written once, in the agent."""
    (path,) = [path for path in jvm_worker_attach_agent_sources() if path.name == source]
    found = re.search(rf'static final (?:String|int) {name} = "?([^";]*)"?;', path.read_text(encoding="utf-8"))
    if found is None:
        raise GradleReplError(f"{source} has no constant {name}")
    return found.group(1)


def _fields(spec: str) -> tuple[tuple[WireField, ...], str]:
    fields: list[WireField] = []
    while (found := _FIELD.match(spec)) is not None:
        name, kind, nullable, group = found.groups()
        spec = spec[found.end() :]
        repeated: tuple[WireField, ...] | None = None
        if group:
            repeated, spec = _fields(spec)
            spec = spec.removeprefix(")")
        fields.append(WireField(name, _field_type(kind), bool(nullable), repeated))
    return tuple(fields), spec


def _field_type(name: str) -> FieldType:
    for known in get_args(FieldType):
        if known == name:
            field_type: FieldType = known
            return field_type
    raise GradleReplError(f"WireTable.java names a field type the wire doesn't have: {name}")


class WireCheck:
    """Walks one message's fields as they are written or read; GradleReplError at the first one the table doesn't have."""

    def __init__(self, kind: str, sender: Sender) -> None:
        shape = message_shapes().get((sender, kind))
        if shape is None:
            raise GradleReplError(f"the agent wire has no message {kind!r} sent by the {sender} (WireTable.java)")
        self._kind = kind
        self._levels: list[tuple[tuple[WireField, ...], list[int]]] = [(shape, [0, 1])]  # fields, [index, repeats left]

    def next(self, kind: FieldType, *, null: bool = False, count: int = 0) -> None:
        field = self._advance()
        if field is None or field.type != kind or (null and not field.nullable):
            expected = "its end" if field is None else f"{field.name}:{field.type}{'?' if field.nullable else ''}"
            raise GradleReplError(
                f"message {self._kind}: a {'null ' if null else ''}{kind} where WireTable.java has {expected}"
            )
        if field.group is not None and count > 0:
            self._levels.append((field.group, [0, count]))

    def end(self) -> None:
        if (field := self._advance()) is not None:
            raise GradleReplError(f"message {self._kind} ends before its field {field.name} (WireTable.java)")

    def _advance(self) -> WireField | None:
        while self._levels:
            fields, position = self._levels[-1]
            if position[0] < len(fields):
                position[0] += 1
                return fields[position[0] - 1]
            position[1] -= 1
            if position[1] > 0:
                position[0] = 0
                continue
            self._levels.pop()
        return None
