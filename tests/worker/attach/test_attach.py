"""Attached sessions on a plain Kotlin `main` app started with `java -cp`: snippets compile in the worker and run in
the app, against its live objects; what they print comes back to the session, not to the app's console."""

from __future__ import annotations

import asyncio
import base64
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, ImageContent, TextContent

from gradle_repl.environment import ReplEnvironment
from gradle_repl.errors import GradleReplError
from gradle_repl.frames import (
    DEFAULT_OUTPUT_LIMIT_BYTES,
    DisplayFrame,
    ErrorResult,
    Probe,
    StreamFrame,
    SuccessResult,
)
from gradle_repl.front.content import printed_blocks
from gradle_repl.front.server import build_server
from gradle_repl.host.manager import SessionLimits, SessionManager
from gradle_repl.project.attach_target import attach_environment
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.project.running_jvms import list_running_jvms
from gradle_repl.resources import jvm_worker_attach_agent_sources
from gradle_repl.worker.artifacts.agent_jar import agent_package, build_agent_jar
from gradle_repl.worker.artifacts.agent_socket import agent_dir, socket_path
from gradle_repl.worker.attach.snippet_runtime import snippet_runtime_jars
from gradle_repl.worker.link.agent_wire import AgentClassBytes, AgentConnection, AgentRuntime, AgentValues
from support.paths import PROJECTS
from support.runningapp import SHOP_READY, RunningApp, running_app, shop_command
from support.workerclaims import SLOW_TO_COMPILE  # one definition of a compile that outlasts a stop
from support.workers import SyncWorker, attached_to, running_worker

pytestmark = pytest.mark.jvm

SHOP = PROJECTS / "attach-plain"


@pytest.fixture(scope="module")
def shop_env() -> ReplEnvironment:
    return resolve_environment(SHOP, build_tool="maven").environment


@pytest.fixture(scope="module")
def shop(shop_env: ReplEnvironment) -> Iterator[RunningApp]:
    with running_app(shop_command(shop_env.java_executable, shop_env.classpath), ready=SHOP_READY) as app:
        yield app


@pytest.fixture(scope="module")
def attached(shop: RunningApp) -> Iterator[SyncWorker]:
    """A session attached without a project: classpath, JDK and Kotlin version are read from the running app."""
    with running_worker(attached_to(shop.pid)) as worker:
        yield worker


def test_a_snippet_changes_the_apps_state_and_the_app_sees_it(attached: SyncWorker, shop: RunningApp) -> None:
    """The snippet runs against the app's own `Inventory` object: a change it makes is what the app's loop reports."""
    assert attached.value("shop.Inventory.total()") == "8"
    attached.value('shop.Inventory.items += shop.Item("fig", 2); shop.Inventory.items.size')
    line, _ = shop.ask("total", "total=")
    assert line == "total=10 open=true"
    shop.ask("buy", "bought")
    assert attached.value("shop.Inventory.total()") == "17"


def test_the_sessions_declarations_live_on_and_use_the_apps_types(attached: SyncWorker) -> None:
    """Earlier snippets' values and classes are seen by later ones, and snippet classes hold the app's objects."""
    for declaration in (
        "data class Sale(val item: shop.Item, val count: Int)",
        "val sale = Sale(shop.Inventory.items.first(), 3)",
    ):
        assert isinstance(attached.eval(declaration).result, SuccessResult)
    reply = attached.eval("sale.item.price * sale.count")
    assert isinstance(reply.result, SuccessResult)
    assert reply.result.value is not None and reply.result.value.data == "9"
    assert reply.result.value_type == "kotlin.Int"
    # Each snippet's loader sits under one that answers every earlier snippet's classes (SessionClasses), not under
    # the last snippet's: as many loaders stand above a snippet's class three snippets later.
    depth = "generateSequence(object {}.javaClass.classLoader) { it.parent }.count()"
    before = attached.value(depth)
    for number in range(3):
        attached.eval(f"val filler{number} = {number}")
    assert attached.value(depth) == before
    assert (
        attached.value(
            "Class.forName(sale.javaClass.name, false, object {}.javaClass.classLoader) === Sale::class.java"
        )
        == "true"
    )


def test_what_a_snippet_prints_comes_back_and_never_reaches_the_apps_console(
    attached: SyncWorker, shop: RunningApp
) -> None:
    """Only the snippet's thread is captured: the app's own output stays on its console, the snippet's comes back."""
    reply = attached.eval('println("from the snippet"); System.err.println("and its stderr")')
    printed = "".join(f.data for f in reply.frames if isinstance(f, StreamFrame))
    assert "from the snippet" in printed and "and its stderr" in printed
    _line, before = shop.ask("total", "total=")
    assert not any("snippet" in seen for seen in before), before


def test_stdout_and_stderr_come_back_as_their_own_streams_in_the_order_printed(attached: SyncWorker) -> None:
    """What the snippet's thread prints on System.out and System.err arrives as stdout and stderr frames, interleaved as
    it printed them."""
    reply = attached.eval('println("one"); System.err.println("two"); println("three"); System.err.print("four")')
    assert printed_blocks(reply.frames) == [
        ("stdout", "one\n"),
        ("stderr", "two\n"),
        ("stdout", "three\n"),
        ("stderr", "four"),
    ]


