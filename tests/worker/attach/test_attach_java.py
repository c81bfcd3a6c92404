"""Attached sessions on apps written in Java, with no Kotlin of their own: a plain `main` with static state and a
Spring Boot web app started with `java -jar`. The snippets get the Kotlin runtime they were compiled for in their own
loader (never on the app's class path) and reach the app's statics, its beans and its HTTP answers as in a Kotlin app."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from gradle_repl.frames import DEFAULT_OUTPUT_LIMIT_BYTES, Probe, StreamFrame, SuccessResult
from gradle_repl.project.running_jvms import list_running_jvms
from gradle_repl.worker.probes.hits import NO_KOTLIN_THERE
from support.paths import PROJECTS, run_state_dir
from support.runningapp import RunningApp, packaged_app, running_app
from support.workers import SyncWorker, attached_to, running_worker

pytestmark = pytest.mark.jvm

HELLO = PROJECTS / "attach-java-spring-web"
HTTP_TIMEOUT_SECONDS = 30
# This machine's second JDK (README, On a fresh machine), beside the default JDK 17.
JDK25 = Path("/usr/lib/jvm/temurin-25-jdk-amd64")
JAVAS = {"jdk17": "java", "jdk25": str(JDK25 / "bin" / "java")}


def _java(name: str) -> str:
    if name == "jdk25" and not (JDK25 / "bin" / "java").is_file():
        pytest.fail(f"no JDK 25 at {JDK25}: install temurin-25-jdk (README, On a fresh machine)")
    return JAVAS[name]


@pytest.fixture(scope="module", params=["jdk17", "jdk25"])
def counter(request: pytest.FixtureRequest, counter_classes: Path) -> Iterator[RunningApp]:
    with running_app([_java(request.param), "-cp", str(counter_classes), "counter.Main"], ready="ready") as app:
        yield app


@pytest.fixture(scope="module")
def attached(counter: RunningApp) -> Iterator[SyncWorker]:
    with running_worker(attached_to(counter.pid)) as worker:
        yield worker


def test_a_java_app_without_kotlin_is_listed_so(counter: RunningApp) -> None:
    """list_running_jvms says the app has no Kotlin (False, not None for a class path it could not read): a session
    there compiles for gradle-repl's own."""
    (listed,) = [jvm for jvm in list_running_jvms() if jvm.pid == counter.pid]
    assert listed.attachable and listed.has_kotlin is False and listed.kotlin_version is None, listed


def test_snippets_read_and_change_a_java_apps_statics_and_the_app_sees_it(
    attached: SyncWorker, counter: RunningApp
) -> None:
    """The snippets run against the app's own class: a change they make to its static is what the app reports."""
    start = int(attached.value("counter.Main.counter"))
    counter.ask("tick", "ticked")
    assert int(attached.value("counter.Main.counter")) == start + 1
    attached.value('counter.Main.counter = 40; counter.Main.NAMES.add("linus"); counter.Main.NAMES.size')
    line, _ = counter.ask("count", "count=")
    assert line == "count=40 names=[ada, grace, linus]"


def test_a_probe_in_a_java_apps_static_method_records_what_its_own_thread_saw(
    attached: SyncWorker, counter: RunningApp
) -> None:
    """A probe that outlives calls in a Java class, on JDK 17 and 25: the app's main thread answering `count` reaches
    report(), and the hit has its static state (a static method: no `this`) as the app printed it."""
    report = attached.add_probe(Probe(at="counter.Main:21", capture=["Main.counter", "Main.NAMES.size"]))
    assert report.probe_id is not None
    line, _ = counter.ask("count", "count=")
    (seen,) = attached.read_probes(report.probe_id, wait_seconds=60).hits
    assert (seen.thread, seen.this, seen.at) == ("main", None, "counter.Main.report(Main.java:21)")
    assert [c.value for c in seen.captured] == [line.split()[0].removeprefix("count="), str(line.count(",") + 1)], seen
    attached.remove_probe(report.probe_id)
    # A `when` is the probed line's own linked call in the app, with no Kotlin there either: it chooses the hits.
    for when, hits in (("Main.counter > 0", ["counter.Main.report(Main.java:21)"]), ("Main.counter < 0", [])):
        chosen = attached.eval("counter.Main.report()", probes=[Probe(at="counter.Main:21", when=when)]).result
        assert isinstance(chosen, SuccessResult) and [hit.at for hit in chosen.probe_hits] == hits, chosen
    # The probe's code runs in the probed class's nest, whose loader has no Kotlin: Kotlin's library isn't there.
    kotlin = attached.eval(
        "counter.Main.report()", probes=[Probe(at="counter.Main:21", capture=["Main.NAMES.joinToString()"])]
    )
    assert isinstance(kotlin.result, SuccessResult), kotlin.result
    (hit,) = kotlin.result.probe_hits
    assert (hit.captured[0].error or "").startswith("java.lang.NoClassDefFoundError: kotlin/"), hit
    assert hit.notes == [NO_KOTLIN_THERE]


