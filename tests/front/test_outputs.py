"""The public schema's items stand alone (front/outputs.py): none inherits an internal model, and each still shows
the internal model it is made from whole — the same fields, each read from it by name."""

from __future__ import annotations

import inspect

import pytest
from pydantic import BaseModel

from gradle_repl.frames import CodeDiagnostic, CompilerDiagnostic, Completion, Declaration, TextEdit
from gradle_repl.front import outputs
from gradle_repl.host.notices import Notice
from gradle_repl.host.sessions import SessionInfo
from gradle_repl.options import SessionOptions

# Each wire item and the internal model front/content.py and the tools make it from (wire_list).
SHOWN = [
    (outputs.SnippetDiagnostic, CompilerDiagnostic(severity="error", message="m", line=1, column=2)),
    (outputs.CheckDiagnostic, CodeDiagnostic(severity="warning", message="m", text="warning: m")),
    (outputs.CodeEdit, TextEdit(start=0, end=0, text="import java.io.File\n")),
    (
        outputs.CompletionItem,
        Completion(text="File", kind="class", edits=[TextEdit(start=0, end=0, text="import java.io.File\n")]),
    ),
    (outputs.DeclaredName, Declaration(kind="val", name="x", signature="val x: kotlin.Int", value="1", snippet=1)),
    (outputs.NoticeItem, Notice(kind="evicted", text="[closed]")),
    (
        outputs.SessionOptionValues,
        SessionOptions(env={"A": "1"}, env_source="none", jvm_args=("-Dk=v",), opt_in=("kotlin.Experimental",)),
    ),
    (
        outputs.LiveSession,
        SessionInfo(
            session_id="s",
            state="idle",
            project_root="/p",
            project_path=":",
            source_set="main",
            build_tool="maven",
            kotlin_version="2.3.21",
            java_home="/j",
            java_version="21",
            snippets_run=1,
            uptime_seconds=1.0,
            idle_seconds=0.5,
            worker_pid=1,
            worker_rss_bytes=2,
            declarations=3,
            attached_pid=4,
        ),
    ),
]


def test_no_wire_model_inherits_an_internal_one() -> None:
    """Every model of the public schema is built from Wire and the schema's own models only."""
    wire_models = {
        model for _, model in inspect.getmembers(outputs, inspect.isclass) if issubclass(model, outputs.Wire)
    }
    for model in wire_models:
        internal = [
            base
            for base in model.__mro__
            if issubclass(base, BaseModel) and base is not BaseModel and base not in wire_models
        ]
        assert internal == [], f"{model.__name__} inherits {internal}"


@pytest.mark.parametrize(("wire", "internal"), SHOWN, ids=[wire.__name__ for wire, _ in SHOWN])
def test_each_wire_item_shows_its_internal_model_whole(wire: type[outputs.Wire], internal: BaseModel) -> None:
    """The same field names (a field added inside is a deliberate choice here too), and every value read across."""
    assert list(wire.model_fields) == list(type(internal).model_fields)
    shown = wire.model_validate(internal)
    assert shown.model_dump(by_alias=False) == internal.model_dump()
