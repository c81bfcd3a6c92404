"""display_kinds.py is the one table of display kinds, and it matches what the facade's Kotlin emits."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from gradle_repl.display_kinds import DISPLAY_KINDS, display_kind, java_source
from gradle_repl.resources import jvm_worker_both_sources
from support.paths import REPO

JVM_WORKER = REPO / "jvm-worker"
# ReplEvent(kind, mime, text, bytes, displayKind) as the facade's sources construct it (ReplOutput.kt), the display
# kind named by the JVM sides' spelling of the table (DisplayKinds, generated from it).
_EVENT = re.compile(r"ReplEvent\(\s*([^,]+),\s*([^,]+),\s*([^,]+),\s*([^,]+),\s*DisplayKinds\.(\w+)\s*\)")
_CONSTANT = re.compile(r'public static final String (\w+) = "([^"]*)";')


def _java_constants() -> dict[str, str]:
    return dict(_CONSTANT.findall(java_source()))


def _emitted() -> list[tuple[str, str, str, str]]:
    """(displayKind, mime, text, bytes) of every ReplEvent the jvm-worker sources make, constants read as their value."""
    constants = _java_constants()

    def value(expression: str) -> str:
        name = expression.strip().removeprefix("DisplayKinds.")
        return f'"{constants[name]}"' if name in constants else expression.strip()

    return [
        (constants[kind], value(mime), text.strip(), data.strip())
        for source in sorted(JVM_WORKER.rglob("*.kt"))
        for _, mime, text, data, kind in _EVENT.findall(source.read_text(encoding="utf-8"))
    ]


def test_every_kind_the_facade_emits_has_its_rule_and_every_rule_is_emitted() -> None:
    """The Kotlin side names only kinds of the table, each of the table's kinds is emitted somewhere, a text kind
    with the table's MIME type, and a binary kind with bytes and no text."""
    emitted = _emitted()
    assert {kind for kind, *_ in emitted} == set(DISPLAY_KINDS)
    for kind, mime, text, data in emitted:
        rule = DISPLAY_KINDS[display_kind(kind)]
        if rule.binary:
            assert (text, data != "null") == ("null", True), (kind, mime, text, data)
        else:
            assert (mime, data) == (f'"{rule.mime}"', "null"), (kind, mime, text, data)


def test_an_unknown_kind_is_refused_by_name() -> None:
    """A kind the table lacks is a validation error naming it, never passed on as a string."""
    with pytest.raises(ValidationError, match="chart"):
        display_kind("chart")


def test_the_jvm_sides_spell_the_kinds_and_mime_types_of_the_table() -> None:
    """jvm-worker/runs-in-both's DisplayKinds (compiled into the facade and the agent) names each kind and its MIME type
    as display_kinds.py's table does, and nothing else."""
    constants = _java_constants()
    kinds = {name: value for name, value in constants.items() if not name.endswith("_MIME") and "/" not in value}
    assert set(kinds.values()) == set(DISPLAY_KINDS)
    for name, kind in kinds.items():
        assert constants[f"{name}_MIME"] == DISPLAY_KINDS[kind].mime, name  # type: ignore[index]  # checked just above


def test_the_jvm_sides_compile_the_display_kinds_generated_from_the_table() -> None:
    """No DisplayKinds.java is written by hand: the shared rules are built with the one generated from the table, so a
    kind or MIME type changed here is what both JVMs compile against."""
    (generated,) = [path for path in jvm_worker_both_sources() if path.name == "DisplayKinds.java"]
    assert generated.read_text(encoding="utf-8") == java_source()
    assert not list(JVM_WORKER.rglob("DisplayKinds.java"))
    constants = _java_constants()
    assert {constants[kind.upper()]: constants[f"{kind.upper()}_MIME"] for kind in DISPLAY_KINDS} == {
        kind: rule.mime for kind, rule in DISPLAY_KINDS.items()
    }
