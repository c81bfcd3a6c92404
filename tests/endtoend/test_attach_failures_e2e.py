"""Each way attaching to a real running app fails, through the MCP tool a user calls (attach_kotlin_session over the
real client): the answer is one sentence naming what went wrong and what to do, it comes within the attach's
deadlines, and the server goes on answering. The apps are the plain Java counter of tests/projects/attach-java-plain,
each with a small heap."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from gradle_repl.front.server import build_server
from gradle_repl.host.handle import WORKER_START_TIMEOUT_SECONDS
from gradle_repl.host.manager import SessionLimits, SessionManager
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.project.running_jvms import java_home_of
from support.runningapp import RunningApp, running_app
from support.sentences import is_a_sentence

pytestmark = pytest.mark.jvm

# The counter app needs little: a small heap keeps each of these JVMs cheap.
SMALL_HEAP = "-Xmx48m"
# A refusal decided before anything reaches the app (gradle-repl's policy, or jcmd answering at once) takes a
# moment; this bounds it on a loaded machine, far below any attach deadline.
QUICK_REFUSAL_SECONDS = 30.0


def _counter(classes: Path, *options: str, java: str = "java") -> list[str]:
    return [java, SMALL_HEAP, *options, "-cp", str(classes), "counter.Main"]


def _java_on_path() -> str:
    java = shutil.which("java")
    assert java is not None, "the suite runs the apps with the java on PATH"
    return java


def _text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def _refusal(result: CallToolResult) -> str:
    """The error a refused attach answers, checked to be one sentence."""
    text = _text(result)
    assert result.is_error, text
    assert is_a_sentence(text), text
    return text


async def _server_goes_on(client: Client) -> None:
    """After a refused attach no session is left behind and the JVM listing still answers."""
    sessions = await client.call_tool("list_kotlin_sessions", {})
    assert not sessions.is_error and _text(sessions) == "No live sessions.", _text(sessions)
    assert not (await client.call_tool("list_running_jvms", {})).is_error


def _manager() -> SessionManager:
    # No spare worker: the only worker started is the attach's own, which the stopped-app test watches for.
    return SessionManager(limits=SessionLimits(spare_worker=False), resolver=resolve_environment)


def _attach_refused(pid: int) -> tuple[str, float]:
    """attach_kotlin_session on `pid` over the real MCP client: the refusal's text and how long it took, after the
    server was seen to go on."""

    async def scenario() -> tuple[str, float]:
        async with Client(build_server(_manager(), end_builds_at_exit=False)) as client:
            started = time.monotonic()
            refused = await client.call_tool("attach_kotlin_session", {"pid": pid, "sessionId": "app"})
            took = time.monotonic() - started
            text = _refusal(refused)
            await _server_goes_on(client)
            return text, took

    return asyncio.run(scenario())


def test_an_app_started_with_attach_disabled_is_refused_with_what_to_do(counter_classes: Path) -> None:
    """-XX:+DisableAttachMechanism through JDK_JAVA_OPTIONS (not on the command line): refused at once, the option
    and where it came from named, and told to restart the app without it."""
    command = _counter(counter_classes)
    env = {**os.environ, "JDK_JAVA_OPTIONS": "-XX:+DisableAttachMechanism"}
    with running_app(command, ready="ready", env=env) as app:
        text, took = _attach_refused(app.pid)
    assert "-XX:+DisableAttachMechanism" in text and "JDK_JAVA_OPTIONS" in text and "restart" in text, text
    assert took < QUICK_REFUSAL_SECONDS


def test_an_app_whose_jdk_refuses_attach_is_told_so_without_a_java_stack(
    counter_classes: Path,
    tmp_path: Path,
) -> None:
    """The option hidden in an @argfile, where gradle-repl's listing can't see it: the JDK's own refusal (jcmd's
    AttachNotSupportedException and stack) becomes one sentence naming the option and saying to restart without it."""
    options = tmp_path / "options"
    options.write_text("-XX:+DisableAttachMechanism\n", encoding="utf-8")
    with running_app(_counter(counter_classes, f"@{options}"), ready="ready") as app:
        text, took = _attach_refused(app.pid)
    assert "refuses" in text and "-XX:+DisableAttachMechanism" in text and "restart" in text, text
    assert "Exception" not in text and took < QUICK_REFUSAL_SECONDS, text


def test_an_app_on_a_jre_without_jcmd_is_refused_and_listed_so(
    counter_classes: Path,
    tmp_path: Path,
) -> None:
    """An app on a runtime with no jcmd (a JRE, here one jlink made of java.base alone) is listed as not attachable
    and refused in one sentence that names that runtime and says to run the app on a JDK."""
    jre = tmp_path / "jre"
    subprocess.run(
        [
            str(Path(java_home_of(_java_on_path())) / "bin" / "jlink"),
            "--add-modules",
            "java.base",
            "--output",
            str(jre),
        ],
        check=True,
        timeout=300,
    )
    assert not (jre / "bin" / "jcmd").exists()
    with running_app(_counter(counter_classes, java=str(jre / "bin" / "java")), ready="ready") as app:
        text, _ = _attach_refused(app.pid)

        async def listed() -> dict[str, Any]:
            async with Client(build_server(_manager(), end_builds_at_exit=False)) as client:
                jvms = (await client.call_tool("list_running_jvms", {})).structured_content
                assert jvms is not None
                return {jvm["pid"]: jvm for jvm in jvms["jvms"]}[app.pid]  # type: ignore[no-any-return]

        jvm = asyncio.run(listed())
    assert str(jre) in text and "JDK" in text, text
    assert not jvm["attachable"] and str(jre) in jvm["whyNot"], jvm


@pytest.fixture
def counter(counter_classes: Path) -> Iterator[RunningApp]:
    with running_app(_counter(counter_classes), ready="ready") as app:
        try:
            yield app
        finally:
            os.kill(app.pid, signal.SIGCONT)  # a test that stopped it never leaves it stopped


def test_a_stopped_app_is_refused_at_once_and_attached_once_it_runs_again(counter: RunningApp) -> None:
    """An app stopped with SIGSTOP (Ctrl-Z, a debugger) before the attach: refused at once, told to resume it
    (kill -CONT) and attach again; after SIGCONT the same server attaches and runs a snippet in it."""
    pid = counter.pid

    async def scenario() -> None:
        async with Client(build_server(_manager(), end_builds_at_exit=False)) as client:
            os.kill(pid, signal.SIGSTOP)
            started = time.monotonic()
            refused = await client.call_tool("attach_kotlin_session", {"pid": pid, "sessionId": "app"})
            took = time.monotonic() - started
            text = _refusal(refused)
            assert "stopped" in text and f"kill -CONT {pid}" in text, text
            assert took < QUICK_REFUSAL_SECONDS
            await _server_goes_on(client)
            os.kill(pid, signal.SIGCONT)
            attached = await client.call_tool("attach_kotlin_session", {"pid": pid, "sessionId": "app"})
            assert not attached.is_error, _text(attached)
            ran = await client.call_tool("run_kotlin_snippet", {"code": "counter.Main.counter + 1", "sessionId": "app"})
            assert not ran.is_error and _text(ran).startswith("2"), _text(ran)

    asyncio.run(scenario())


def _attach_worker() -> psutil.Process | None:
    """The worker the attach started: this process's child running `gradle_repl.worker`."""
    for child in psutil.Process().children(recursive=True):
        try:
            if "gradle_repl.worker" in child.cmdline():
                return child
        except psutil.Error:
            continue
    return None


def test_an_app_stopped_while_the_attach_starts_its_worker_fails_it_within_its_deadline(counter: RunningApp) -> None:
    """The app stopped once the attach has read its class path and started the session's worker, before the agent
    is loaded: the attach fails with one sentence saying the JVM is stopped and what to do, well within the worker's
    start deadline (nothing waits on the stopped JVM), and no session is left."""
    pid = counter.pid

    async def scenario() -> None:
        async with Client(build_server(_manager(), end_builds_at_exit=False)) as client:
            started = time.monotonic()
            attach = asyncio.ensure_future(client.call_tool("attach_kotlin_session", {"pid": pid, "sessionId": "app"}))
            while _attach_worker() is None:
                assert not attach.done(), _text(attach.result())
                await asyncio.sleep(0.05)
            os.kill(pid, signal.SIGSTOP)
            refused = await attach
            took = time.monotonic() - started
            text = _refusal(refused)
            assert "stopped" in text and f"kill -CONT {pid}" in text, text
            assert took < WORKER_START_TIMEOUT_SECONDS / 2, took
            await _server_goes_on(client)

    asyncio.run(scenario())
