"""A session attached to a Spring Boot web app started as its users start it (`java -jar` of the repackaged jar):
snippets reach its beans through bean<T>() and see and change what its HTTP endpoint answers."""

from __future__ import annotations

import re
import subprocess
import threading
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from gradle_repl.frames import DisplayFrame, ErrorResult, Probe, SuccessResult
from gradle_repl.project.toolchain import find_mvn
from support.paths import PROJECTS
from support.runningapp import RunningApp, running_app
from support.workers import SyncWorker, attached_to, running_worker

pytestmark = pytest.mark.jvm

# kotlin-maven-plugin 2.2.20+ compiles in a Kotlin daemon that outlives the build (the product passes the same).
NO_KOTLIN_DAEMON = ("-Dkotlin.compiler.daemon=false",)

GREET = PROJECTS / "attach-spring-web"
# Maven downloads the web starter once per machine; later packages take seconds.
PACKAGE_TIMEOUT_SECONDS = 900
HTTP_TIMEOUT_SECONDS = 30
# How long the killed app's snippet may wait for the file that says it started.
STARTED_TIMEOUT_SECONDS = 60


@pytest.fixture(scope="module")
def greet_jar() -> Path:
    subprocess.run(
        [find_mvn(), "-q", "-B", "package", "-DskipTests", *NO_KOTLIN_DAEMON],
        cwd=GREET,
        check=True,
        timeout=PACKAGE_TIMEOUT_SECONDS,
    )
    return GREET / "target" / "greet-1.0.jar"


@pytest.fixture(scope="module")
def greet(greet_jar: Path) -> Iterator[RunningApp]:
    with running_app(["java", "-jar", str(greet_jar)], ready="Tomcat started on port") as app:
        yield app


@pytest.fixture(scope="module")
def get(greet: RunningApp) -> Callable[[], str]:
    found = re.search(r"Tomcat started on port\(?s?\)?:? (\d+)", greet.ready_line)
    assert found, greet.ready_line
    url = f"http://127.0.0.1:{found.group(1)}/greeting"

    def greeting() -> str:
        with urllib.request.urlopen(url, timeout=HTTP_TIMEOUT_SECONDS) as answer:
            body: bytes = answer.read()
            return body.decode()

    return greeting


@pytest.fixture(scope="module")
def attached(greet: RunningApp) -> Iterator[SyncWorker]:
    with running_worker(attached_to(greet.pid)) as worker:
        yield worker


def test_a_bean_changed_by_a_snippet_changes_the_apps_http_answer(attached: SyncWorker, get: Callable[[], str]) -> None:
    """bean<T>() is the app's own bean: a greeting set through it is what the endpoint answers next."""
    assert get().startswith("Hello #")
    attached.value('bean<greet.Greeter>().greeting = "Howdy"; bean<greet.Greeter>().greeting')
    assert get().startswith("Howdy #")


def test_a_request_changes_state_a_later_snippet_sees(attached: SyncWorker, get: Callable[[], str]) -> None:
    """The reverse: the app counts the requests it answered, and a snippet reads that count."""
    before = int(attached.value("bean<greet.Greeter>().visits.get()"))
    get()
    get()
    assert int(attached.value("bean<greet.Greeter>().visits.get()")) == before + 2


def test_a_probe_sees_what_a_request_carried_through_the_app_and_a_snippets_call_its_private_state(
    attached: SyncWorker, get: Callable[[], str]
) -> None:
    """A probe that outlives calls in the fat jar's classes: a request's Tomcat thread through Greeter.greet() is
    recorded with the bean's fields and the captures, down through the controller; a snippet's own probe reads the
    controller's private `greeter`. Removed, the probe records no more."""
    added = attached.add_probe(Probe(at="greet.Greeter:19", capture=["greeting", "visits.get()"], max_hits=5))
    assert added.probe_id is not None
    visits = int(attached.value("bean<greet.Greeter>().visits.get()"))
    greeting = get()
    (hit,) = attached.read_probes(added.probe_id, wait_seconds=60).hits
    assert hit.thread.startswith("http-nio-"), hit.thread
    assert hit.stack[:2] == [
        "greet.Greeter.greet(GreetApplication.kt:19)",
        "greet.GreetController.greeting(GreetApplication.kt:25)",
    ]
    assert hit.stack[-1].endswith("more (the JDK's and libraries')"), hit.stack
    assert [c.value for c in hit.captured] == [greeting.split(" #")[0], str(visits)]
    assert hit.this == f"Greeter(greeting={greeting.split(' #')[0]}, visits={visits})"
    reply = attached.eval(
        "bean<greet.GreetController>().greeting()",
        probes=[Probe(at="greet.GreetController:25", capture=["greeter.visits.get()"])],
    ).result
    assert isinstance(reply, SuccessResult) and [c.value for c in reply.probe_hits[0].captured] == [str(visits + 1)]
    assert attached.remove_probe(added.probe_id).probes == []
    get()
    assert attached.read_probes().hits == []