def test_output_arrives_while_the_snippet_runs(attached: SyncWorker, tmp_path: Path) -> None:
    """A line, and text without a line end, reach the session while the snippet still runs: the snippet waits for a
    file that the test creates only once that text has arrived, so it can only end if its output came first."""
    gate = tmp_path / "gate"
    seen: list[StreamFrame | DisplayFrame] = []

    def on_frame(frame: StreamFrame | DisplayFrame) -> None:
        seen.append(frame)
        if "".join(f.data for f in seen if isinstance(f, StreamFrame)) == "started\nwaiting for the gate":
            gate.touch()

    code = (
        f'val gate = java.io.File("{gate}")\n'
        'println("started"); print("waiting for the gate")\n'
        "while (!gate.exists()) Thread.sleep(10)\n"
        'println(" - open"); "through"'
    )
    reply = attached.eval(code, timeout=30.0, on_frame=on_frame)
    assert isinstance(reply.result, SuccessResult), reply.result
    assert reply.result.value is not None and reply.result.value.data == "through"
    assert printed_blocks(reply.frames) == [("stdout", "started\nwaiting for the gate - open\n")]


def test_output_over_the_limit_is_cut_and_the_cut_is_counted(attached: SyncWorker) -> None:
    """Past the session's output limit (1 MB) the agent keeps nothing more, and the result counts every byte cut."""
    reply = attached.eval('repeat(15_000) { println("x".repeat(99)) }; "printed"')
    assert (
        isinstance(reply.result, SuccessResult)
        and reply.result.value is not None
        and reply.result.value.data == "printed"
    )
    printed = "".join(f.data for f in reply.frames if isinstance(f, StreamFrame))
    assert len(printed) == DEFAULT_OUTPUT_LIMIT_BYTES and printed.startswith("x" * 99 + "\n")
    assert reply.result.truncated_bytes == 15_000 * 100 - DEFAULT_OUTPUT_LIMIT_BYTES


def test_a_snippet_displays_html_markdown_and_images_in_order_with_its_output(attached: SyncWorker) -> None:
    """display(), html(), markdown() and image() run in the app and reach the session as display frames, between the
    lines printed before and after them; an image value renders as an image, as in a session of its own."""
    code = (
        "import java.awt.image.BufferedImage\n"
        'println("before"); html("<b>stock</b>"); markdown("# shop")\n'
        "image(BufferedImage(3, 2, BufferedImage.TYPE_INT_RGB))\n"
        'display(shop.Inventory.items.first()); println("after")\n'
        "BufferedImage(5, 4, BufferedImage.TYPE_INT_ARGB)"
    )
    reply = attached.eval(code)
    assert isinstance(reply.result, SuccessResult), reply.result
    shown = [(f.event, f.kind if isinstance(f, DisplayFrame) else f.data) for f in reply.frames]
    assert shown == [
        ("stdout", "before\n"),
        ("display", "html"),
        ("display", "markdown"),
        ("display", "image"),
        ("display", "text"),
        ("stdout", "after\n"),
    ]
    html, markdown, drawn, text = (f for f in reply.frames if isinstance(f, DisplayFrame))
    assert (html.mime, html.data) == ("text/html", "<b>stock</b>") and (markdown.mime, markdown.data) == (
        "text/markdown",
        "# shop",
    )
    assert text.data == "Item(name=apple, price=3)"
    assert drawn.mime == "image/png" and _png_size(drawn.data) == (3, 2)
    value = reply.result.value
    assert value is not None and value.kind == "image" and _png_size(value.data) == (5, 4)
    assert reply.result.value_type == "java.awt.image.BufferedImage"


def test_a_display_from_a_thread_that_is_not_the_snippets_says_why_it_cannot(attached: SyncWorker) -> None:
    """Only the snippet's own thread is the session's: a display call on another thread fails with the reason."""
    code = (
        "var failure: Throwable? = null\n"
        'val other = Thread { try { html("<i>late</i>") } catch (e: Throwable) { failure = e } }\n'
        "other.start(); other.join(); failure?.message"
    )
    assert "html() shows things from a snippet's own thread only" in attached.value(code)


def _png_size(data: str) -> tuple[int, int]:
    """A base64 PNG's width and height, from its header."""
    raw = base64.b64decode(data)
    assert raw.startswith(b"\x89PNG\r\n\x1a\n"), raw[:8]
    width, height = struct.unpack(">II", raw[16:24])
    return width, height


def test_an_exception_is_the_snippets_with_its_own_stack(attached: SyncWorker) -> None:
    """A throwing snippet answers with its exception and the user's frames; the session goes on."""
    result = attached.eval('fun fail(): Int = error("no stock")\nfail()').result
    assert isinstance(result, ErrorResult) and result.error_kind == "runtime"
    assert result.message == "java.lang.IllegalStateException: no stock"
    assert "at fail (snippet" in result.stack
    assert attached.value("1 + 1") == "2"


# Inventory.total()'s body in attach-plain's Shop.kt.
TOTAL_LINE = 13


