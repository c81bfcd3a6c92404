"""The MCP server, driven by the mcp SDK's client.

What the server itself decides (its tools and their schemas, the session cap, the spare worker, idle
eviction) is tested in process: `Client(build_server(manager))` over a real SessionManager whose workers
are fakes (tests/support/fakeworker.py), in milliseconds. What needs the real thing (Kotlin's answers, worker and
build processes, signals, the stdio transport) runs `gradle-repl serve` against real JVMs.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import psutil
import pytest
from mcp import Client
from mcp.types import CallToolResult, ImageContent, TextContent

from gradle_repl.environment import Attached, ReplEnvironment
from gradle_repl.front.server import KotlinTools, build_server
from gradle_repl.host.manager import SessionLimits, SessionManager
from gradle_repl.worker.deadlines import STOPPED_ANSWER_SECONDS
from support.fakeworker import FakeLauncher, fake_resolver
from support.paths import SAMPLE_PROJECT, build_classpath, copy_project
from support.rawserver import RawServer, alive, wait_for, wait_gone
from support.toolcalls import server_params, text
from support.workers import wait_until

pytestmark = pytest.mark.anyio
jvm = pytest.mark.jvm

PROJECT = str(SAMPLE_PROJECT)


def fake_manager(launcher: FakeLauncher, **limits: Any) -> SessionManager:  # SessionLimits checks them
    """A real SessionManager on fake workers; no spare unless the test is about it."""
    return SessionManager(
        limits=SessionLimits(**{"spare_worker": False, **limits}),
        launcher=launcher,
        resolver=fake_resolver,
    )


@asynccontextmanager
async def fake_server(**limits: object) -> AsyncIterator[tuple[Client, FakeLauncher]]:
    """The real server in process over fake workers, and their launcher to count them. It leaves the test
    process's builds alone at exit (the real server refuses new ones)."""
    launcher = FakeLauncher()
    async with Client(build_server(fake_manager(launcher, **limits), end_builds_at_exit=False)) as client:
        yield client, launcher


@pytest.fixture(scope="module")
async def shared() -> AsyncIterator[Client]:
    """One server for the tests of a real JVM: those that need a session of their own take their own session id."""
    async with Client(server_params(), read_timeout_seconds=300) as client:
        yield client


# The session of tests whose names and libraries don't meet another's (tests run in file order): one JVM for all of
# them, a JVM start (~3 CPU-s) each saved. A test that counts what a session holds, or needs options of its own,
# takes its own session.
PLAIN = "plain"
# A small Maven Central library sample-project doesn't have.
COLLECTIONS = '@file:DependsOn("org.apache.commons:commons-collections4:4.4")'


async def run(client: Client, code: str, **arguments: object) -> CallToolResult:
    return await client.call_tool(
        "run_kotlin_snippet", {"projectRoot": PROJECT, "code": code, "buildTool": "maven", **arguments}
    )


# --- In process, over fake workers -------------------------------------------------------------------------


async def test_tools_are_listed_with_schemas() -> None:
    async with fake_server() as (client, _):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {
        "run_kotlin_snippet",
        "check_kotlin_snippet",
        "complete_kotlin_snippet",
        "reset_kotlin_session",
        "close_kotlin_session",
        "list_kotlin_sessions",
        "describe_kotlin_session",
        "resolve_gradle_environment",
        "list_running_jvms",
        "attach_kotlin_session",
        "run_project_tests",
        "add_kotlin_probe",
        "read_kotlin_probe_hits",
        "remove_kotlin_probe",
    }
    assert set(tools["check_kotlin_snippet"].input_schema["required"]) == {
        "code"
    }  # projectRoot: not for an attached session
    assert tools["complete_kotlin_snippet"].input_schema["properties"]["cursor"].get("description")
    assert tools["describe_kotlin_session"].input_schema["properties"]["sessionId"].get("description")
    assert tools["describe_kotlin_session"].annotations is not None
    assert tools["describe_kotlin_session"].annotations.read_only_hint is True
    schema = tools["run_kotlin_snippet"].input_schema
    assert set(schema["required"]) == {"code"}
    for name in ("projectPath", "sourceSet", "sessionId", "timeoutSeconds", "buildTool"):
        assert schema["properties"][name].get("description"), name
    assert tools["run_kotlin_snippet"].description and "sessionId" in tools["run_kotlin_snippet"].description


