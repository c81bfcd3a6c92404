"""`gradle-repl doctor`: on this machine it finds the JDK 17 with javac, Maven and the JDKs an attach can target; what
is missing comes with its fix, and only what a default call needs makes it exit 1. Real commands, real JDK folders,
real processes; a missing tool is made missing by the PATH the command gets."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from gradle_repl.front.doctor import render
from gradle_repl.front.doctor_checks import Finding, check_agent_jar, check_build_tools, check_jdk, check_token
from gradle_repl.project.buildtools.kotlin_daemons import DAEMON_MAIN_CLASS, started_kotlin_daemons
from gradle_repl.project.buildtools.maven_speed import KOTLIN_DAEMON_HEAP, KOTLIN_DAEMON_IDLE_SECONDS
from gradle_repl.project.jdks import jdk_at
from gradle_repl.worker.artifacts.agent_jar import agent_jar_path

# The second JDK these machines carry (tests/worker/attach/test_attach_jdk25.py needs it too).
JDK25 = Path("/usr/lib/jvm/temurin-25-jdk-amd64")


def doctor(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gradle_repl", "doctor", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=cwd,
    )


def maven_project(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "pom.xml").write_text("<project/>\n")
    return directory


def fake_jdk(home: Path, version: str, *, tools: tuple[str, ...] = ("java", "javac", "jcmd")) -> Path:
    """A JDK's directory as doctor reads it: its bin/ tools and its release file."""
    (home / "bin").mkdir(parents=True)
    for tool in tools:
        (home / "bin" / tool).write_text("#!/bin/sh\n")
        (home / "bin" / tool).chmod(0o755)
    (home / "release").write_text(f'IMPLEMENTOR="test"\nJAVA_VERSION="{version}"\n')
    return home


def line_starting(output: str, start: str) -> str:
    found = [line for line in output.splitlines() if line.startswith(start)]
    assert found, f"no line starting {start!r} in:\n{output}"
    return found[0]


def test_doctor_on_this_machine_finds_the_jdk_maven_and_the_attach_targets(tmp_path: Path) -> None:
    """This machine's OpenJDK 17 (java and javac), Maven 3.x and the Temurin 25 an app may run on are found; a Maven
    project has what a default call needs: exit 0."""
    done = doctor(str(maven_project(tmp_path / "p")))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    jdk = line_starting(out, "ok       JDK: 17.")
    assert jdk.endswith(": java and javac")
    assert line_starting(out, "ok       Maven: 3.").endswith(f" at {shutil.which('mvn')}")
    assert line_starting(out, "info     project: ").endswith(": a Maven build")
    assert "ok       attach: apps on JDK 25.0" in out and f"at {JDK25} can be attached to" in out
    assert f"attach agent: {agent_jar_path()}" in out and "`gradle-repl agent-path --listen PORT`" in out
    assert line_starting(out, "info     cache: ").endswith(
        "(`gradle-repl cache` shows it by kind, `cache clean` empties it)"
    )
    assert line_starting(out, "info     Kotlin daemons: ")
    assert out.rstrip().endswith("ready: a default call has what it needs")


def test_doctor_without_mvn_on_path_exits_1_naming_maven_and_its_fix(tmp_path: Path) -> None:
    """A PATH with the JDK but no mvn (and no Gradle): a Maven project can't build, so Maven is MISSING with the line
    that fixes it, and the exit status is 1."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("java", "javac"):
        (bin_dir / tool).symlink_to(Path(shutil.which(tool) or "").resolve())
    env = {key: value for key, value in os.environ.items() if key != "JAVA_HOME"} | {"PATH": str(bin_dir)}
    done = doctor(str(maven_project(tmp_path / "p")), env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    maven = line_starting(done.stdout, "MISSING  Maven: ")
    assert "Maven (mvn) is not on PATH" in maven
    assert lines[lines.index(maven) + 1].startswith(
        "         fix: install Maven 3.6+ (Debian/Ubuntu: sudo apt-get install -y maven"
    )
    assert line_starting(done.stdout, "ok       JDK: 17.")
    assert line_starting(done.stdout, "warn     Gradle: ")  # a Maven project doesn't need it
    assert done.stdout.rstrip().endswith("not ready: a default call needs Maven (MISSING above, each with its fix)")


def test_a_jre_or_an_old_java_is_missing_a_jdk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """JAVA_HOME at a JRE (java, no javac) or at Java 11 is not the JDK gradle-repl needs, and says how to get one."""
    monkeypatch.setenv("JAVA_HOME", str(fake_jdk(tmp_path / "jre", "17.0.2", tools=("java",))))
    (jre,) = check_jdk()
    assert (jre.status, jre.topic) == ("missing", "JDK") and "no javac: a JRE" in jre.text and "JAVA_HOME" in jre.text
    assert jre.fix and "openjdk-17-jdk-headless" in jre.fix
    monkeypatch.setenv("JAVA_HOME", str(fake_jdk(tmp_path / "jdk11", "11.0.20")))
    (old,) = check_jdk()
    assert old.status == "missing" and "Java 11.0.20" in old.text and "needs 17+" in old.text
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nothing"))
    (none,) = check_jdk()
    assert none.status == "missing" and "has no bin/java" in none.text


def test_an_attach_target_needs_java_17_with_javac_and_jcmd(tmp_path: Path) -> None:
    """An app on Java 11, or on a JRE, can't be attached to, and the reason says which; a full JDK 17+ can."""
    assert jdk_at(fake_jdk(tmp_path / "17", "17.0.9")).why_not_attach_target() is None  # type: ignore[union-attr]
    assert "needs Java 17+" in (jdk_at(fake_jdk(tmp_path / "11", "11.0.2")).why_not_attach_target() or "")  # type: ignore[union-attr]
    jre = jdk_at(fake_jdk(tmp_path / "jre", "21.0.1", tools=("java",)))
    assert (
        jre is not None
        and jre.why_not_attach_target() == "no javac or jcmd (a JRE?): attaching needs the app to run on a full JDK"
    )
    assert jdk_at(tmp_path / "not-a-jdk") is None


