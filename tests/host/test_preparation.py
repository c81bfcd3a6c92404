"""The facade compiled beside a machine's first build (host/preparation.py, worker/prepare.py), by a real worker, in a
cache of the test's own: the jars the first build hands over, compiled before any session starts; a session's worker
started after compiles nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gradle_repl.environment import ReplEnvironment, SessionSpec
from gradle_repl.frames import WorkerOptions
from gradle_repl.host.launcher import SubprocessLauncher, SubprocessTransport, WorkerRole
from gradle_repl.host.preparation import WorkerPreparation
from gradle_repl.host.spawned import SpawnedWorkers
from gradle_repl.worker.artifacts.facade_jars import facade_jar_path, jars_to_compile
from support.workers import running_worker

jvm = pytest.mark.jvm


def handed_over(environment: ReplEnvironment) -> ReplEnvironment:
    """What a first Maven resolve hands over beside its build (buildtools/maven.py's _handed_over): the JDK, the REPL's
    Kotlin and its jars, nothing of the project's own."""
    return ReplEnvironment(
        build_tool=environment.build_tool,
        project_root=environment.project_root,
        java_home=environment.java_home,
        java_executable=environment.java_executable,
        kotlin_version=environment.kotlin_version,
        repl_host_classpath=environment.repl_host_classpath,
        compiler_plugin_classpath=environment.compiler_plugin_classpath,
        dependency_resolver_classpath=environment.dependency_resolver_classpath,
    )


class RecordingLauncher(SubprocessLauncher):
    """Real worker processes, each remembered with its role, so a test can read how each one ended."""

    def __init__(self) -> None:
        self.spawned: list[tuple[str, SubprocessTransport]] = []

    async def spawn(
        self, spec: SessionSpec, *, label: str, keep_logs: set[Path], role: WorkerRole = "session"
    ) -> SubprocessTransport:
        transport = await super().spawn(spec, label=label, keep_logs=keep_logs, role=role)
        self.spawned.append((role, transport))
        return transport


def prepare_beside(environment: ReplEnvironment) -> tuple[list[str], list[tuple[str, int | None]]]:
    """Hands the environment over from another thread, as the fetch beside a build does, and waits until the
    preparation has ended: the progress it reported, and each worker it started with its exit code and its log."""
    progress: list[str] = []
    launcher = RecordingLauncher()

    async def scenario() -> None:
        preparation = WorkerPreparation(SpawnedWorkers(launcher, WorkerOptions(heap_mb=512)))
        ready = preparation.beside_build(progress.append)
        # The preparation is scheduled on the loop before this await returns.
        await asyncio.to_thread(ready, environment)
        await preparation.wait(environment.kotlin_version)

    asyncio.run(scenario())
    return progress, [(role, t.returncode) for role, t in launcher.spawned]


@jvm
def test_a_project_without_compiler_plugins_still_wants_the_class_phases_add_on(
    sample_env: ReplEnvironment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every session registers the class-phases add-on (a sealed type's inheritors need no plugin), so a first build
    without compiler plugins or a resolver has it compiled beside the facade too."""
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(tmp_path / "cache"))
    plain = sample_env.model_copy(update={"compiler_plugin_classpath": [], "dependency_resolver_classpath": []})
    assert [p.name.split("-")[2] for p in jars_to_compile(plain)] == [sample_env.kotlin_version, "classphases"]


def test_the_facade_and_add_ons_a_first_build_hands_over_are_compiled_before_a_session_starts(
    sample_env: ReplEnvironment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(tmp_path / "cache"))
    handed = handed_over(sample_env)
    # sample-project has the resolver: the facade, the @file:DependsOn add-on and the class phases (every session's).
    assert [p.name.split("-")[2] for p in jars_to_compile(handed)] == [
        sample_env.kotlin_version,
        "dependencies",
        "classphases",
    ]
    progress, workers = prepare_beside(handed)
    told = (
        f"compiling the jvm-worker facade for Kotlin {sample_env.kotlin_version} beside the build, in a JVM of its "
        "own (first run; cached from now on)"
    )
    assert progress == [told]
    assert workers == [("prepare", 0)], "one preparing worker, which exits once done"
    assert jars_to_compile(handed) == [], "a jar a session's worker would compile at its start is still missing"
    assert facade_jar_path(sample_env.kotlin_version).stat().st_size > 0
    assert list((tmp_path / "cache" / "facade").glob("class-updates-agent-*.jar")), "the class-update agent too"
    with running_worker(sample_env) as worker:
        assert not worker.process.ready.facade_compiled
        # The class-phases add-on the preparation compiled is the session's: a generated companion is its class's.
        declared = "@kotlinx.serialization.Serializable data class P(val x: Int)"
        assert worker.value(f"{declared}\nP.serializer().descriptor.getElementName(0)") == "x"
    # Handed over again (a second project's first build on the same Kotlin): nothing to compile, no worker, no word.
    assert prepare_beside(handed) == ([], [])
