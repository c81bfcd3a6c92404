"""ARCHITECTURE.md's "Where a new thing goes" holds for the code: every file it names exists, every display kind of
the one table is handled in each place it lists for a render kind, and every session option stands in each place it
lists for an option. A new kind or option left out of one of them fails here, naming the place."""

from __future__ import annotations

import asyncio
import io
import re
import threading
from typing import Any, get_args

import pytest
from mcp.server.mcpserver.utilities.func_metadata import func_metadata
from mcp.types import ImageContent, TextContent
from pydantic import TypeAdapter

from gradle_repl import display_kinds
from gradle_repl.display_kinds import DisplayKind
from gradle_repl.frames import DisplayFrame, SuccessResult
from gradle_repl.front import cli
from gradle_repl.front.content import reply_to_result
from gradle_repl.front.outputs import SessionOptionValues
from gradle_repl.front.parameters import given_options
from gradle_repl.front.remote import option_arguments, reply_from_result
from gradle_repl.front.reply_text import ReplyPrinter
from gradle_repl.front.server import KotlinTools, _ProgressRelay, _relay
from gradle_repl.host.handle import Reply
from gradle_repl.options import SESSION_OPTIONS, SessionOption, SessionOptions
from support.paths import REPO

ROOT = REPO
PACKAGE = ROOT / "bridge" / "gradle_repl"
KOTLIN_RUNTIME = ROOT / "jvm-worker" / "runs-in-worker" / "facade" / "gradlerepl" / "runtime"
AGENT = ROOT / "jvm-worker" / "runs-in-app" / "agent" / "gradlerepl" / "agent"
BOTH = ROOT / "jvm-worker" / "runs-in-both" / "gradlerepl" / "both"
KINDS = get_args(DisplayKind)


def _section() -> str:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    start = text.index("## Where a new thing goes")
    return text[start : text.index("\n## ", start + 1)]


def test_every_file_the_section_names_exists() -> None:
    """Every file path the section names is a file of the package or the repository."""
    named = set(re.findall(r"`([\w./-]+\.(?:py|kt|json|md))`", _section()))
    assert {"frames.py", "front/content.py", "options.py", "docs/sessions-and-edits.md"} <= named
    missing = sorted(path for path in named if not (PACKAGE / path).exists() and not (ROOT / path).exists())
    assert missing == []


def test_the_render_kind_and_session_option_lists_name_their_places() -> None:
    """The two lists name the places this test checks, so the section and the test change together."""
    section = _section()
    for place in (
        "worker/results/output_frames.py",
        "front/reply_text.py",
        "front/remote.py",
        "front/outputs.py",
        "front/server.py",
        "host/session_env.py",
        "front/cli.py",
        "tests/tool_schemas.json",
    ):
        assert f"`{place}`" in section, place


def _kind_constants() -> dict[str, str]:
    """Each display kind's constant in the JVM sides' spelling of the table (DisplayKinds, generated from it)."""
    source = display_kinds.java_source()
    return {
        value: name
        for name, value in re.findall(r'public static final String (\w+) = "([^"]*)";', source)
        if value in KINDS
    }


def test_every_display_kind_is_emitted_by_the_kotlin_side() -> None:
    """Renderer.kt or Display.kt makes a display event of each kind (its last argument, the kind's constant)."""
    kotlin = "".join((KOTLIN_RUNTIME / name).read_text(encoding="utf-8") for name in ("Renderer.kt", "Display.kt"))
    constants = _kind_constants()
    assert [kind for kind in KINDS if f"DisplayKinds.{constants.get(kind)})" not in kotlin] == []


def test_every_display_kind_is_emitted_by_the_attach_agent() -> None:
    """In an attached session the agent's Rendering.java or Display.java makes an item of each kind (by its constant)."""
    java = "".join((AGENT / name).read_text(encoding="utf-8") for name in ("Rendering.java", "Display.java"))
    constants = _kind_constants()
    assert [kind for kind in KINDS if f"DisplayKinds.{constants.get(kind)}" not in java] == []


MIMES = {"text": "text/plain", "markdown": "text/markdown", "html": "text/html", "image": "image/png"}
DATA = {"text": "plain words", "markdown": "**bold**", "html": "<b>x</b>", "image": "iVBORw0KGgo="}


@pytest.mark.parametrize("kind", KINDS)
def test_every_display_kind_goes_through_each_place_in_the_front_ends(kind: DisplayKind) -> None:
    """MCP content carries it, the data names it, --connect reads it back as it was, a terminal prints it and a
    progress line names it."""
    assert set(MIMES) == set(KINDS), "a new display kind: give it a MIME type and data here"
    frame = DisplayFrame(kind=kind, mime=MIMES[kind], data=DATA[kind])
    reply = Reply((frame,), SuccessResult(value=frame, value_type="T"))
    result = reply_to_result(reply)
    carried = [
        b.data if isinstance(b, ImageContent) else b.text
        for b in result.content
        if isinstance(b, ImageContent | TextContent)
    ]
    assert sum(DATA[kind] in block for block in carried) == 2, carried  # the value and the display
    assert result.structured_content is not None
    assert [d["kind"] for d in result.structured_content["displays"]] == [kind]
    assert result.structured_content["valueKind"] == kind
    assert reply_from_result(result, "x") == reply

    out = io.StringIO()
    ReplyPrinter(out).frame(frame)
    assert (DATA[kind] if kind != "image" else "[image/png image, 8 bytes: ") in out.getvalue()

    async def progress_line() -> str | None:
        relay = _ProgressRelay(ctx=None)  # type: ignore[arg-type]
        relay.output(frame)
        return await asyncio.wait_for(relay._queue.get(), timeout=5)

    assert asyncio.run(progress_line()) == f"[display {kind}]"