async def test_tools_that_return_data_declare_an_output_schema_and_fill_it() -> None:
    """run, list, describe and reset declare what their structuredContent holds; a reply carries it beside the unchanged
    text (the SDK's client validates every non-error reply against the schema, so a wrong shape fails here)."""
    async with fake_server() as (client, _):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        ran = await run(client, "A", sessionId="data")
        listed = await client.call_tool("list_kotlin_sessions", {})
        described = await client.call_tool("describe_kotlin_session", {"sessionId": "data"})
        refused = await run(client, "  ")
    run_schema = tools["run_kotlin_snippet"].output_schema
    assert run_schema is not None and {
        "ok",
        "value",
        "valueType",
        "error",
        "diagnostics",
        "stdout",
        "stderr",
        "displayCount",
        "notices",
    } <= set(run_schema["properties"])
    assert tools["list_kotlin_sessions"].output_schema and tools["describe_kotlin_session"].output_schema
    assert tools["reset_kotlin_session"].output_schema and tools["resolve_gradle_environment"].output_schema
    assert tools["close_kotlin_session"].output_schema is None
    assert text(ran) == "A\n// type: kotlin.String"
    assert ran.structured_content == {
        "ok": True,
        "value": "A",
        "valueType": "kotlin.String",
        "valueKind": "text",
        "valueMime": "text/plain",
        "error": None,
        "diagnostics": [],
        "stdout": "",
        "stderr": "",
        "displayCount": 0,
        "displays": [],
        "truncatedBytes": 0,
        "notices": [],
        "probeHits": [],
        "probeNotes": [],
        "durationMs": 0,
    }
    assert [s["sessionId"] for s in listed.structured_content["sessions"]] == ["data"]
    assert described.structured_content["sessionId"] == "data"
    assert [d["name"] for d in described.structured_content["declarations"]] == ["A"]
    assert refused.is_error and refused.structured_content["error"] == {
        "kind": "request",
        "message": "code is empty; pass the Kotlin snippet to run",
        "stack": "",
        "stateLost": False,
    }


async def test_tool_descriptions_are_dedented_and_resolve_is_not_read_only() -> None:
    async with fake_server() as (client, _):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    for tool in tools.values():
        assert tool.description and "\n        " not in tool.description, tool.name
    assert tools["resolve_gradle_environment"].annotations is not None
    assert tools["resolve_gradle_environment"].annotations.read_only_hint is False
    assert tools["list_kotlin_sessions"].annotations is not None
    assert tools["list_kotlin_sessions"].annotations.read_only_hint is True


async def test_session_options_given_as_a_calls_arguments_reach_its_session() -> None:
    """The options' parameters, made from their declaration, carry a call's options to its session: describe shows
    them with a secret-like value masked; a refused flag is the call's error, and no session starts for it."""
    async with fake_server() as (client, launcher):
        ran = await run(
            client,
            "1",
            sessionId="optioned",
            env={"API_TOKEN": "s3cret", "APP_MODE": "repl"},
            envSource="none",
            jvmArgs=["-Dapp.flag=on"],
            optIn=["kotlin.ExperimentalUnsignedTypes"],
        )
        described = await client.call_tool("describe_kotlin_session", {"sessionId": "optioned"})
        refused = await run(client, "1", sessionId="refused", jvmArgs=["-Xmx9g"])
    assert not ran.is_error, text(ran)
    assert described.structured_content is not None and described.structured_content["options"] == {
        "env": {"API_TOKEN": "***", "APP_MODE": "repl"},
        "envSource": "none",
        "jvmArgs": ["-Dapp.flag=on"],
        "optIn": ["kotlin.ExperimentalUnsignedTypes"],
    }
    assert "Session options: envSource none; env API_TOKEN=*** APP_MODE=repl" in text(described)
    assert refused.is_error and "jvmArgs: '-Xmx9g' is refused: the heap cap is the server's" in text(refused)
    assert len(launcher.spawned) == 1