def test_a_gradle_project_needs_its_wrapper_or_gradle_and_reads_the_wrappers_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Gradle-only project without a wrapper and without gradle on PATH misses Gradle (exit 1's cause); with its
    wrapper, the version it downloads is read from the properties without running Gradle."""
    root = tmp_path / "g"
    root.mkdir()
    (root / "settings.gradle.kts").write_text('rootProject.name = "g"\n')
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    by_topic = {finding.topic: finding for finding in check_build_tools(root)}
    assert (
        by_topic["Gradle"].status == "missing" and by_topic["Gradle"].fix and "gradle wrapper" in by_topic["Gradle"].fix
    )
    assert by_topic["Maven"].status == "warn"  # only some calls of a Gradle project need Maven
    (root / "gradlew").write_text("#!/bin/sh\n")
    (root / "gradlew").chmod(0o755)
    (root / "gradle" / "wrapper").mkdir(parents=True)
    (root / "gradle" / "wrapper" / "gradle-wrapper.properties").write_text(
        "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.11.1-bin.zip\n"
    )
    by_topic = {finding.topic: finding for finding in check_build_tools(root)}
    assert (by_topic["Gradle"].status, by_topic["Gradle"].text) == (
        "ok",
        f"the project's wrapper {root / 'gradlew'} (Gradle 8.11.1)",
    )


def test_the_agent_jar_is_named_with_whether_it_is_built_and_how_an_app_elsewhere_starts_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attach agent's jar where this gradle-repl keeps it (what a container mounts): not built yet is said, and
    doctor doesn't build it; built, it is ok. Either way the line says how an app in a container or pod is started."""
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(tmp_path))
    jar = agent_jar_path()
    assert jar.is_relative_to(tmp_path)
    (absent,) = check_agent_jar()
    assert (absent.status, absent.topic, absent.fix) == ("info", "attach agent", None)
    assert absent.text.startswith(f"{jar} (not built yet: the first attach or `gradle-repl agent-path` builds it); ")
    assert absent.text.endswith("in a pod: `gradle-repl agent-path --listen PORT`")
    assert not jar.parent.exists()
    jar.parent.mkdir(parents=True)
    jar.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip: built is a file there
    assert check_agent_jar() == [
        Finding(
            "ok",
            "attach agent",
            f"{jar}; for an app in a container, on another host or in a pod: `gradle-repl agent-path --listen PORT`",
        )
    ]


def test_a_token_file_others_can_read_is_a_warning_with_chmod(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The token file's mode: 0600 is ok, 0644 says who can read it and the chmod that fixes it; none yet is said."""
    monkeypatch.delenv("GRADLE_REPL_TOKEN", raising=False)
    monkeypatch.setenv("GRADLE_REPL_CONFIG_DIR", str(tmp_path))
    (absent,) = check_token()
    assert absent.status == "info" and "not made yet" in absent.text
    token = tmp_path / "token"
    token.write_text("x" * 40 + "\n")
    token.chmod(0o644)
    (open_file,) = check_token()
    assert (open_file.status, open_file.fix) == (
        "warn",
        f"chmod 600 {token} (the server also does when it next reads it)",
    )
    assert "mode 0644: other users can read it" in open_file.text
    token.chmod(0o600)
    assert check_token()[0] == Finding("ok", "HTTP token", f"{token}, mode 0600")
    monkeypatch.setenv("GRADLE_REPL_TOKEN", "short")
    assert check_token()[0].status == "warn"


def test_the_kotlin_daemons_listed_are_those_with_gradle_repls_flags(tmp_path: Path) -> None:
    """A daemon carrying gradle-repl's idle shutdown and heap cap (what a real one's command line holds:
    tests/project/test_recompile.py) is listed; one with other flags (the user's own builds) is not."""
    ours = [
        DAEMON_MAIN_CLASS,
        f"--daemon-shutdownDelayMilliseconds={KOTLIN_DAEMON_IDLE_SECONDS * 1000}",
        f"-{KOTLIN_DAEMON_HEAP}",
    ]
    theirs = [DAEMON_MAIN_CLASS, "--daemon-shutdownDelayMilliseconds=1800000", "-Xmx3g"]
    sleeping = [sys.executable, "-c", "import time; time.sleep(120)"]
    processes = [subprocess.Popen([*sleeping, *flags]) for flags in (ours, theirs)]
    try:
        deadline = time.monotonic() + 30
        # Until each child has exec'd: between fork and exec its command line is its parent's, or empty.
        while not all(
            psutil.Process(p.pid).cmdline()[-1:] == flags[-1:]
            for p, flags in zip(processes, (ours, theirs), strict=False)
        ):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        pids = {daemon.pid for daemon in started_kotlin_daemons()}
        assert processes[0].pid in pids and processes[1].pid not in pids
    finally:
        for process in processes:
            process.kill()
            process.wait()


def test_only_missing_findings_make_the_verdict_fail(capsys: pytest.CaptureFixture[str]) -> None:
    """warn and info findings print with their fixes but keep exit 0; one missing finding makes it 1."""
    calm = [
        Finding("ok", "JDK", "17"),
        Finding("warn", "Gradle", "absent", "install it"),
        Finding("info", "cache", "1 KB"),
    ]
    out = io.StringIO()
    assert render(calm, out) == 0
    assert "         fix: install it\n" in out.getvalue()
    assert render([*calm, Finding("missing", "Maven", "absent", "install Maven")], io.StringIO()) == 1