def test_a_calls_probe_records_what_the_apps_code_held_when_a_snippet_ran_it(attached: SyncWorker) -> None:
    """A snippet's probe in the app's class: set before the snippet runs in the app and gone after it; the hit has the
    snippet's thread, the object's fields, the captures (with the `when` that let it through), and the app's frames
    down to the snippet's. Without the project, its sources are unknown: a file's name is refused in one sentence."""
    size = attached.value("shop.Inventory.items.size")
    probe = Probe(at=f"shop.Inventory:{TOTAL_LINE}", when="items.isNotEmpty()", capture=["items.size", "items.first()"])
    result = attached.eval("shop.Inventory.total()", probes=[probe]).result
    assert isinstance(result, SuccessResult), result
    (hit,) = result.probe_hits
    assert hit.at == f"shop.Inventory.total(Shop.kt:{TOTAL_LINE})" and hit.thread.startswith("gradle-repl-snippet")
    assert [(c.expression, c.value, c.type) for c in hit.captured] == [
        ("items.size", size, "kotlin.Int"),
        ("items.first()", "Item(name=apple, price=3)", "shop.Item"),
    ]
    assert hit.stack[0] == f"shop.Inventory.total(Shop.kt:{TOTAL_LINE})", hit.stack
    assert hit.stack[1].startswith("snippet ") and hit.stack[1].endswith(", line 1"), hit.stack
    again = attached.eval("shop.Inventory.total()").result
    assert isinstance(again, SuccessResult) and again.probe_hits == []
    refused = attached.eval("shop.Inventory.total()", probes=[Probe(at=f"Shop.kt:{TOTAL_LINE}")]).result
    assert isinstance(refused, ErrorResult) and refused.error_kind == "probe"
    assert refused.message == (
        f"`Shop.kt:{TOTAL_LINE}`: this session was attached without its project, so the app's sources are unknown here: "
        "name the class (`shop.Cart:18`), or attach with the project's projectRoot"
    )


def test_a_timeout_interrupts_the_snippet_and_the_app_keeps_answering(attached: SyncWorker, shop: RunningApp) -> None:
    """A snippet past its timeout is interrupted in the app; the session and the app both go on."""
    attached.eval("val keptThroughTimeout = 3")
    result = attached.eval("Thread.sleep(600_000)", timeout=2.0).result
    assert isinstance(result, ErrorResult) and result.error_kind == "timeout", result
    assert "interrupted and stopped" in result.message
    shop.ask("total", "total=")
    assert attached.value("keptThroughTimeout") == "3"


def test_a_snippet_printing_all_the_time_still_meets_its_timeout(attached: SyncWorker, shop: RunningApp) -> None:
    """A snippet printing in a loop is interrupted by the agent at its timeout: what it printed until then came back,
    and the session and the app go on (test_attached.py proves the deadline is met while output never pauses)."""
    reply = attached.eval('while (true) { println("tick"); Thread.sleep(1) }', timeout=2.0)
    assert isinstance(reply.result, ErrorResult) and reply.result.error_kind == "timeout", reply.result
    assert "the snippet was interrupted and stopped" in reply.result.message
    assert printed_blocks(reply.frames)[0][1].startswith("tick\ntick\n")
    shop.ask("total", "total=")
    assert attached.value("40 + 2") == "42"


def test_a_snippet_cancelled_while_it_compiles_never_runs_and_later_snippets_find_its_classes_in_the_app(
    attached: SyncWorker,
) -> None:
    """Cancelled while it compiles, the snippet never runs in the app; the REPL keeps it in its history all the same,
    so its classes join the session's in the app (a later snippet uses its class), a use of its val says
    it never ran, and describe reads what later snippets declared with its type."""
    attached.cancel_while_compiling(
        f'{SLOW_TO_COMPILE}\ndata class Kept(val n: Int)\nval neverSet = "set"\nSystem.setProperty("gradle-repl.cancelled-ran", "yes")'
    )
    assert attached.value('System.getProperty("gradle-repl.cancelled-ran") ?: "never"') == "never"
    assert attached.value("Kept(2).n") == "2"
    used = attached.eval("neverSet.length").result
    assert isinstance(used, ErrorResult) and used.error_kind == "runtime", used
    assert used.message.startswith(
        "'neverSet' was not initialised: the snippet that declared it was stopped while it compiled and never ran"
    ), used.message
    attached.eval("val keptLater = Kept(5)")
    (declared,) = [d for d in attached.describe().declarations if d.name == "keptLater"]
    assert declared.signature == "val keptLater: Kept" and declared.value == "Kept(n=5)", declared


def test_a_timeout_that_ends_while_the_snippet_compiles_keeps_it_from_running_in_the_app(attached: SyncWorker) -> None:
    """The timeout counts from the request, compile included, as in a session's own JVM: a snippet still compiling at
    its 0.1 s timeout never runs in the app, and the session goes on."""
    result = attached.eval(
        f'{SLOW_TO_COMPILE}\nSystem.setProperty("gradle-repl.timed-out-ran", "yes")', timeout=0.1
    ).result
    assert isinstance(result, ErrorResult) and result.error_kind == "timeout", result
    assert (
        result.message == "Timed out after 0.1 s while the snippet compiled; it never ran. The session's state is kept."
    )
    assert attached.value('System.getProperty("gradle-repl.timed-out-ran") ?: "never"') == "never"