class RecordedProgress:
    """Stands in for a tool call's MCP context when a test calls a tool directly: keeps its progress messages."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        self.messages.append(message or "")


async def test_the_tools_are_methods_a_test_can_call() -> None:
    """KotlinTools' methods are the tools themselves, callable without a client: a snippet's value comes back as
    content, an unusable call as one error, and reset and close say when there was nothing to do."""
    manager = fake_manager(FakeLauncher())
    tools = KotlinTools(manager)
    try:
        value = await tools.run_kotlin_snippet(projectRoot=PROJECT, code="A", ctx=RecordedProgress())  # type: ignore[arg-type]
        empty = await tools.run_kotlin_snippet(projectRoot=PROJECT, code="   ", ctx=RecordedProgress())  # type: ignore[arg-type]
        listed = json.loads(text(await tools.list_kotlin_sessions()))
        nothing_to_reset = text(await tools.reset_kotlin_session("nobody"))
        nobody = text(await tools.close_kotlin_session("nobody"))
        closed = text(await tools.close_kotlin_session())
    finally:
        await manager.close_all()
    assert not value.is_error and text(value) == "A\n// type: kotlin.String", text(value)
    assert empty.is_error and "code is empty" in text(empty)
    assert [s["sessionId"] for s in listed] == ["default"]
    assert nothing_to_reset == "Session 'nobody' had no running JVM; nothing to reset."
    assert nobody == "No session 'nobody'." and closed == "Session 'default' closed."


async def test_a_call_without_a_project_names_the_target_its_session_was_attached_with() -> None:
    """Only an attached session may leave projectRoot out, and its target is then the one it was attached with (its
    project, path, source set and build tool), never a placeholder; once it is closed, projectRoot is needed again."""
    from gradle_repl.errors import GradleReplError
    from gradle_repl.target import SessionTarget

    manager = fake_manager(FakeLauncher())
    tools = KotlinTools(manager)
    await manager.attach(
        "s", fake_resolver("/app").environment.model_copy(update={"project_path": ":web"}), Attached(pid=4242)
    )
    assert tools.target(None, ":", "main", "auto", "s") == SessionTarget("/app", ":web", "main", "maven", "s")
    await manager.close("s")
    with pytest.raises(GradleReplError, match="projectRoot is needed: session 's' is not attached"):
        tools.target(None, ":", "main", "auto", "s")
    await manager.close_all()


async def test_a_new_session_takes_the_warmed_spare_worker() -> None:
    """After the first session starts, a spare worker starts; the next new session runs on that very worker."""
    async with fake_server(spare_worker=True) as (client, launcher):
        await run(client, "1", sessionId="first")
        await wait_until(lambda: len(launcher.spawned) == 2, "the spare worker exists")
        spare = launcher.spawned[1]
        result = await run(client, "2", sessionId="second")
        sessions = json.loads(text(await client.call_tool("list_kotlin_sessions", {})))
    assert text(result).startswith("2")
    second = next(s for s in sessions if s["sessionId"] == "second")
    first = next(s for s in sessions if s["sessionId"] == "first")
    assert second["workerPid"] == spare.pid and second["workerPid"] != first["workerPid"]


async def test_session_cap_evicts_the_least_recently_used_idle_session() -> None:
    """At the cap, a new session closes the least recently used idle one; that session's next call is told, and runs
    on a fresh worker that holds nothing of before (a fake's session holds a val per snippet it answered)."""
    async with fake_server(max_sessions=1) as (client, launcher):
        await run(client, "val kept = 1", sessionId="old")
        await run(client, "2", sessionId="new")
        sessions = json.loads(text(await client.call_tool("list_kotlin_sessions", {})))
        again = await run(client, "kept", sessionId="old")
        held = text(await client.call_tool("describe_kotlin_session", {"sessionId": "old"}))
    assert [s["sessionId"] for s in sessions] == ["new"]
    assert "[session 'old' was closed to make room: at most 1 sessions live at once" in text(again)
    assert len(launcher.spawned) == 3 and "val kept = 1" not in held and "val kept: kotlin.String" in held, held


async def test_idle_sessions_are_closed_after_the_idle_timeout() -> None:
    """A session idle past the idle timeout is closed by the server's eviction poll (both from the settings); its
    next call starts it again and is told why its state is gone."""
    async with fake_server(idle_timeout_seconds=0.2, eviction_poll_seconds=0.02) as (client, _):
        await run(client, "1", sessionId="idle")
        listing = ""
        with anyio.fail_after(10):  # the idle timeout plus one eviction poll, observed through the listing
            while listing != "No live sessions.":
                listing = text(await client.call_tool("list_kotlin_sessions", {}))
                await anyio.sleep(0.02)
        back = await run(client, "3", sessionId="idle")
    assert listing == "No live sessions."
    assert text(back).startswith("3") and "[session 'idle' was closed after" in text(back)


# --- Real JVMs, through `gradle-repl serve` over stdio -----------------------------------------------------


@jvm
async def test_state_is_per_session_and_reset_loses_it(shared: Client) -> None:
    client = shared
    first = await run(client, "val answer = 41", sessionId="a")
    assert not first.is_error, text(first)
    assert text(await run(client, "answer + 1", sessionId="a")).startswith("42")
    other = await run(client, "answer", sessionId=PLAIN)
    assert other.is_error and "Unresolved reference 'answer'" in text(other)
    sessions = text(await client.call_tool("list_kotlin_sessions", {}))
    assert '"sessionId": "a"' in sessions and f'"sessionId": "{PLAIN}"' in sessions and "2.3.21" in sessions
    # Only this test's own sessions: others on the shared server are other tests' business.
    for listed in (s for s in json.loads(sessions) if s["sessionId"] in ("a", PLAIN)):
        # Memory is the OS's figure for that very process (psutil, on every platform), not a guess.
        actual = psutil.Process(listed["workerPid"]).memory_info().rss
        assert listed["state"] == "idle" and listed["snippetsRun"] >= 1
        assert 0.5 * actual < listed["workerRssBytes"] < 2 * actual, (listed, actual)
    reset = await client.call_tool("reset_kotlin_session", {"sessionId": "a"})
    assert "reset" in text(reset) and reset.structured_content == {"sessionId": "a", "outcome": "reset", "notices": []}
    after = await run(client, "answer", sessionId="a")
    assert after.is_error and "Unresolved reference" in text(after)


@jvm
async def test_describe_lists_what_a_session_holds_newest_definition_winning(shared: Client) -> None:
    """An agent picking up a session it did not start sees its imports and names, as the REPL resolves them."""
    client = shared
    for code in (
        "import sample.*\nval limit = 1930\nvar seen = 0\nfun older(year: Int): List<Book> = classics.publishedBefore(year)",
        "data class Pick(val title: String)\nobject Shelf2 { val size = 2 }\ntypealias Titles = List<String>",
        'val limit = "redefined"\nseen += 3',
        'val broken: Int = error("boom")',
    ):
        await run(client, code, sessionId="described")
    described = text(await client.call_tool("describe_kotlin_session", {"sessionId": "described"}))
    lines = described.splitlines()
    assert lines[0] == "Session 'described': 7 declaration(s), 1 import(s)", described
    assert "import sample.*" in lines
    assert "var seen: kotlin.Int = 3    // snippet 1" in lines
    assert "fun older(kotlin.Int): kotlin.collections.List<sample.Book>    // snippet 1" in lines
    assert "data class Pick    // snippet 2" in lines and "object Shelf2    // snippet 2" in lines
    assert "typealias Titles = List<String>    // snippet 2" in lines
    # The newest definition wins and comes last but one; a name whose snippet failed is still resolved, unset.
    assert lines[-2] == "val limit: kotlin.String = redefined    // snippet 3", described
    assert lines[-1] == "val broken: kotlin.Int = <not initialised: its snippet failed>    // snippet 4", described
    listed = {s["sessionId"]: s for s in json.loads(text(await client.call_tool("list_kotlin_sessions", {})))}
    assert listed["described"]["declarations"] == 7
    # A value whose toString() blocks costs describe a bounded wait, never the session.
    await run(
        client,
        'val stuck = object { override fun toString(): String { Thread.sleep(120_000); return "never" } }',
        sessionId="described",
    )
    stuck = text(await client.call_tool("describe_kotlin_session", {"sessionId": "described"}))
    assert "toString() did not finish within" in stuck, stuck
    assert text(await run(client, "seen", sessionId="described")).startswith("3")
    missing = await client.call_tool("describe_kotlin_session", {"sessionId": "nobody"})
    assert missing.is_error and "no session 'nobody'" in text(missing)


@jvm
async def test_depends_on_adds_a_library_to_the_live_session(shared: Client) -> None:
    """@file:DependsOn resolves a Maven Central artifact the project doesn't have into the running session:
    earlier state stays, a version conflict keeps the project's version and says so, a bad coordinate is an error
    that leaves the session usable, and the session lists what it added."""
    client = shared
    await run(client, "val before = 40", sessionId=PLAIN)
    added = await run(
        client,
        f'{COLLECTIONS}\norg.apache.commons.collections4.bag.HashBag<String>().apply {{ add("a"); add("a") }}.getCount("a") + before',
        sessionId=PLAIN,
    )
    assert not added.is_error and text(added).startswith("42"), text(added)
    # A later snippet sees the library's classes as the same classes, not a copy of its own.
    await run(client, "val bag = org.apache.commons.collections4.bag.HashBag<Int>()", sessionId=PLAIN)
    same = await run(
        client,
        "bag.size to (bag.javaClass === org.apache.commons.collections4.bag.HashBag::class.java)",
        sessionId=PLAIN,
    )
    assert text(same).startswith("(0, true)"), text(same)
    # sample-project has commons-text 1.13.0: the project's version wins.
    older = await run(
        client,
        '@file:DependsOn("org.apache.commons:commons-text:1.9")\norg.apache.commons.text.WordUtils.capitalize("a b")',
        sessionId=PLAIN,
    )
    assert not older.is_error and "commons-text: kept the project's version 1.13.0" in text(older), text(older)
    missing = await run(client, '@file:DependsOn("no.such.group:no-such-artifact:1.0")\n1', sessionId=PLAIN)
    assert missing.is_error and "no.such.group:no-such-artifact" in text(missing), text(missing)
    assert text(await run(client, "before + 2", sessionId=PLAIN)).startswith("42")
    described = text(await client.call_tool("describe_kotlin_session", {"sessionId": PLAIN}))
    assert COLLECTIONS in described and '@file:DependsOn("org.apache.commons:commons-text:1.9")' in described, described
    assert "no-such-artifact" not in described


@jvm
async def test_the_servers_flags_reach_the_worker_jvm() -> None:
    """--heap-mb, --full-jit, --no-class-data-sharing and --timeout, followed from the command line to the JVM
    that runs the snippets (the JVM's own view of its heap and arguments), not only to the parsed settings.

    The session's worker starts for the waiting call without the warm-up snippet, so that call's snippet loads the
    compiler (without the class-data archive: well over the 0.5 s it is given), which its timeout doesn't count; the
    timeout still stops what runs, and users still count snippets from their own first."""
    flags = ("--heap-mb", "700", "--full-jit", "--no-class-data-sharing", "--timeout", "2")
    async with Client(server_params(*flags), read_timeout_seconds=300) as client:
        heap = await run(
            client, "Runtime.getRuntime().maxMemory() / (1024 * 1024)", sessionId="flags", timeoutSeconds=0.5
        )
        arguments = await run(
            client, "java.lang.management.ManagementFactory.getRuntimeMXBean().inputArguments", sessionId="flags"
        )
        slow = await run(client, "Thread.sleep(20_000)", sessionId="flags")
        failed = await run(client, 'error("third")', sessionId="flags")
    assert not heap.is_error and 600 < int(text(heap).split()[0]) <= 700, text(heap)
    assert "-Xmx700m" in text(arguments) and "TieredStopAtLevel" not in text(arguments), text(arguments)
    assert "SharedArchiveFile" not in text(arguments), text(arguments)
    assert slow.is_error and "Timed out after 2 s" in text(slow), text(slow)
    assert failed.is_error and "snippet 4, line 1" in text(failed), text(failed)


@jvm
async def test_content_order_result_then_displays_then_output(shared: Client) -> None:
    client = shared
    result = await run(
        client,
        'import java.awt.image.BufferedImage\nprintln("printed")\n'
        'image(BufferedImage(4, 4, BufferedImage.TYPE_INT_RGB))\nmarkdown("*md*")\n"value"',
        sessionId=PLAIN,
    )
    assert not result.is_error
    kinds = [(type(b).__name__, getattr(b, "text", getattr(b, "mime_type", None))) for b in result.content]
    assert kinds == [
        ("TextContent", "value\n// type: kotlin.String"),
        ("ImageContent", "image/png"),
        ("TextContent", "*md*"),
        ("TextContent", "[stdout]\nprinted"),
    ]
    assert isinstance(result.content[1], ImageContent) and result.content[1].data
    # The same as data, beside the content (the SDK's client checked it against the tool's outputSchema).
    data = result.structured_content
    assert data is not None and data["ok"] is True and data["error"] is None
    assert (data["value"], data["valueType"], data["valueKind"]) == ("value", "kotlin.String", "text")
    assert data["displayCount"] == 2 and data["stdout"] == "printed\n" and data["stderr"] == ""
    assert data["durationMs"] > 0


@jvm
async def test_500_kb_printed_fast_reaches_the_client_whole(shared: Client) -> None:
    """10,000 lines of 50 bytes printed in a tight loop (several frames from the worker): the client gets all 500,000
    bytes, last line included, as the data's stdout and as the text's [stdout] block, and nothing counted as cut."""
    line = '"line " + it.toString().padStart(6, \'0\') + "-".repeat(38)'
    result = await run(shared, f"repeat(10_000) {{ println({line}) }}", sessionId=PLAIN)
    data = result.structured_content
    assert not result.is_error and data is not None and data["truncatedBytes"] == 0
    last = f"line 009999{'-' * 38}"
    assert len(data["stdout"]) == 500_000 and data["stdout"].endswith(last + "\n")
    (printed,) = [
        block.text for block in result.content if isinstance(block, TextContent) and block.text.startswith("[stdout]\n")
    ]
    assert printed == "[stdout]\n" + data["stdout"].rstrip("\n") and "truncated" not in text(result)


@jvm
async def test_errors_set_is_error_with_one_text_block(shared: Client) -> None:
    client = shared
    compile_error = await run(client, 'val x: Int = "s"', sessionId=PLAIN)
    runtime_error = await run(client, 'println("before"); throw RuntimeException("boom")', sessionId=PLAIN)
    bad_root = await client.call_tool("run_kotlin_snippet", {"projectRoot": "/does/not/exist", "code": "1"})
    empty = await run(client, "   ")
    still_fine = await run(client, "1 + 1", sessionId=PLAIN)
    assert compile_error.is_error and text(compile_error).startswith("Error: error: ")
    assert runtime_error.is_error and len(runtime_error.content) == 1
    assert text(runtime_error).startswith("Error: java.lang.RuntimeException: boom")
    assert "[stdout]\nbefore" in text(runtime_error)
    assert bad_root.is_error and "does not exist" in text(bad_root)
    assert empty.is_error and "code is empty" in text(empty)
    assert text(still_fine).startswith("2")
    # Each error's kind, and a compile error's position, as data.
    compiled = compile_error.structured_content
    assert compiled["ok"] is False and compiled["error"]["kind"] == "compile" and not compiled["error"]["stateLost"]
    (diagnostic,) = compiled["diagnostics"]
    assert diagnostic["severity"] == "error" and diagnostic["line"] == 1 and "String" in diagnostic["message"], compiled
    assert f"{diagnostic['message']} (line 1, col {diagnostic['column']})" in text(compile_error)
    thrown = runtime_error.structured_content
    assert (
        thrown["error"]["kind"] == "runtime" and "boom" in thrown["error"]["message"] and thrown["stdout"] == "before\n"
    )
    assert "at snippet" in thrown["error"]["stack"], thrown
    assert bad_root.structured_content["error"]["kind"] == "request"
    assert still_fine.structured_content["value"] == "2"


async def check(client: Client, code: str, **arguments: object) -> CallToolResult:
    return await client.call_tool(
        "check_kotlin_snippet", {"projectRoot": PROJECT, "code": code, "buildTool": "maven", **arguments}
    )


@jvm
async def test_check_answers_without_running_and_only_errors_set_is_error(shared: Client) -> None:
    """check_kotlin_snippet compiles against the session's state: errors come back with their caret and isError,
    warnings alone and a clean compile without; nothing runs, and the session holds what it held."""
    client = shared
    await run(client, "val checkedBase = 2", sessionId=PLAIN)
    before = text(await client.call_tool("describe_kotlin_session", {"sessionId": PLAIN}))
    clean = await check(client, "checkedBase * 21", sessionId=PLAIN)
    assert not clean.is_error and text(clean) == "Compiles; nothing was run. Its value would be of type kotlin.Int."
    assert clean.structured_content["ok"] is True and clean.structured_content["valueType"] == "kotlin.Int"
    warned = await check(client, 'println("never printed")\nval zero = 1 / 0', sessionId=PLAIN)
    assert not warned.is_error and text(warned).startswith(
        "Compiles with 1 warning(s); nothing was run.\nwarning: Division by zero."
    )
    assert "never printed" not in text(warned).replace('println("never printed")', "")
    wrong = await check(client, "val later = checkedBase\nnope", sessionId=PLAIN)
    assert wrong.is_error and text(wrong) == (
        "Error: 1 error(s); nothing was run.\nerror: Unresolved reference 'nope'. (line 2, col 1)\n    nope\n    ^"
    )
    [diagnostic] = wrong.structured_content["diagnostics"]
    assert wrong.structured_content["ok"] is False
    assert (diagnostic["severity"], diagnostic["line"], diagnostic["column"]) == ("error", 2, 1)
    library = await check(client, f"{COLLECTIONS}\n1", sessionId=PLAIN)
    assert not library.is_error and "warning: a check does not resolve @file:DependsOn" in text(library), text(library)
    assert text(await client.call_tool("describe_kotlin_session", {"sessionId": PLAIN})) == before  # no library either
    assert text(await run(client, "zero", sessionId=PLAIN)).startswith("Error: error: Unresolved reference 'zero'")


@jvm
async def test_complete_offers_what_fits_at_the_cursor_as_text_and_data(shared: Client) -> None:
    """complete_kotlin_snippet answers from the session's state: one candidate a line for text-only clients, the
    same as structured data, and a cursor outside the code is a clear error."""
    client = shared
    await run(client, "val completedList = listOf(3, 1)", sessionId=PLAIN)
    arguments = {"projectRoot": PROJECT, "sessionId": PLAIN, "buildTool": "maven"}
    result = await client.call_tool("complete_kotlin_snippet", {**arguments, "code": "completedList.sor"})
    assert not result.is_error, text(result)
    data = result.structured_content
    assert {"sorted", "sortedBy", "sortedDescending"} <= {item["text"] for item in data["items"]}
    assert data["ok"] is True and data["prefixStart"] == len("completedList.")
    assert "sorted    (function: fun Iterable<T>.sorted(): List<T>)" in text(result).splitlines()
    outside = await client.call_tool("complete_kotlin_snippet", {**arguments, "code": "x", "cursor": 5})
    assert outside.is_error and "cursor 5 is outside the code" in text(outside)


@jvm
async def test_session_options_reach_the_jvm_and_describe_shows_them_masked(shared: Client) -> None:
    """env (with envSource none: nothing of the server's), a system property and an opt-in reach the session's JVM and
    compiler; describe shows them with a secret-like value masked; a flag that would break the worker is refused
    before anything starts."""
    client = shared
    options = {
        "env": {"APP_MODE": "repl", "API_TOKEN": "s3cret"},
        "envSource": "none",
        "jvmArgs": ["-Dapp.flag=on"],
        "optIn": ["kotlin.ExperimentalUnsignedTypes"],
    }
    seen = await run(
        client,
        'listOf(System.getenv("APP_MODE"), System.getenv("PATH"), System.getProperty("app.flag"))',
        sessionId="optioned",
        **options,
    )
    assert seen.structured_content["value"] == "[repl, null, on]", text(seen)
    opted = await run(client, "uintArrayOf(1u, 2u).sum()", sessionId="optioned")
    plain = await run(client, "uintArrayOf(1u, 2u).sum()", sessionId=PLAIN)
    assert opted.structured_content["diagnostics"] == [], opted.structured_content
    assert any("opt-in" in d["message"] for d in plain.structured_content["diagnostics"]), plain.structured_content
    described = await client.call_tool("describe_kotlin_session", {"sessionId": "optioned"})
    assert described.structured_content["options"] == {
        "env": {"API_TOKEN": "***", "APP_MODE": "repl"},
        "envSource": "none",
        "jvmArgs": ["-Dapp.flag=on"],
        "optIn": ["kotlin.ExperimentalUnsignedTypes"],
    }
    assert "Session options: envSource none; env API_TOKEN=*** APP_MODE=repl" in text(
        described
    ) and "s3cret" not in text(described)
    refused = await run(client, "1", sessionId="refused", jvmArgs=["-Xmx9g"])
    assert refused.is_error and refused.structured_content["error"]["kind"] == "request"
    assert "jvmArgs: '-Xmx9g' is refused: the heap cap is the server's (--heap-mb)" in text(refused)
    listed = await client.call_tool("list_kotlin_sessions", {})
    assert "refused" not in [s["sessionId"] for s in listed.structured_content["sessions"]]
    await client.call_tool("close_kotlin_session", {"sessionId": "optioned"})


@jvm
async def test_resolve_tool_summarises_the_environment(shared: Client) -> None:
    client = shared
    result = await client.call_tool("resolve_gradle_environment", {"projectRoot": PROJECT, "buildTool": "maven"})
    summary = text(result)
    assert "Kotlin version:    2.3.21" in summary and "kotlin-serialization-compiler-plugin-embeddable" in summary
    # ...and as data, in full: the classpath (the project's classes first), the plugins, where it came from.
    data = result.structured_content
    assert (data["buildTool"], data["projectRoot"], data["kotlinVersion"]) == ("maven", PROJECT, "2.3.21"), data
    assert build_classpath(data["classpath"])[0].endswith("target/classes") and any(
        "kotlinx-serialization-core" in jar for jar in data["classpath"]
    )
    assert (
        any("kotlin-serialization-compiler-plugin-embeddable" in jar for jar in data["compilerPluginClasspath"])
        and data["origin"]
    )


@jvm
async def test_reset_with_replay_runs_the_sessions_snippets_again_and_says_how_many() -> None:
    """reset_kotlin_session(replay=true) answers with the new JVM's replay (failed snippets are not in it), as text and
    as data;
    run_kotlin_snippet takes replay as a session option that changes nothing by itself; a session without a JVM
    to replay is one clear error, the server usable."""
    async with fake_server() as (client, launcher):
        await run(client, "one", sessionId="r", replay="on_restart")
        await run(client, "fail not kept", sessionId="r")
        assert len(launcher.spawned) == 1, "the replay option never restarts a session"
        reset = await client.call_tool("reset_kotlin_session", {"sessionId": "r", "replay": True})
        missing = await client.call_tool("reset_kotlin_session", {"sessionId": "nobody", "replay": True})
        still = await run(client, "two", sessionId="r")
    assert not reset.is_error and text(reset) == "Session 'r' was restarted.\n[replayed 1 of 1 earlier snippet(s)]", (
        text(reset)
    )
    assert reset.structured_content == {
        "sessionId": "r",
        "outcome": "restarted",
        "notices": [{"kind": "replayed", "text": "[replayed 1 of 1 earlier snippet(s)]"}],
    }
    assert launcher.spawned[1].requests_seen == ["one", "two"]
    assert missing.is_error and "session 'nobody' has never run a snippet: there is nothing to replay" in text(missing)
    assert not still.is_error


@jvm
async def test_a_cancelled_call_stops_its_snippet_and_never_shifts_answers(shared: Client) -> None:
    """An MCP cancel (what clients send on their own timeout) interrupts the snippet like a timeout does:
    the session keeps its state and every later call gets its own answer."""
    client = shared
    assert not (await run(client, "val keep = 42", sessionId=PLAIN)).is_error
    with anyio.move_on_after(2.5):
        # Far longer than any wait of the host's: only a cancel that reached the worker lets B answer in time.
        await run(client, 'Thread.sleep(60_000); "A"', sessionId=PLAIN)
    with anyio.fail_after(STOPPED_ANSWER_SECONDS + 5):
        b = await run(client, '"B"', sessionId=PLAIN)
    c, kept = await run(client, '"C"', sessionId=PLAIN), await run(client, "keep", sessionId=PLAIN)
    assert text(b).startswith("B") and text(c).startswith("C"), (text(b), text(c))
    assert text(kept).startswith("42")


@jvm
async def test_a_cancelled_busy_loop_replaces_the_jvm_and_the_next_call_says_so(shared: Client) -> None:
    client = shared
    assert not (await run(client, "val keep = 42", sessionId=PLAIN)).is_error
    with anyio.move_on_after(2):
        await run(client, "while (true) {}", sessionId=PLAIN)
    after = await run(client, "keep", sessionId=PLAIN)
    again = await run(client, '"fresh"', sessionId=PLAIN)
    assert after.is_error and "Unresolved reference 'keep'" in text(after)
    assert "cancelled snippet" in text(after) and "state is lost" in text(after), text(after)
    assert text(again).startswith("fresh")


@jvm
async def test_a_running_snippets_output_arrives_as_progress(shared: Client) -> None:
    """A long snippet shows life: its printed lines reach the client as progress while it runs."""
    messages: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    client = shared
    arrived: list[float] = []

    async def on_progress_timed(progress: float, total: float | None, message: str | None) -> None:
        await on_progress(progress, total, message)
        arrived.append(time.monotonic())

    result = await client.call_tool(
        "run_kotlin_snippet",
        {
            "projectRoot": PROJECT,
            "buildTool": "maven",
            "sessionId": PLAIN,
            "code": 'println("tick 0"); Thread.sleep(3000); println("tick 1")\n"done"',
        },
        progress_callback=on_progress_timed,
    )
    replied = time.monotonic()
    assert text(result).startswith("done") and "[stdout]\ntick 0\ntick 1" in text(result)
    first = next(i for i, m in enumerate(messages) if m.startswith("[stdout] tick 0"))
    # Printed at once, then 3 s of sleep: held back until the reply, it would arrive within a moment of it.
    assert replied - arrived[first] > 2.0, (replied - arrived[first], messages)


@jvm
async def test_changed_sources_restart_the_session_say_so_and_add_its_libraries_again(tmp_path: Path) -> None:
    """A snippet must see current code; a change the JVM can't take in place (a function added) restarts the session,
    and the restart is announced, not silent. The first call's build shows life as progress while the environment
    resolves. The worker reports what its resolver added, so an annotation a line-based reading would miss (a trailing
    comment, arguments over several lines) is added again in the new JVM; the session's state is not. The project has
    both builds: resolved with Maven once, a call without buildTool stays on Maven (Gradle is never tried, the session
    keeps its state) even though its Gradle wrapper is there."""
    project = str(copy_project(SAMPLE_PROJECT, tmp_path / "sample"))
    (tmp_path / "sample/gradlew").write_text('#!/bin/sh\ntouch "$(dirname "$0")/../gradle-ran"\nexit 1\n')
    (tmp_path / "sample/gradlew").chmod(0o755)
    messages: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    math = "org.apache.commons:commons-math3:3.6.1"
    added = f'{COLLECTIONS} // a bag, for later\n@file:DependsOn(\n    "{math}",\n)\nval remembered = 1'
    both = "org.apache.commons.collections4.bag.HashBag<Int>().size + org.apache.commons.math3.util.FastMath.abs(-2)"
    async with Client(server_params(), read_timeout_seconds=300) as client:
        args = {"projectRoot": project, "buildTool": "maven"}
        first = await client.call_tool("run_kotlin_snippet", {**args, "code": added}, progress_callback=on_progress)
        assert not first.is_error, text(first)
        assert any(m.startswith("resolving ") for m in messages), messages
        assert any("starting a JVM with Kotlin 2.3.21" in m for m in messages), messages
        kept = await client.call_tool("run_kotlin_snippet", {"projectRoot": project, "code": "remembered"})
        assert not kept.is_error and text(kept).startswith("1") and "restarted" not in text(kept), text(kept)
        books = tmp_path / "sample/src/main/kotlin/sample/Books.kt"
        books.write_text(
            books.read_text().replace("WordUtils.capitalizeFully(title)", 'WordUtils.capitalizeFully(title) + "!"')
            + "\nfun addedLater() = 1\n"
        )
        later = time.time() + 2
        os.utime(books, (later, later))
        result = await client.call_tool("run_kotlin_snippet", {**args, "code": 'sample.displayTitle("new code")'})
        libraries = await client.call_tool("run_kotlin_snippet", {**args, "code": both})
        state = await client.call_tool("run_kotlin_snippet", {**args, "code": "remembered"})
    assert text(result).startswith("New Code!")
    assert "restarted: the project's build or sources changed" in text(result)
    assert "sample.BooksKt: a method was added: addedLater()I" in text(result), text(result)
    assert f'added again after the restart: {COLLECTIONS}; @file:DependsOn("{math}")]' in text(result), text(result)
    assert not libraries.is_error and text(libraries).startswith("2"), text(libraries)
    assert state.is_error and "Unresolved reference 'remembered'" in text(state), text(state)
    assert not (tmp_path / "gradle-ran").exists()


# --- The server process: lifelines and signals (a stand-in `mvn` where only the build matters) ----------------


def _server_with_workers(*args: str, env: dict[str, str] | None = None) -> tuple[RawServer, list[int]]:
    """A raw server process with one live session and its warmed spare; returns it and the workers' pids."""
    server = RawServer(*args, env=env)
    reply = server.call_tool("run_kotlin_snippet", {"projectRoot": PROJECT, "code": "1", "buildTool": "maven"})
    assert reply["result"]["isError"] is False, reply
    wait_for(lambda: len(server.workers()) == 2, 60)
    return server, server.workers()


def fake_build(tmp_path: Path) -> tuple[str, Path, dict[str, str]]:
    """A project whose build never ends: `mvn` on PATH is a stand-in that starts a child of its own, as the
    real `mvn`/`gradlew` scripts start java, records that grandchild's pid and waits. (The server's process
    handling is under test here, not Maven: ending only the guard's direct child would leave the grandchild.)"""
    project = tmp_path / "slow-build"
    project.mkdir()
    (project / "pom.xml").write_text("<project/>")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pid_file = tmp_path / "build.pid"
    mvn = bin_dir / "mvn"
    mvn.write_text(f"#!/bin/sh\nsleep 600 &\necho $! > {pid_file}.tmp && mv {pid_file}.tmp {pid_file}\nwait\n")
    mvn.chmod(0o755)
    return str(project), pid_file, {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


@jvm
def test_kill_9_ends_busy_workers_and_builds_without_pdeathsig(tmp_path: Path, sample_env: ReplEnvironment) -> None:
    """With Linux's PDEATHSIG switched off, the lifelines alone end a worker stuck in `while (true) {}`,
    the spare, and a running build within 5 s of kill -9 of the server."""
    project, pid_file, env = fake_build(tmp_path)
    server, workers = _server_with_workers(env={**env, "GRADLE_REPL_NO_PDEATHSIG": "1"})
    server.send_call(
        "busy", "run_kotlin_snippet", {"projectRoot": PROJECT, "code": "while (true) {}", "buildTool": "maven"}
    )
    wait_for(lambda: "running" in server.session_states().values(), 30)
    server.send_call("build", "run_kotlin_snippet", {"projectRoot": project, "code": "1", "buildTool": "maven"})
    wait_for(pid_file.exists, 60)
    build = int(pid_file.read_text())
    builds = server.builds()
    assert build in builds
    server.process.kill()
    server.process.wait()
    for pid in [*workers, *builds]:
        assert wait_gone(pid, 5), f"process {pid} outlived its kill -9'd server"


def _server_mid_build(tmp_path: Path) -> tuple[RawServer, int]:
    """A raw server whose first call waits on a build that never ends; returns it and the build's pid. No JVM starts."""
    project, pid_file, env = fake_build(tmp_path)
    server = RawServer(env=env)
    server.send_call("build", "run_kotlin_snippet", {"projectRoot": project, "code": "1", "buildTool": "maven"})
    wait_for(pid_file.exists, 60)
    return server, int(pid_file.read_text())


def test_closing_stdin_mid_build_ends_server_and_build_within_5_s(tmp_path: Path) -> None:
    """Stdin's end (the client went away) ends the server, and the build it runs, within 5 s."""
    server, build = _server_mid_build(tmp_path)
    assert server.process.stdin
    server.process.stdin.close()
    assert server.process.wait(timeout=5) == 0
    assert wait_gone(build, 5), "the build outlived the server"


def test_sigterm_mid_build_ends_the_build(tmp_path: Path) -> None:
    """SIGTERM ends the server at once, and the build it runs with it."""
    server, build = _server_mid_build(tmp_path)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=10) == 0
    assert wait_gone(build, 5) and not alive(build)
