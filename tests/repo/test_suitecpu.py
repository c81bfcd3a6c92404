"""tests/suitecpu.py: which kind a process is, from its command line, and the CPU a real process spends."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import psutil

from suitecpu import CpuByKind, kind_of, module_of, started_for


def test_each_process_of_the_suite_has_its_kind() -> None:
    assert kind_of([sys.executable, "-m", "gradle_repl.worker"]) == "session worker (Python + its JVM)"
    daemon = ["java", "-cp", "/m2/kotlin-compiler-embeddable.jar", "org.jetbrains.kotlin.daemon.KotlinCompileDaemon"]
    assert kind_of(daemon) == "Kotlin daemon"
    maven = ["/usr/lib/jvm/java-17/bin/java", "-classpath", "/usr/share/maven/boot/plexus-classworlds-2.6.0.jar"]
    assert kind_of([*maven, "org.codehaus.plexus.classworlds.launcher.Launcher", "-B"]) == "Maven"
    assert kind_of([sys.executable, "-m", "gradle_repl", "serve", "--no-spare-worker"]) == "gradle-repl server"
    assert kind_of([sys.executable, "-m", "gradle_repl", "eval", "-e", "1"]) == "gradle-repl CLI"
    assert kind_of([sys.executable, "-c", "import sys;exec(eval(sys.stdin.readline()))"]) == "pytest"
    assert kind_of([sys.executable, "-m", "pytest", "tests/test_x.py"]) == "pytest"
    # An argument naming the run's temporary directory makes nothing pytest.
    cli = [sys.executable, "-m", "gradle_repl", "eval", "/tmp/pytest-of-root/pytest-1/p", "-e", "1"]
    assert kind_of(cli) == "gradle-repl CLI"
    assert kind_of(["java", "-cp", "/tmp/pytest-of-root/x.jar", "GradleModelsKt"]) == "JVM: GradleModelsKt"
    # Another JVM by its main class or jar; an option's value is not taken for either.
    assert kind_of(["java", "-Xmx1g", "-cp", "a.jar:b.jar", "GradleModelsKt", "run0"]) == "JVM: GradleModelsKt"
    assert kind_of(["java", "--add-opens", "java.base/java.lang=ALL-UNNAMED", "-jar", "/x/hello-1.0.jar"]) == (
        "JVM: hello-1.0.jar"
    )
    assert kind_of(["/usr/bin/node", "inspector.js"]) == "node"
    assert kind_of([]) == "?"


def test_a_process_started_after_the_readings_began_is_counted_under_its_kind_with_the_cpu_it_spent() -> None:
    usage = CpuByKind()
    usage.exclude_running()
    # It spends 0.5 s of CPU, says so, and waits: the reading after that sees all of it, however loaded the machine.
    busy = "import sys, time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass\nprint('spent', flush=True)\nsys.stdin.read()"
    # A name of its own: the suite's other tests start Python processes of their own while this one runs.
    command = ["suitecpu-probe", "-c", busy]
    with subprocess.Popen(
        command,
        executable=sys.executable,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTEST_CURRENT_TEST": "tests/test_probe.py::test_spends[a::b] (call)"},
    ) as process:
        assert process.stdout is not None and process.stdin is not None
        usage.read()
        assert process.stdout.readline() == "spent\n"
        usage.read()
        process.stdin.close()
        # Ended and not yet waited for: a zombie, whose command line reads empty; it keeps its kind and its CPU.
        zombie = psutil.Process(process.pid)
        deadline = time.monotonic() + 30
        while zombie.status() != psutil.STATUS_ZOMBIE:
            assert time.monotonic() < deadline, "the probe did not end after its input closed"
            time.sleep(0.01)
        usage.read()
    kind = kind_of(command)
    assert usage.processes[kind] == 1, usage.report()
    assert 0.5 <= usage.seconds[kind] <= 0.8, usage.report()  # with the interpreter's start
    assert usage.report()[-1].endswith("CPU-s in all")
    cpu, kinds = usage.seconds_by_module["tests/test_probe.py"]  # from the environment it was started with
    assert kinds[kind] == 1 and cpu >= 0.5, usage.module_report()
    cpu, kinds = usage.seconds_by_test["tests/test_probe.py::test_spends[a::b]"]
    assert kinds[kind] == 1 and cpu >= 0.5, usage.test_report(5)


def test_a_process_is_put_under_the_module_whose_test_was_running_when_it_started() -> None:
    assert module_of({"PYTEST_CURRENT_TEST": "tests/test_x.py::test_y[p::q] (setup)"}) == "tests/test_x.py"
    assert module_of({"HOME": "/root"}) == ""
    assert (
        started_for({"PYTEST_CURRENT_TEST": "tests/test_x.py::test_y[p (q)] (teardown)"})
        == "tests/test_x.py::test_y[p (q)]"
    )
    assert started_for({"HOME": "/root"}) == ""