def test_a_snippet_the_compiler_refuses_leaves_names_that_say_so(attached: SyncWorker) -> None:
    """The K2 REPL keeps a refused snippet's declarations in its history (a later snippet compiles against them) but
    nothing of it reaches the app: a use of one says it was never compiled, as in a session's own JVM."""
    refused = attached.eval('val refusedInApp: Int = "not a number"').result
    assert isinstance(refused, ErrorResult) and refused.error_kind == "compile", refused
    used = attached.eval("refusedInApp + 1").result
    assert isinstance(used, ErrorResult) and used.error_kind == "runtime", used
    assert used.message.startswith("'refusedInApp' was never compiled: the snippet that declared it failed"), (
        used.message
    )
    assert attached.value("2 + 3") == "5"


def test_a_stopped_app_is_answered_by_the_timeout_and_the_session_goes_on_once_it_continues(
    attached: SyncWorker, shop: RunningApp
) -> None:
    """An app stopped with SIGSTOP can't answer: the timeout says so (nothing hangs), and after SIGCONT the session
    runs its next snippet, the stopped one's late answer dropped."""
    os.kill(shop.pid, signal.SIGSTOP)
    try:
        result = attached.eval("shop.Inventory.items.size", timeout=2.0).result
    finally:
        os.kill(shop.pid, signal.SIGCONT)
    assert isinstance(result, ErrorResult) and result.error_kind == "timeout", result
    assert f"the attached JVM (pid {shop.pid}) did not answer: is it stopped (SIGSTOP) or hung?" in result.message
    assert attached.value("40 + 2") == "42"


def test_describe_lists_the_sessions_names_and_types_with_values_read_in_the_app(
    attached: SyncWorker, shop: RunningApp
) -> None:
    """describe on an attached session lists what its snippets declared, typed by the worker's compiler, with each
    value read in the app when asked (a change the app made since shows); a toString() that throws or blocks is said
    on its own entry and the rest is listed; a long value is capped as a session's own."""
    code = (
        'class Count { override fun toString() = "count=${shop.Inventory.items.size}" }\n'
        'class Boom { override fun toString(): String = error("no text") }\n'
        'class Slow { override fun toString(): String { Thread.sleep(600_000); return "late" } }\n'
        "val count = Count()\nval boom = Boom()\nval slow = Slow()\n"
        'var long = "x".repeat(500)\nfun twice(n: Int): Int = n * 2\nval firstItem = shop.Inventory.items.first()'
    )
    assert isinstance(attached.eval(code).result, SuccessResult)
    assert isinstance(attached.eval('val broken: String = error("never set")').result, ErrorResult)
    before = {d.name: d for d in attached.describe().declarations}
    assert before["count"].signature == "val count: Count" and before["count"].value == f"count={_cli_value(shop)}"
    assert before["boom"].value == "<can't be read: java.lang.IllegalStateException>"
    assert before["slow"].value is not None and before["slow"].value.startswith("<toString() did not finish within")
    assert (
        before["long"].signature == "var long: kotlin.String"
        and before["long"].value == "x" * 200 + "… (300 more characters)"
    )
    assert before["twice"].signature == "fun twice(kotlin.Int): kotlin.Int" and before["twice"].value is None
    assert (
        before["firstItem"].signature == "val firstItem: shop.Item"
        and before["firstItem"].value == "Item(name=apple, price=3)"
    )
    assert before["broken"].value == "<not initialised: its snippet failed>"
    assert before["Count"].signature == "class Count"
    shop.ask("buy", "bought")
    after = {d.name: d.value for d in attached.describe().declarations}
    assert after["count"] == f"count={_cli_value(shop)}" != before["count"].value


def test_describe_of_a_stopped_app_lists_the_names_and_says_the_values_were_not_read(
    attached: SyncWorker, shop: RunningApp
) -> None:
    """An app stopped with SIGSTOP can't read its values: describe still lists the names and types, each value saying
    the app did not answer, within the host's describe timeout; once it continues, the session goes on (the late
    answer dropped)."""
    assert isinstance(attached.eval("val kept = 5").result, SuccessResult)
    os.kill(shop.pid, signal.SIGSTOP)
    try:
        described = {d.name: d for d in attached.describe().declarations}
    finally:
        os.kill(shop.pid, signal.SIGCONT)
    assert described["kept"].signature == "val kept: kotlin.Int"
    assert described["kept"].value is not None and described["kept"].value.startswith(
        f"<not read: the attached JVM (pid {shop.pid}) did not answer"
    )
    assert attached.value("kept + 1") == "6"
    assert {d.name: d.value for d in attached.describe().declarations}["kept"] == "5"


def test_the_app_never_loads_the_compiler(attached: SyncWorker, shop: RunningApp, shop_env: ReplEnvironment) -> None:
    """Only compiled classes travel: the app's JVM has no class of the Kotlin compiler or scripting host loaded."""
    attached.value("shop.Inventory.open")
    jcmd = Path(shop_env.java_home) / "bin" / "jcmd"
    histogram = subprocess.run(
        [str(jcmd), str(shop.pid), "GC.class_histogram"], capture_output=True, text=True, check=True
    ).stdout
    assert (
        f"{agent_package(build_agent_jar(shop_env.java_home))}.AttachedSession" in histogram
    )  # it does list the agent
    assert "org.jetbrains.kotlin." not in histogram
    assert "kotlin.script.experimental." not in histogram