# A value other than the default for each option: a new option needs one here, which makes its places checked too.
SAMPLES: dict[str, object] = {"env": {"MODE": "b"}, "env_source": "shell", "jvm_args": ("-Dk=v",), "opt_in": ("a.B",)}


def _published_parameters() -> dict[str, Any]:
    """run_kotlin_snippet's parameters as the MCP SDK publishes them: its inputSchema's properties."""
    arguments = func_metadata(KotlinTools.run_kotlin_snippet, skip_names=["self", "ctx"]).arg_model
    properties: dict[str, Any] = arguments.model_json_schema(by_alias=True)["properties"]
    return properties


def _command_line(option: SessionOption, value: object) -> list[str]:
    """A value as eval's and repl's flags write it: a dict's items as NAME=VALUE and a tuple's items, a flag each."""
    if isinstance(value, dict):
        return [word for name, each in value.items() for word in (option.flag, f"{name}={each}")]
    if isinstance(value, tuple):
        return [word for each in value for word in (option.flag, each)]
    return [option.flag, str(value)]


def _session_options_docs() -> str:
    """docs/sessions-and-edits.md's "Session options" section: where a user reads what each option does."""
    text = (ROOT / "docs" / "sessions-and-edits.md").read_text(encoding="utf-8")
    start = text.index("\n## Session options\n")
    return text[start : text.index("\n## ", start + 1)]


def test_every_session_option_is_declared_once_and_made_into_each_place() -> None:
    """Each field of SessionOptions is declared (a description and an Option) and made into a parameter of
    run_kotlin_snippet (its camelCase name, its type or null, "Session option: " and its description), a flag of eval
    and repl and a field of describe's SessionOptionValues: a value given through each comes out as the session's
    option, and goes back out as --connect's argument. summary() shows it under its camelCase name, and the docs'
    session options section names it."""
    assert [option.name for option in SESSION_OPTIONS] == list(SessionOptions.model_fields)
    assert set(SAMPLES) == set(SessionOptions.model_fields), "a new session option: add a sample value for it here"
    published = _published_parameters()
    summary = SessionOptions.model_validate(SAMPLES).summary()
    docs = _session_options_docs()
    for option in SESSION_OPTIONS:
        value = SAMPLES[option.name]
        chosen = SessionOptions.model_validate({option.name: value})
        on_the_wire = TypeAdapter(option.type).dump_python(value, mode="json")
        assert chosen != SessionOptions(), f"SAMPLES[{option.name!r}] is the default"
        parameter = published[option.wire_name]
        assert parameter["description"] == f"Session option: {option.description}"
        assert parameter["anyOf"] == TypeAdapter(option.type | None).json_schema()["anyOf"], option.name
        assert given_options({option.wire_name: on_the_wire}) == chosen
        for command in ("eval", "repl"):
            args = cli._parser().parse_args(cli._flag_values_joined([command, "p", *_command_line(option, value)]))
            assert cli._session_options(args) == chosen, f"{command} {option.flag}"
        shown = SessionOptionValues.model_validate(chosen).model_dump(mode="json")
        assert shown[option.wire_name] == on_the_wire
        assert option_arguments(chosen) == shown
        assert f"{option.wire_name} " in summary, f"SessionOptions.summary() doesn't show {option.name}"
        assert f"`{option.wire_name}`" in docs, "docs/sessions-and-edits.md's session options don't describe it"
    assert given_options({}) is None


class _SentProgress:
    """What a tool call's context sends as progress (the MCP Context's report_progress)."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    async def report_progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.messages.append(message or "")


def test_a_calls_last_progress_line_reaches_the_client_before_its_result() -> None:
    """Lines handed over from another thread (a build's, a test run's) in a burst right before the call ends: the
    burst's middle may be skipped (at most one line per interval), its last line is sent before the result."""
    sent = _SentProgress()

    async def call() -> None:
        async with _relay(sent) as relay:  # type: ignore[arg-type]

            def test_run() -> None:
                for n in range(1, 10):
                    relay(f"{n}/9 shop.CartTest")

            burst = threading.Thread(target=test_run)
            burst.start()
            burst.join()

    asyncio.run(call())
    assert sent.messages[0] == "1/9 shop.CartTest" and sent.messages[-1] == "9/9 shop.CartTest", sent.messages
