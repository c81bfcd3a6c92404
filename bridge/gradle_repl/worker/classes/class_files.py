"""What a class file declares, read from its bytes (JVM spec §4): enough to say why the JVM refuses to redefine a
class in place (a method or field added or removed, its supertypes or modifiers changed) and whether its static
initialiser changed (which a redefinition never runs again). Pure: unit-tested on class files javac and kotlinc wrote."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from gradle_repl.worker.byte_cursor import ByteCursor

__all__ = ["ClassShape", "read_class", "refusal", "initialiser_changed", "constant_changed"]

# Bytes each constant-pool tag's entry takes after the tag (Utf8's are counted from its length).
_CONSTANT_SIZES = {
    3: 4,
    4: 4,
    5: 8,
    6: 8,
    7: 2,
    8: 2,
    9: 4,
    10: 4,
    11: 4,
    12: 4,
    15: 3,
    16: 2,
    17: 4,
    18: 4,
    19: 2,
    20: 2,
}
# The access flags a redefinition may not change: public, private, protected, static, final, interface, abstract.
_CLASS_FLAGS = 0x0001 | 0x0010 | 0x0200 | 0x0400
_MEMBER_FLAGS = 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010
# Operand bytes after each opcode whose operands are not 0; (operand bytes, constant-pool index width).
_OPERANDS: dict[int, tuple[int, int]] = {
    0x10: (1, 0),
    0x11: (2, 0),
    0x12: (1, 1),
    0x13: (2, 2),
    0x14: (2, 2),
    0x84: (2, 0),
    0xA9: (1, 0),
    0xBC: (1, 0),
    0xB9: (4, 2),
    0xBA: (4, 2),
    0xC5: (3, 2),
    0xC8: (4, 0),
    0xC9: (4, 0),
    **dict.fromkeys(range(0x15, 0x1A), (1, 0)),
    **dict.fromkeys(range(0x36, 0x3B), (1, 0)),
    **dict.fromkeys(range(0x99, 0xA9), (2, 0)),
    **dict.fromkeys(range(0xB2, 0xB9), (2, 2)),
    **dict.fromkeys((0xBB, 0xBD, 0xC0, 0xC1), (2, 2)),
    0xC6: (2, 0),
    0xC7: (2, 0),
}


@dataclass(frozen=True)
class ClassShape:
    """A class's name, supertypes and members (each `name descriptor`), and its static initialiser's code with every
    constant-pool reference resolved (so that constants moving in the pool don't read as a change)."""

    name: str
    flags: int
    superclass: str | None
    interfaces: tuple[str, ...]
    fields: frozenset[tuple[str, int]]
    methods: frozenset[tuple[str, int]]
    initialiser: tuple[object, ...] | None
    # Static final fields with a constant value (`const val`, Java's constants), by name: other classes compiled
    # against them hold the value itself, so a changed value reaches them only when they compile again.
    constants: frozenset[tuple[str, object]] = frozenset()


class _Reader(ByteCursor):
    def __init__(self, data: bytes) -> None:
        super().__init__(data, error=ValueError, ends_early="the class file ends early")

    def u1(self) -> int:
        return self.take(1)[0]

    def u2(self) -> int:
        return self.unpack(">H")

    def u4(self) -> int:
        return self.unpack(">I")


def read_class(data: bytes) -> ClassShape:
    """The shape of one class file; ValueError when the bytes are not one."""
    reader = _Reader(data)
    if reader.u4() != 0xCAFEBABE:
        raise ValueError("not a class file")
    reader.take(4)  # minor, major version
    pool = _constant_pool(reader)
    flags, this, superclass = reader.u2(), reader.u2(), reader.u2()
    interfaces = tuple(_class_name(pool, reader.u2()) for _ in range(reader.u2()))
    declared = _members(reader, pool)
    fields = frozenset((f"{name} {descriptor}", access & _MEMBER_FLAGS) for name, descriptor, access, _ in declared)
    constants = frozenset((name, _resolved(pool, value)) for name, _, _, value in declared if isinstance(value, int))
    initialiser: tuple[object, ...] | None = None
    methods = set()
    for name, descriptor, access, code in _members(reader, pool):
        methods.add((f"{name} {descriptor}", access & _MEMBER_FLAGS))
        if name == "<clinit>" and isinstance(code, bytes):
            initialiser = _resolved_code(code, pool)
    return ClassShape(
        name=_class_name(pool, this).replace("/", "."),
        flags=flags & _CLASS_FLAGS,
        superclass=_class_name(pool, superclass) if superclass else None,
        interfaces=interfaces,
        fields=fields,
        methods=frozenset(methods),
        initialiser=initialiser,
        constants=constants,
    )


def refusal(old: ClassShape, new: ClassShape) -> str | None:
    """Why the JVM refuses to redefine old as new (`a method was added: total(I)I`), or None when it allows it."""
    if (old.superclass, old.interfaces) != (new.superclass, new.interfaces):
        return "its supertypes changed"
    if old.flags != new.flags:
        return "its modifiers changed"
    for what, before, after in (("method", old.methods, new.methods), ("field", old.fields, new.fields)):
        before_names, after_names = {m for m, _ in before}, {m for m, _ in after}
        if added := sorted(after_names - before_names):
            return f"a {what} was added: {_shown(added[0], what)}"
        if removed := sorted(before_names - after_names):
            return f"a {what} was removed: {_shown(removed[0], what)}"
        if changed := sorted(m for m, access in after - before):
            return f"a {what}'s modifiers changed: {_shown(changed[0], what)}"
    return None


def initialiser_changed(old: ClassShape, new: ClassShape) -> bool:
    """Whether the static initialiser (top-level and companion vals, objects' fields) does something else now."""
    return old.initialiser != new.initialiser


def constant_changed(old: ClassShape, new: ClassShape) -> str | None:
    """The first constant (`const val`) whose value changed, or None."""
    before, after = dict(old.constants), dict(new.constants)
    return next((name for name in sorted(before) if name in after and before[name] != after[name]), None)


def _shown(member: str, what: str) -> str:
    """A method as `name(descriptor)` (overloads differ only there), a field by its name."""
    name, descriptor = member.split(" ", 1)
    return f"{name}{descriptor}" if what == "method" else name


def _constant_pool(reader: _Reader) -> list[object]:
    count = reader.u2()
    pool: list[object] = [None] * count
    index = 1
    while index < count:
        tag = reader.u1()
        if tag == 1:
            pool[index] = ("utf8", reader.take(reader.u2()).decode("utf-8", errors="replace"))
        elif tag in _CONSTANT_SIZES:
            pool[index] = (tag, reader.take(_CONSTANT_SIZES[tag]))
        else:
            raise ValueError(f"unknown constant-pool tag {tag}")
        index += 2 if tag in (5, 6) else 1  # longs and doubles take two entries
    return pool


def _utf8(pool: list[object], index: int) -> str:
    entry = pool[index]
    if not (isinstance(entry, tuple) and entry[0] == "utf8"):
        raise ValueError(f"constant {index} is not a name")
    return str(entry[1])


def _class_name(pool: list[object], index: int) -> str:
    entry = pool[index]
    if not (isinstance(entry, tuple) and entry[0] == 7):
        raise ValueError(f"constant {index} is not a class")
    return _utf8(pool, struct.unpack(">H", entry[1])[0])


def _resolved(pool: list[object], index: int, depth: int = 0) -> object:
    """A constant as a value that doesn't depend on where the pool put it or what it refers to."""
    entry = pool[index] if 0 < index < len(pool) else None
    if not isinstance(entry, tuple) or depth > 4:
        return index
    tag, payload = entry
    if tag == "utf8" or tag in (3, 4, 5, 6):
        return payload
    if tag == 18 or tag == 17:  # (invoke)dynamic: the bootstrap method's index, then the name and type
        bootstrap, name_and_type = struct.unpack(">HH", payload)
        return ("dynamic", bootstrap, _resolved(pool, name_and_type, depth + 1))
    if tag == 15:
        kind, reference = struct.unpack(">BH", payload)
        return ("handle", kind, _resolved(pool, reference, depth + 1))
    references = struct.unpack(f">{len(payload) // 2}H", payload)
    return (tag, *(_resolved(pool, ref, depth + 1) for ref in references))


def _members(reader: _Reader, pool: list[object]) -> list[tuple[str, str, int, bytes | int | None]]:
    """Each field's or method's name, descriptor, access flags and its code (a method) or its constant value's pool
    index (a constant field)."""
    members = []
    for _ in range(reader.u2()):
        access, name, descriptor = reader.u2(), _utf8(pool, reader.u2()), _utf8(pool, reader.u2())
        code: bytes | int | None = None
        for _ in range(reader.u2()):
            attribute, length = _utf8(pool, reader.u2()), reader.u4()
            body = reader.take(length)
            if attribute == "Code":
                code_length = struct.unpack(">I", body[4:8])[0]
                code = body[8 : 8 + code_length]
            elif attribute == "ConstantValue":
                code = struct.unpack(">H", body[:2])[0]
        members.append((name, descriptor, access, code))
    # Class attributes follow the methods; the members are all this reads.
    return members


def _resolved_code(code: bytes, pool: list[object]) -> tuple[object, ...]:
    """The bytecode as opcodes and operands, each constant-pool index replaced by what it names."""
    out: list[object] = []
    at = 0
    while at < len(code):
        op = code[at]
        out.append(op)
        if op in (0xAA, 0xAB):  # tableswitch, lookupswitch: padded to 4, then their tables
            start = at + 1 + (-(at + 1) % 4)
            if op == 0xAA:
                low, high = struct.unpack(">ii", code[start + 4 : start + 12])
                end = start + 12 + 4 * (high - low + 1)
            else:
                pairs = struct.unpack(">i", code[start + 4 : start + 8])[0]
                end = start + 8 + 8 * pairs
            out.append(code[at + 1 : end])
            at = end
            continue
        if op == 0xC4:  # wide: a load, store or ret with a 2-byte index, or iinc with two 2-byte operands
            width = 5 if code[at + 1] == 0x84 else 3
            out.append(code[at + 1 : at + 1 + width])
            at += 1 + width
            continue
        size, pool_width = _OPERANDS.get(op, (0, 0))
        operands = code[at + 1 : at + 1 + size]
        if pool_width:
            index = int.from_bytes(operands[:pool_width], "big")
            out.append(_resolved(pool, index))
            out.append(operands[pool_width:])
        elif size:
            out.append(operands)
        at += 1 + size
    return tuple(out)