def test_kotlin_runs_in_the_snippets_loader_only_never_the_apps(attached: SyncWorker) -> None:
    """The lent Kotlin runtime is the snippets' alone: the app's own loader still can't load kotlin.Unit."""
    code = (
        "val app = counter.Main::class.java.classLoader\n"
        'runCatching { Class.forName("kotlin.Unit", false, app) }.isFailure to listOf(1, 2).map { it * 2 }'
    )
    assert attached.value(code) == "(true, [2, 4])"


def test_an_int_array_reads_by_its_contents_as_a_value_and_in_describe(attached: SyncWorker) -> None:
    """intArrayOf(1, 2) reads `[1, 2]`, as the value of a snippet and in describe (the rule both JVM sides share)."""
    assert attached.value("intArrayOf(1, 2)") == "[1, 2]"
    assert isinstance(attached.eval("val pair = intArrayOf(1, 2)").result, SuccessResult)
    described = {d.name: d for d in attached.describe().declarations}
    assert described["pair"].value == "[1, 2]"


def test_a_value_class_result_reads_as_the_program_shows_it(attached: SyncWorker) -> None:
    """A Duration is shown as `5s`, not its underlying long, as a value and in describe."""
    reply = attached.eval('kotlin.time.Duration.parse("5s")')
    assert isinstance(reply.result, SuccessResult) and reply.result.value is not None
    assert reply.result.value.data == "5s" and reply.result.value_type == "kotlin.time.Duration"
    assert isinstance(attached.eval('val wait = kotlin.time.Duration.parse("5s")').result, SuccessResult)
    assert {d.name: d.value for d in attached.describe().declarations}["wait"] == "5s"


def test_a_character_split_by_the_output_limit_is_dropped_whole(attached: SyncWorker) -> None:
    """Output cut inside a two-byte character keeps none of it (no U+FFFD) and counts both of its bytes as cut."""
    reply = attached.eval(f'print("x".repeat({DEFAULT_OUTPUT_LIMIT_BYTES - 1}) + "é"); "printed"')
    assert isinstance(reply.result, SuccessResult), reply.result
    printed = "".join(f.data for f in reply.frames if isinstance(f, StreamFrame))
    assert "\ufffd" not in printed and printed == "x" * (DEFAULT_OUTPUT_LIMIT_BYTES - 1)
    assert reply.result.truncated_bytes == 2


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gradle_repl", *args], input=stdin, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def hello_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return packaged_app(HELLO, "hello-1.0.jar", run_state_dir(tmp_path_factory))


@pytest.mark.parametrize("jdk", ["jdk17", "jdk25"])
def test_a_java_spring_boot_apps_bean_is_read_and_changed_and_its_http_answer_follows(
    hello_jar: Path, jdk: str
) -> None:
    """bean<T>() in a Spring Boot app written in Java, started with `java -jar`: a greeting set through the bean is
    what the endpoint answers next, the requests it answered are what a snippet counts, and describe reads the bean."""
    with running_app([_java(jdk), "-jar", str(hello_jar)], ready="Tomcat started on port") as app:
        found = re.search(r"Tomcat started on port\(?s?\)?:? (\d+)", app.ready_line)
        assert found, app.ready_line
        url = f"http://127.0.0.1:{found.group(1)}/greeting"

        def get() -> str:
            with urllib.request.urlopen(url, timeout=HTTP_TIMEOUT_SECONDS) as answer:
                return str(answer.read().decode())

        assert get() == "Hello #1"
        with running_worker(attached_to(app.pid)) as worker:
            assert worker.value("bean<hello.Greeter>().visits.get()") == "1"
            assert isinstance(worker.eval('bean<hello.Greeter>().greeting = "Howdy"').result, SuccessResult)
            assert get() == "Howdy #2"
            assert isinstance(worker.eval("val greeter = bean<hello.Greeter>()").result, SuccessResult)
            described = {d.name: d for d in worker.describe().declarations}
            assert described["greeter"].signature == "val greeter: hello.Greeter"
        # `gradle-repl eval --attach PID` and `gradle-repl repl --attach PID` run snippets in the Java app, the eval's
        # in one session. Their own workers cost a minute each on a loaded machine: once is the claim.
        if jdk == "jdk17":
            ran = _cli(
                "eval", "--attach", str(app.pid), "-e", "val greeter = bean<hello.Greeter>()", "-e", "greeter.greeting"
            )
            assert ran.returncode == 0 and "Howdy   // kotlin.String" in ran.stdout, (ran.stdout, ran.stderr)
            session = _cli("repl", "--attach", str(app.pid), stdin="bean<hello.Greeter>().visits.get()\n")
            assert session.returncode == 0 and "2   // kotlin.Int" in session.stdout, (session.stdout, session.stderr)