def test_an_app_with_kotlin_of_its_own_keeps_it_when_offered_the_snippets_runtime(
    attached: SyncWorker, shop: RunningApp, shop_env: ReplEnvironment
) -> None:
    """A worker that can't see an app's Kotlin by its jars' names (shaded into a jar of the app's, say) offers it the
    runtime a Java app is lent; the agent, finding the app's own kotlin.Unit, keeps the app's: it answers "app's own",
    never "loaded" (the lent runtime's loader put between the app's loader and the session's snippets). Asked on a
    session of its own, on the app the module's session already loaded the agent into."""
    jar = build_agent_jar(shop_env.java_home)
    lent = snippet_runtime_jars([], shop_env.repl_host_classpath)  # what an app with no kotlin-stdlib jar is lent
    assert lent, shop_env.repl_host_classpath
    connection = AgentConnection.connect(socket_path(shop.pid, jar), agent=agent_package(jar), timeout=30.0)
    try:
        connection.runtime(5, [(Path(jar).name, Path(jar).read_bytes()) for jar in lent])
        assert connection.receive(30.0) == AgentRuntime(5, "app's own", None)
    finally:
        connection.close()


def test_an_app_holding_this_build_of_the_agent_runs_another_builds_own_code_beside_it(
    attached: SyncWorker,
    shop: RunningApp,
    shop_env: ReplEnvironment,
    tmp_path: Path,
) -> None:
    """A second build of the agent loaded into an app that holds this session's build (as an upgraded or second
    gradle-repl loads it; here built from a copy of the sources whose hello says `the second build` where the Java
    version goes) runs its own code: its hello says so and names its own package (the defect: its Agent-Class resolved
    to the first build's class of the same name, whose code answered on the new socket), and it serves its session.
    The first session's snippets still run in the first build's code, and a worker refuses, in one line, an agent
    whose hello names another build."""
    first = agent_package(build_agent_jar(shop_env.java_home))
    version = '.text(System.getProperty("java.version"))'
    copies = []
    for source in jvm_worker_attach_agent_sources():
        text = source.read_text(encoding="utf-8")
        if source.name == "AttachedSession.java":
            assert text.count(version) == 1
            text = text.replace(version, '.text("the second build")')
        (copy := tmp_path / source.name).write_text(text, encoding="utf-8")
        copies.append(copy)
    second_jar = build_agent_jar(shop_env.java_home, copies)
    second = agent_package(second_jar)
    # How a JDK tool loads an agent into a running JVM (JVMTI.agent_load of a jar: its Agent-Class's agentmain).
    jcmd = Path(shop_env.java_home) / "bin" / "jcmd"
    loaded = subprocess.run(
        [str(jcmd), str(shop.pid), "JVMTI.agent_load", str(second_jar), str(agent_dir(second_jar))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert loaded.returncode == 0 and "error" not in loaded.stdout.lower(), loaded.stdout + loaded.stderr
    path = socket_path(shop.pid, second_jar)
    connection = AgentConnection.connect(path, agent=second, timeout=30.0)
    try:
        assert (connection.hello.java_version, connection.hello.agent, connection.hello.pid) == (
            "the second build",
            second,
            shop.pid,
        )
        connection.describe(7, [], limit_chars=100, value_seconds=1.0, total_seconds=1.0)
        assert connection.receive(30.0) == AgentValues(7, [])
    finally:
        connection.close()
    with pytest.raises(
        GradleReplError,
        match=rf"^refused the attach agent on {re.escape(path)}: it is {second}, not this gradle-repl's {first}; restart the application to attach to it$",
    ):
        AgentConnection.connect(path, agent=first, timeout=30.0)
    running_it = 'Throwable().stackTrace.map { it.className }.first { it.startsWith("gradlerepl.agent.") }.split(".").take(3).joinToString(".")'
    assert attached.value(running_it) == first


def test_the_attach_environment_is_the_apps_own(shop: RunningApp, shop_env: ReplEnvironment) -> None:
    """Without a project, the session compiles against the app's class path, on its JDK, at its stdlib's Kotlin."""
    environment = attach_environment(shop.pid)
    assert environment.classpath == shop_env.classpath
    assert environment.kotlin_version == "2.3.21"
    assert environment.build_tool is None  # read from the running JVM, not resolved by a build
    assert Path(environment.java_home) == Path(shop_env.java_executable).resolve().parent.parent


_ATTACH_DISABLED = "it was started with -XX:+DisableAttachMechanism (on its command line): restart it without that option to attach to it"


def test_what_cannot_be_attached_to_is_said_in_one_line(shop_env: ReplEnvironment) -> None:
    """No such process, a process that is no JVM, a JVM refusing attach: each a one-line reason."""
    with pytest.raises(GradleReplError, match=r"^no process has pid"):
        attach_environment(2**22 + 7)
    with pytest.raises(GradleReplError, match=r"is not a Java VM"):
        attach_environment(os.getpid())
    command = shop_command(shop_env.java_executable, shop_env.classpath, "-XX:+DisableAttachMechanism")
    with running_app(command, ready=SHOP_READY) as closed:
        with pytest.raises(GradleReplError, match=rf"^cannot attach to JVM \d+: {re.escape(_ATTACH_DISABLED)}$"):
            attach_environment(closed.pid)
        listed = {jvm.pid: jvm for jvm in list_running_jvms()}
        assert listed[closed.pid].why_not == _ATTACH_DISABLED
        assert listed[closed.pid].main == "shop.ShopKt"


def test_with_the_project_its_compiler_plugins_apply_to_snippets_run_in_the_app(
    shop: RunningApp, shop_env: ReplEnvironment
) -> None:
    """Attached with its project, a session compiles with the project's kotlinx-serialization plugin: a @Serializable
    class declared in a snippet is encoded by the app's own kotlinx-serialization; and a probe names the project's
    source file."""
    with running_worker(attached_to(shop.pid, shop_env)) as worker:
        probed = worker.eval("shop.Inventory.total()", probes=[Probe(at=f"Shop.kt:{TOTAL_LINE}")]).result
        assert isinstance(probed, SuccessResult), probed
        assert [hit.at for hit in probed.probe_hits] == [f"shop.Inventory.total(Shop.kt:{TOTAL_LINE})"]
        code = (
            "import kotlinx.serialization.*\nimport kotlinx.serialization.json.*\n"
            "@Serializable data class Price(val item: String, val cents: Int)\n"
            "val text = Json.encodeToString(Price(shop.Inventory.items.first().name, 300))\n"
            'text + " " + Json.decodeFromString<Price>(text)'
        )
        assert worker.value(code) == '{"item":"apple","cents":300} Price(item=apple, cents=300)'


def test_the_cli_lists_the_app_and_evaluates_inside_it(shop: RunningApp) -> None:
    """`gradle-repl jvms` shows the app as attachable; `gradle-repl eval --attach PID` runs snippets in it."""
    listed = _cli("jvms")
    assert listed.returncode == 0 and re.search(
        rf"^\s*{shop.pid}\s+Java \S+\s+shop\.ShopKt .*; attachable\)$", listed.stdout, re.MULTILINE
    ), listed.stdout
    ran = _cli(
        "eval",
        "--attach",
        str(shop.pid),
        "-e",
        "val n = shop.Inventory.items.size",
        "-e",
        "n * 10",
        "-e",
        "ProcessHandle.current().pid()",
    )
    assert ran.returncode == 0, ran.stderr
    assert f"{10 * int(_cli_value(shop))}   // kotlin.Int" in ran.stdout, ran.stdout
    assert f"{shop.pid}   // kotlin.Long" in ran.stdout, ran.stdout  # in the app's process, not beside it


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gradle_repl", *args], capture_output=True, text=True, timeout=600)


def _cli_value(shop: RunningApp) -> str:
    """How many items the app itself counts now, from its own answer."""
    line, _ = shop.ask("count", "count=")
    return line.removeprefix("count=")


def test_the_agent_refuses_a_socket_directory_others_can_enter(shop_env: ReplEnvironment, tmp_path: Path) -> None:
    """Whoever can enter the socket's directory could run code in the app: the agent listens only in one that is its
    owner's alone (the JVM refuses to start with it otherwise)."""
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    jar = build_agent_jar(shop_env.java_home)
    started = subprocess.run(
        shop_command(shop_env.java_executable, shop_env.classpath, f"-javaagent:{jar}={shared}"),
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert started.returncode != 0 and "ready" not in started.stdout
    assert (
        f"gradle-repl's agent refuses {shared}: its socket directory must be accessible to its owner only (0700)"
        in started.stderr
    )
    assert list(shared.iterdir()) == []


def test_over_mcp_two_sessions_attach_to_one_app_each_with_its_own_state_and_detach(
    shop: RunningApp, shop_env: ReplEnvironment
) -> None:
    """attach_kotlin_session twice (the agent already there is reused): each session has its own snippets' state
    but both see the one app; what a snippet prints and shows comes back as a session's own does (stdout, stderr,
    HTML, an image value); list_kotlin_sessions names the app; closing detaches and the app keeps answering."""

    async def scenario() -> None:
        manager = SessionManager(limits=SessionLimits(spare_worker=False), resolver=resolve_environment)
        async with Client(build_server(manager, end_builds_at_exit=False)) as client:
            jvms = await client.call_tool("list_running_jvms", {})
            assert f"{shop.pid}" in _text(jvms) and "shop.ShopKt" in _text(jvms)
            listed_jvm = {jvm["pid"]: jvm for jvm in jvms.structured_content["jvms"]}[shop.pid]
            assert (
                listed_jvm["main"] == "shop.ShopKt"
                and listed_jvm["attachable"] is True
                and listed_jvm["whyNot"] is None
            )
            assert listed_jvm["workingDirectory"] == os.getcwd() and listed_jvm["javaVersion"]
            for session in ("a", "b"):
                attached = await client.call_tool("attach_kotlin_session", {"pid": shop.pid, "sessionId": session})
                assert not attached.is_error, _text(attached)
                data = attached.structured_content
                assert (data["sessionId"], data["pid"], data["kotlinVersion"]) == (
                    session,
                    shop.pid,
                    "2.3.21",
                ) and data["classpathSize"] > 0, data
            # An attached session's calls may leave projectRoot out: it runs the app's classes whatever project is named.

            async def run(code: str, session: str) -> CallToolResult:
                return await client.call_tool("run_kotlin_snippet", {"code": code, "sessionId": session})

            assert not (await run("val mine = 1", "a")).is_error
            other = await run("mine", "b")
            assert other.is_error and "Unresolved reference 'mine'" in _text(other)
            shown = await run(
                'println("hi"); System.err.println("oops"); html("<b>x</b>"); java.awt.image.BufferedImage(2, 2, 1)',
                "a",
            )
            assert not shown.is_error and [
                block.mime_type for block in shown.content if isinstance(block, ImageContent)
            ] == ["image/png"]
            assert "[stdout]\nhi" in _text(shown) and "[stderr]\noops" in _text(shown) and "<b>x</b>" in _text(shown)
            assert not (await run("shop.Inventory.open = false", "a")).is_error
            assert _text(await run("shop.Inventory.open", "b")).startswith("false")
            described = await client.call_tool("describe_kotlin_session", {"sessionId": "a"})
            assert not described.is_error, _text(described)
            assert f"Attached to JVM {shop.pid}" in _text(
                described
            ) and "val mine: kotlin.Int = 1    // snippet 1" in _text(described)
            contents = described.structured_content
            assert contents["attachedPid"] == shop.pid and [d["name"] for d in contents["declarations"]] == ["mine"]
            listed = (await client.call_tool("list_kotlin_sessions", {})).structured_content
            assert {s["sessionId"]: s["attachedPid"] for s in listed["sessions"]} == {"a": shop.pid, "b": shop.pid}
            # Probes that outlive calls, in one class from both sessions: the app's own thread answering `total` hits
            # both; closing a takes its probe with it, b's stays, and removing b's leaves the class its own bytes.
            for session in ("a", "b"):
                added = await client.call_tool(
                    "add_kotlin_probe",
                    {"sessionId": session, "at": f"shop.Inventory:{TOTAL_LINE}", "capture": ["items.size"]},
                )
                assert not added.is_error and added.structured_content["probeId"] == 1, _text(added)
            assert _probed_bytes(shop, shop_env.java_home) is True
            shop.ask("total", "total=")
            for session in ("a", "b"):
                read = await client.call_tool("read_kotlin_probe_hits", {"sessionId": session, "waitSeconds": 60})
                (hit,) = read.structured_content["hits"]
                assert (hit["thread"], hit["stack"][:2]) == (
                    "main",
                    [f"shop.Inventory.total(Shop.kt:{TOTAL_LINE})", "shop.ShopKt.main(Shop.kt:26)"],
                ), hit
                assert f"[probe 1 hit 1] shop.Inventory.total(Shop.kt:{TOTAL_LINE}) on main" in _text(read)
            await client.call_tool("close_kotlin_session", {"sessionId": "a"})
            shop.ask("total", "total=")
            read = await client.call_tool("read_kotlin_probe_hits", {"sessionId": "b", "waitSeconds": 60})
            assert [hit["hit"] for hit in read.structured_content["hits"]] == [2]
            removed = await client.call_tool("remove_kotlin_probe", {"sessionId": "b", "probeId": 1})
            assert not removed.is_error and removed.structured_content["probes"] == []
            assert _probed_bytes(shop, shop_env.java_home) is False
            detached = await run("mine + 1", "a")  # an ordinary session again: it needs a project
            assert detached.is_error and "projectRoot is needed: session 'a' is not attached to a running JVM" in _text(
                detached
            )
            assert not (await run("shop.Inventory.open = true", "b")).is_error
            await client.call_tool("close_kotlin_session", {"sessionId": "b"})
            await client.call_tool("close_kotlin_session", {"sessionId": "a"})
        line, _ = shop.ask("total", "total=")
        assert line.endswith("open=true")

    asyncio.run(scenario())


def _probed_bytes(shop: RunningApp, java_home: str) -> bool:
    """Whether the app's Inventory runs bytes with a probe's call in them, as its agent says over a connection of its
    own (a session of the agent's, nothing compiled)."""
    jar = build_agent_jar(java_home)
    connection = AgentConnection.connect(socket_path(shop.pid, jar), agent=agent_package(jar), timeout=30.0)
    try:
        connection.class_bytes(9, ["shop.Inventory"], nested=False)
        answer = connection.receive(30.0)
    finally:
        connection.close()
    assert isinstance(answer, AgentClassBytes) and answer.id == 9, answer
    ((name, _, data),) = answer.classes
    assert name == "shop.Inventory" and data is not None
    return b"ProbeHook" in data


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def test_describe_after_the_app_exited_says_so_in_one_answer_and_the_server_goes_on(shop_env: ReplEnvironment) -> None:
    """An app that exited since the last snippet: describe_kotlin_session answers that its state is gone, and the
    server answers the next call."""

    async def scenario(app: RunningApp) -> None:
        manager = SessionManager(limits=SessionLimits(spare_worker=False), resolver=resolve_environment)
        async with Client(build_server(manager, end_builds_at_exit=False)) as client:
            attached = await client.call_tool("attach_kotlin_session", {"pid": app.pid, "sessionId": "gone"})
            assert not attached.is_error, _text(attached)
            assert not (
                await client.call_tool("run_kotlin_snippet", {"code": "val held = 1", "sessionId": "gone"})
            ).is_error
            app.process.kill()
            app.process.wait()
            described = await client.call_tool("describe_kotlin_session", {"sessionId": "gone"})
            assert described.is_error
            assert _text(described) == (
                f"Error: session 'gone' could not be described: The attached JVM (pid {app.pid}) exited; the session's state "
                "in it is gone. Attach again to a running JVM."
            )
            assert not (await client.call_tool("list_running_jvms", {})).is_error

    with running_app(shop_command(shop_env.java_executable, shop_env.classpath), ready=SHOP_READY) as app:
        asyncio.run(scenario(app))


_IDLE_JAVA = """
public class Idle {
    public static void main(String[] args) throws Exception {
        System.out.println("ready");
        System.out.flush();
        System.in.read();
    }
}
"""


@pytest.fixture
def nobodys_jvm(shop_env: ReplEnvironment) -> Iterator[RunningApp]:
    """A small JVM running as user `nobody`, from a directory that user can read (pytest's tmp_path is root's alone);
    the directory is removed and the JVM killed at the end."""
    directory = Path(tempfile.mkdtemp(prefix="gradle-repl-other-user-"))
    try:
        directory.chmod(0o755)
        (directory / "Idle.java").write_text(_IDLE_JAVA, encoding="utf-8")
        subprocess.run(
            [str(Path(shop_env.java_home) / "bin" / "javac"), "Idle.java"], cwd=directory, check=True, timeout=120
        )
        command = [
            "setpriv",
            "--reuid=nobody",
            "--regid=nogroup",
            "--clear-groups",
            shop_env.java_executable,
            "-cp",
            str(directory),
            "Idle",
        ]
        with running_app(command, ready="ready", cwd=str(directory)) as app:
            yield app
    finally:
        shutil.rmtree(directory)


def test_another_users_jvm_is_listed_as_not_attachable_and_refused_before_any_attach(
    nobodys_jvm: RunningApp, shop_env: ReplEnvironment
) -> None:
    """A JVM of another user is listed as not attachable with the one-line reason; attaching to it answers that line,
    before any attach API call reaches it (root could attach: the same-user policy is gradle-repl's) and before the
    named project is built; the server goes on answering."""
    pid = nobodys_jvm.pid
    why = "it runs as user nobody: gradle-repl attaches only to this user's JVMs"
    attach_listener = Path(f"/proc/{pid}/root/tmp/.java_pid{pid}")  # HotSpot's socket once something attached to it
    # Nothing has attached to this new JVM yet: a socket there is an earlier process's of the same pid, killed before it
    # could remove it (pids wrap at 32768 here, and /tmp keeps hundreds of such); it would read as an attach.
    attach_listener.unlink(missing_ok=True)

    async def scenario() -> None:
        manager = SessionManager(limits=SessionLimits(spare_worker=False), resolver=resolve_environment)
        async with Client(build_server(manager, end_builds_at_exit=False)) as client:
            listed = await client.call_tool("list_running_jvms", {})
            jvm = {j["pid"]: j for j in listed.structured_content["jvms"]}[pid]
            assert (jvm["user"], jvm["attachable"], jvm["whyNot"]) == ("nobody", False, why)
            assert re.search(
                rf"^\s*{pid}\s+Java .* Idle  \(in .*; not attachable: {re.escape(why)}\)$", _text(listed), re.MULTILINE
            )
            refused = await client.call_tool("attach_kotlin_session", {"pid": pid, "sessionId": "other"})
            assert refused.is_error and _text(refused) == f"Error: cannot attach to JVM {pid}: {why}"
            # With a project named, the JVM is refused before the project is looked at (this one doesn't exist).
            unbuilt = await client.call_tool("attach_kotlin_session", {"pid": pid, "projectRoot": "/no/such/project"})
            assert unbuilt.is_error and _text(unbuilt) == f"Error: cannot attach to JVM {pid}: {why}"
            assert not attach_listener.exists()
            again = await client.call_tool("list_kotlin_sessions", {})
            assert not again.is_error and _text(again) == "No live sessions."

    asyncio.run(scenario())
    with pytest.raises(GradleReplError, match=rf"^cannot attach to JVM {pid}: {re.escape(why)}$"):
        attach_environment(pid)
    assert not attach_listener.exists()
    # HotSpot itself lets root in: the refusal above is gradle-repl's policy, and the listener is what an attach leaves.
    jcmd = Path(shop_env.java_home) / "bin" / "jcmd"
    assert (
        subprocess.run([str(jcmd), str(pid), "VM.version"], capture_output=True, text=True, timeout=120).returncode == 0
    )
    assert attach_listener.exists()
