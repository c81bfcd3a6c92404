"""An app on JDK 25, where Thread.stop is gone and agents loaded into a running JVM are warned about: started with
`gradle-repl agent-path`'s option, it is attached without the warning, and a snippet ignoring its interrupt is said
to keep running in the app, which keeps answering."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradle_repl.frames import ErrorResult
from gradle_repl.front.attaching import agent_option
from gradle_repl.project.resolve import resolve_environment
from support.paths import PROJECTS
from support.runningapp import SHOP_READY, running_app, shop_command
from support.workers import attached_to, running_worker

pytestmark = pytest.mark.jvm

# This machine's second JDK (CONTRIBUTING.md, Setting up).
JDK25 = Path("/usr/lib/jvm/temurin-25-jdk-amd64")


def test_a_jdk_25_app_started_with_the_agent_runs_snippets_and_a_runaway_one_is_said_to_run_on() -> None:
    """The agent loaded with -javaagent: at the app's start is the one attaching uses (no dynamic-agent warning on
    the app's console); snippets run on JDK 25; one that ignores its interrupt can't be stopped there, the reply says
    so, and the app keeps answering."""
    if not (JDK25 / "bin" / "java").is_file():
        pytest.fail(f"no JDK 25 at {JDK25}: install temurin-25-jdk (CONTRIBUTING.md, Setting up)")
    classpath = resolve_environment(PROJECTS / "attach-plain", build_tool="maven").environment.classpath
    with (
        running_app(shop_command(str(JDK25 / "bin" / "java"), classpath, agent_option()), ready=SHOP_READY) as app,
        running_worker(attached_to(app.pid)) as worker,
    ):
        assert worker.value("Runtime.version().feature()") == "25"
        result = worker.eval("while (true) { }", timeout=2.0).result
        assert isinstance(result, ErrorResult) and result.error_kind == "timeout", result
        assert "left running: Java 25 cannot stop a thread, so it runs on in the app until it ends" in result.message
        line, before = app.ask("total", "total=")
        assert line == "total=8 open=true"
        assert not any("loaded dynamically" in seen for seen in [app.ready_line, *before]), before
        assert worker.value("shop.Inventory.items.size") == "2"
