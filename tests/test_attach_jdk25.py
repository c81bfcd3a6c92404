"""An app on JDK 25, where agents loaded at run time are warned about and Thread.stop is gone: the session works, and a
snippet ignoring its interrupt is said to keep running in the app, which keeps answering."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import PROJECTS, SyncWorker, running_worker
from gradle_repl.front.attaching import agent_option
from gradle_repl.frames import ErrorResult
from gradle_repl.project.attach_target import attach_environment
from gradle_repl.project.resolve import resolve_environment
from runningapp import SHOP_READY, RunningApp, running_app, shop_command

pytestmark = pytest.mark.jvm

# This machine's second JDK (the README's setup installs it beside the default 17).
JDK25 = Path("/usr/lib/jvm/temurin-25-jdk-amd64")


@pytest.fixture(scope="module")
def classpath() -> list[str]:
    if not (JDK25 / "bin" / "java").is_file():
        pytest.fail(f"no JDK 25 at {JDK25}: install temurin-25-jdk (README, On a fresh machine)")
    return resolve_environment(PROJECTS / "attach-plain", build_tool="maven").environment.classpath


@pytest.fixture(scope="module")
def app25(classpath: list[str]) -> Iterator[tuple[RunningApp, SyncWorker]]:
    """The plain app on JDK 25, and a session attached to it."""
    with running_app(shop_command(str(JDK25 / "bin" / "java"), classpath), ready=SHOP_READY) as app:
        with running_worker(attach_environment(app.pid)) as worker:
            yield app, worker


def test_a_jdk_25_app_runs_snippets_and_a_runaway_one_is_said_to_run_on(app25: tuple[RunningApp, SyncWorker]):
    """Snippets run on the app's JDK 25; one that ignores its interrupt can't be stopped there, and the reply says so."""
    app, attached25 = app25
    assert attached25.value("Runtime.version().feature()") == "25"
    result = attached25.eval("while (true) { }", timeout=2.0).result
    assert isinstance(result, ErrorResult) and result.error_kind == "timeout", result
    assert "left running: Java 25 cannot stop a thread, so it runs on in the app until it ends" in result.message
    line, before = app.ask("total", "total=")
    assert line == "total=8 open=true"
    assert any("A Java agent has been loaded dynamically" in seen for seen in before), before
    assert attached25.value("shop.Inventory.items.size") == "2"


def test_an_app_started_with_the_agent_option_is_attached_without_the_warning(classpath: list[str]):
    """`gradle-repl agent-path`'s -javaagent: option loads the agent at the app's start: Java 25 prints no warning,
    and attaching uses the agent already listening."""
    with running_app(shop_command(str(JDK25 / "bin" / "java"), classpath, agent_option()), ready=SHOP_READY) as app:
        with running_worker(attach_environment(app.pid)) as worker:
            assert worker.value("shop.Inventory.total()") == "8"
        line, before = app.ask("total", "total=")
        assert not any("loaded dynamically" in seen for seen in [app.ready_line, *before]), before