def test_beans_by_name_and_the_context_are_the_apps(attached: SyncWorker) -> None:
    """beanNames(), bean(name) and applicationContext, found from outside the app; its classes come from the fat
    jar's LaunchedClassLoader, which the snippets' loaders sit on."""
    assert "greeter" in attached.value("beanNames()")
    assert attached.value('bean("greeter") === bean<greet.Greeter>()') == "true"
    assert attached.value("applicationContext.id") == "greet"
    assert attached.value("greet.Greeter::class.java.classLoader.javaClass.simpleName") == "LaunchedClassLoader"


def test_what_a_snippet_shows_comes_back_from_under_the_fat_jars_loader(attached: SyncWorker) -> None:
    """Under the fat jar's LaunchedClassLoader too, html() and display() of a bean's state reach the session as display
    frames, between the lines printed around them."""
    greeting = attached.value("bean<greet.Greeter>().greeting")
    reply = attached.eval(
        'println("greeting:"); html("<p>${bean<greet.Greeter>().greeting}</p>"); display(bean<greet.Greeter>().greeting)'
    )
    assert isinstance(reply.result, SuccessResult), reply.result
    shown = [(f.kind, f.data) if isinstance(f, DisplayFrame) else (f.event, f.data) for f in reply.frames]
    assert greeting and shown == [("stdout", "greeting:\n"), ("html", f"<p>{greeting}</p>"), ("text", greeting)]


def test_a_kotlin_2_2_apps_value_class_result_reads_as_the_program_shows_it(attached: SyncWorker) -> None:
    """The app runs Kotlin 2.2, which mangles the body of a snippet whose value is of a value class (`$$eval-<hash>`):
    the agent finds it and boxes the value by the rule the worker's own JVM follows, so a Duration reads `5s`; an
    IntArray reads by its contents as a value and in describe."""
    reply = attached.eval('kotlin.time.Duration.parse("5s")')
    assert isinstance(reply.result, SuccessResult) and reply.result.value is not None, reply.result
    assert (reply.result.value.data, reply.result.value_type) == ("5s", "kotlin.time.Duration")
    assert attached.value("intArrayOf(1, 2)") == "[1, 2]"
    assert isinstance(attached.eval("val springPair = intArrayOf(1, 2)").result, SuccessResult)
    assert {d.name: d.value for d in attached.describe().declarations}["springPair"] == "[1, 2]"


def test_a_timeout_stops_the_snippet_and_the_app_keeps_serving(attached: SyncWorker, get: Callable[[], str]) -> None:
    """A runaway snippet is interrupted at its timeout; the app answers HTTP meanwhile and after."""
    greeting = attached.value("bean<greet.Greeter>().greeting")
    result = attached.eval("while (!Thread.currentThread().isInterrupted) { }", timeout=2.0).result
    assert isinstance(result, ErrorResult) and result.error_kind == "timeout", result
    assert get().startswith(f"{greeting} #")
    assert attached.value("bean<greet.Greeter>().greeting") == greeting


def test_an_app_started_with_mvn_spring_boot_run_is_attached_to_its_forked_jvm(greet_jar: Path) -> None:
    """`mvn spring-boot:run` forks the app's JVM with its main class on a class path: that JVM is found among Maven's
    children, and its beans are reached as in the jar's (the snippets' loaders sit on the app class loader)."""
    command = [
        find_mvn(),
        "-q",
        "-B",
        "spring-boot:run",
        *NO_KOTLIN_DAEMON,
        "-Dspring-boot.run.arguments=--spring.application.name=forked",
    ]
    with running_app(command, ready="Tomcat started on port", cwd=str(GREET)) as maven:
        forked = [
            p for p in psutil.Process(maven.pid).children(recursive=True) if "greet.GreetApplicationKt" in p.cmdline()
        ]
        assert len(forked) == 1, [p.cmdline() for p in psutil.Process(maven.pid).children(recursive=True)]
        with running_worker(attached_to(forked[0].pid)) as worker:
            assert worker.value("applicationContext.id") == "forked"
            assert worker.value("bean<greet.Greeter>().greeting") == "Hello"
            assert worker.value("greet.Greeter::class.java.classLoader.javaClass.simpleName") == "AppClassLoader"


def test_the_app_exiting_during_a_snippet_ends_the_session_with_a_clear_answer(
    attached: SyncWorker, greet: RunningApp, tmp_path: Path
) -> None:
    """Killed mid-snippet, the app takes the session's state with it: the reply says so at once, nothing hangs."""
    started = tmp_path / "started"
    killer = threading.Thread(target=_kill_when_present, args=(started, greet), daemon=True)
    killer.start()
    reply = attached.eval(f'java.io.File("{started}").writeText("1"); Thread.sleep(600_000)', timeout=120.0)
    killer.join()
    assert isinstance(reply.result, ErrorResult) and reply.result.error_kind == "exited", reply.result
    assert reply.result.message.startswith(f"The attached JVM (pid {greet.pid}) exited")
    assert reply.state_lost


def _kill_when_present(path: Path, app: RunningApp) -> None:
    """Kills the app once the snippet's file says it runs (polling the observable state)."""
    import time

    deadline = time.monotonic() + STARTED_TIMEOUT_SECONDS
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    app.process.kill()
