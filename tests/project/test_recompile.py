"""After an edit to sources alone, only the compile runs again and the cached environment is kept
(project/recompile.py), compiled in a warm Kotlin daemon (maven_speed.py); any change to the build, a missing
artifact or a failed compile resolves as before."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gradle_repl.environment import BuildToolName, ReplEnvironment, ReplJarsReady
from gradle_repl.errors import BuildFailed
from gradle_repl.project.buildtools.maven import MAVEN, is_compile_failure, maven_command, recompile_command
from gradle_repl.project.buildtools.maven_speed import (
    KOTLIN_DAEMON_HEAP,
    KOTLIN_DAEMON_IDLE_SECONDS,
    MAVEN_JVM_OPTIONS,
    maven_environment,
)
from gradle_repl.project.cache import EnvironmentCache
from gradle_repl.project.process import ProgressCallback
from gradle_repl.project.resolve import _resolve_locked, resolve_environment
from kotlindaemons import daemons_apart, daemons_in, stop_daemons
from support.fakebuildtool import ScriptedTool
from support.paths import SAMPLE_PROJECT, copy_project


class _CountingTool(ScriptedTool):
    """A build tool that records which of its builds ran: the full resolve or the compile alone."""

    name: BuildToolName = "maven"

    def __init__(self, *, compiles: bool = True) -> None:
        self.calls: list[str] = []
        self.compiles = compiles

    def recompile(
        self, root: Path, *, project_path: str, source_set: str, on_progress: ProgressCallback | None = None
    ) -> bool:
        self.calls.append("compile")
        return self.compiles

    def resolve(
        self,
        root: Path,
        *,
        project_path: str,
        source_set: str,
        on_progress: ProgressCallback | None = None,
        on_repl_jars: ReplJarsReady | None = None,
    ) -> ReplEnvironment:
        self.calls.append("resolve")
        java = Path(sys.executable)
        return ReplEnvironment(
            build_tool="maven",
            project_root=str(root),
            java_executable=str(java),
            java_home=str(java.parent),
            kotlin_version="2.3.21",
        )


def _touch(path: Path, text: str) -> None:
    path.write_text(text)
    later = time.time() + 5
    os.utime(path, (later, later))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    (root / "build.txt").write_text("build")
    (root / "Source.kt").write_text("fun f() = 1")
    return root


def _resolve(root: Path, tool: _CountingTool, cache: EnvironmentCache) -> ReplEnvironment:
    return _resolve_locked(root, tool, ":", "main", False, None, cache, 0.0).environment


def test_a_source_edit_compiles_only_and_keeps_the_environment_with_a_new_stamp(project: Path, tmp_path: Path) -> None:
    """The second resolve compiles without resolving; the environment is the first's but for the sources stamp, and
    the next question, with nothing changed, is a cache hit."""
    tool, cache = _CountingTool(), EnvironmentCache(tmp_path / "cache")
    first = _resolve(project, tool, cache)
    _touch(project / "Source.kt", "fun f() = 2")
    second = _resolve(project, tool, cache)
    assert tool.calls == ["resolve", "compile"]
    assert second.sources_stamp > first.sources_stamp
    assert second.model_copy(update={"sources_stamp": 0.0}) == first.model_copy(update={"sources_stamp": 0.0})
    assert _resolve(project, tool, cache) == second and tool.calls == ["resolve", "compile"]


@pytest.mark.parametrize("change", ["edited", "added", "removed"])
def test_a_change_to_the_build_resolves_in_full(project: Path, tmp_path: Path, change: str) -> None:
    """A build file edited (content, not time), another one added, or one removed: the environment may differ."""
    tool, cache = _CountingTool(), EnvironmentCache(tmp_path / "cache")
    _resolve(project, tool, cache)
    if change == "edited":
        _touch(project / "build.txt", "another build")
    elif change == "added":
        (project / "sub").mkdir()
        _touch(project / "sub" / "build.txt", "a module")
    else:
        (project / "build.txt").unlink()
        _touch(project / "Source.kt", "fun f() = 3")
    _resolve(project, tool, cache)
    assert tool.calls == ["resolve", "resolve"]


def test_a_build_file_touched_without_a_change_still_compiles_only(project: Path, tmp_path: Path) -> None:
    """Build files count by content: saved again unchanged, with a source edited, only the compile runs."""
    tool, cache = _CountingTool(), EnvironmentCache(tmp_path / "cache")
    _resolve(project, tool, cache)
    _touch(project / "build.txt", "build")
    _touch(project / "Source.kt", "fun f() = 4")
    _resolve(project, tool, cache)
    assert tool.calls == ["resolve", "compile"]


def test_a_compile_that_fails_for_another_reason_resolves_in_full(project: Path, tmp_path: Path) -> None:
    """A compile that fails other than on the sources (offline Maven missing an artifact) is not trusted: the full
    resolve runs and reports what it finds the usual way."""
    tool, cache = _CountingTool(compiles=False), EnvironmentCache(tmp_path / "cache")
    _resolve(project, tool, cache)
    _touch(project / "Source.kt", "fun f() = ")
    _resolve(project, tool, cache)
    assert tool.calls == ["resolve", "compile", "resolve"]


def test_maven_compiles_offline_through_a_kotlin_daemon_that_shuts_down_when_idle(tmp_path: Path) -> None:
    """The compile alone is the resolve's compile (same module selection, whole-module compile), offline, without the
    classpath and effective-POM goals, and in a Kotlin daemon with an idle shutdown and a heap cap; the resolve's own
    compile stays in process."""
    command = recompile_command(["mvn"], tmp_path, tmp_path / "app", test=False)
    assert command[:2] == ["mvn", "-B"] and "-o" in command and "compile" in command
    assert command[command.index("-pl") : command.index("-pl") + 3] == ["-pl", "app", "-am"]
    assert "-Dkotlin.compiler.daemon=true" in command and "-Dkotlin.compiler.incremental=false" in command
    assert f"-Dkotlin.compiler.daemon.shutdownDelayMs={KOTLIN_DAEMON_IDLE_SECONDS * 1000}" in command
    assert f"-Dkotlin.compiler.daemon.jvmArgs={KOTLIN_DAEMON_HEAP}" in command
    assert not any(goal in command for goal in ("dependency:build-classpath", "help:effective-pom"))
    resolve = maven_command(["mvn"], tmp_path, tmp_path / "app", test=False)
    assert "-Dkotlin.compiler.daemon=false" in resolve and not any("daemon.shutdownDelayMs" in a for a in resolve)


def test_mavens_jvm_gets_c1_only_before_the_users_own_options(tmp_path: Path) -> None:
    """MAVEN_OPTS starts with gradle-repl's options and keeps the user's after them (later wins in the JVM)."""
    assert maven_environment({"PATH": "/bin"}, tmp_path) == {"PATH": "/bin", "MAVEN_OPTS": " ".join(MAVEN_JVM_OPTIONS)}
    theirs = maven_environment({"MAVEN_OPTS": "-Xmx2g -XX:TieredStopAtLevel=4"}, tmp_path)["MAVEN_OPTS"]
    assert theirs == " ".join([*MAVEN_JVM_OPTIONS, "-Xmx2g -XX:TieredStopAtLevel=4"])


def test_the_resolve_and_the_compile_alone_both_run_maven_with_those_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both builds reach Maven with the options: a project's own mvnw (which gradle-repl runs in place of mvn) that
    records its MAVEN_OPTS and fails sees gradle-repl's first and the user's after them, in each build."""
    (tmp_path / "pom.xml").write_text("<project/>")
    seen = tmp_path / "maven-opts.txt"
    wrapper = tmp_path / "mvnw"
    wrapper.write_text(f'#!/bin/sh\necho "$MAVEN_OPTS" >> {seen}\nexit 1\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("MAVEN_OPTS", "-Xmx2g")
    with pytest.raises(BuildFailed):
        MAVEN.resolve(tmp_path, project_path=":", source_set="main")
    assert MAVEN.recompile(tmp_path, project_path=":", source_set="main") is False
    assert seen.read_text().splitlines() == [" ".join([*MAVEN_JVM_OPTIONS, "-Xmx2g"])] * 2


def test_an_option_the_projects_jvm_config_sets_is_left_to_it(tmp_path: Path) -> None:
    """mvn puts .mvn/jvm.config before MAVEN_OPTS, so ours would override it: an option it sets is not added."""
    (tmp_path / ".mvn").mkdir()
    (tmp_path / ".mvn" / "jvm.config").write_text("-Xmx3g\n-XX:TieredStopAtLevel=4\n")
    assert "TieredStopAtLevel" not in maven_environment({}, tmp_path)["MAVEN_OPTS"]


# What kotlin-maven-plugin 2.3.21 printed for a source that doesn't compile (mvn -B compile -o), and what offline
# Maven prints when an artifact is missing.
_COMPILE_ERROR = [
    "[ERROR] file:///p/src/main/kotlin/sample/Broken.kt:2:21 Return type mismatch: expected 'Int', actual 'String'.",
    (
        "[ERROR] Failed to execute goal org.jetbrains.kotlin:kotlin-maven-plugin:2.3.21:compile (compile) on project "
        "sample-project: Compilation failure"
    ),
    "[ERROR] -> [Help 1]",
]
_OFFLINE = [
    (
        "[ERROR] Failed to execute goal on project sample-project: Could not resolve dependencies for project "
        "org.example:sample-project:jar:1.0: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode"
    ),
]


# What kotlin-maven-plugin 2.3.21 printed when the Kotlin daemon it started could not run (a JVM option it refused).
_NO_DAEMON = [
    "[ERROR] The daemon has terminated unexpectedly on startup attempt #1 with exit code: 1. The daemon process output:",
    "[ERROR]     1. Unrecognized option: --Xmx700m",
    "[ERROR] Failed connecting to the daemon in 4 retries",
    (
        "[ERROR] Failed to execute goal org.jetbrains.kotlin:kotlin-maven-plugin:2.3.21:compile (compile) on project "
        "sample-project: Compilation failure: Compilation failure: "
    ),
]


def test_a_compile_error_is_told_from_an_artifact_missing_offline_or_a_daemon_that_would_not_start() -> None:
    """Sources that don't compile fail the full build the same way (reported at once); an artifact offline Maven
    lacks, or a Kotlin daemon that could not start, is not a compile failure (the full resolve runs, in process)."""
    assert (
        is_compile_failure(_COMPILE_ERROR) and not is_compile_failure(_OFFLINE) and not is_compile_failure(_NO_DAEMON)
    )


class _FailingCompile(_CountingTool):
    def recompile(
        self, root: Path, *, project_path: str, source_set: str, on_progress: ProgressCallback | None = None
    ) -> bool:
        self.calls.append("compile")
        raise BuildFailed("Maven build failed:\nReturn type mismatch", started=True)


def test_sources_that_dont_compile_are_reported_after_one_build(project: Path, tmp_path: Path) -> None:
    """An edit with a compile error costs one build, not the compile and then a full resolve failing the same way."""
    tool, cache = _FailingCompile(), EnvironmentCache(tmp_path / "cache")
    _resolve(project, tool, cache)
    _touch(project / "Source.kt", 'fun f(): Int = "x"')
    with pytest.raises(BuildFailed, match="Return type mismatch"):
        _resolve(project, tool, cache)
    assert tool.calls == ["resolve", "compile"]


_EDITED = "src/main/kotlin/sample/Edited.kt"


def _main_printing(text: str) -> str:
    return f'package sample\n\nfun main() {{\n    println("{text}")\n}}\n'


@pytest.mark.jvm
def test_an_edits_compile_runs_in_an_idle_bounded_kotlin_daemon_and_writes_the_new_classes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real edit of sample-project: the compile alone runs in a Kotlin daemon whose command line carries the idle
    shutdown and the heap cap, and a JVM on the classes it wrote runs the edited code, not the class from before."""
    root = copy_project(SAMPLE_PROJECT, tmp_path / "p")
    (root / _EDITED).write_text(_main_printing("before the edit"))
    run_files = tmp_path / "kotlin-daemons"  # this test's own, so the daemon found there is the one its compile used
    daemons_apart(monkeypatch, run_files)
    try:
        first = resolve_environment(root, build_tool="maven").environment
        assert daemons_in(run_files) == []  # the full resolve compiles in process
        _touch(root / _EDITED, _main_printing("after the edit"))
        second = resolve_environment(root, build_tool="maven").environment
        assert second.sources_stamp > first.sources_stamp
        (daemon,) = daemons_in(run_files)
        command_line = daemon.cmdline()
        assert f"--daemon-shutdownDelayMilliseconds={KOTLIN_DAEMON_IDLE_SECONDS * 1000}" in command_line
        assert f"-{KOTLIN_DAEMON_HEAP}" in command_line
        ran = subprocess.run(
            [second.java_executable, "-cp", os.pathsep.join(second.classpath), "sample.EditedKt"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert ran.stdout.strip() == "after the edit", ran.stderr
    finally:
        assert stop_daemons(run_files) == []
