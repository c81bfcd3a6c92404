"""Class-data sharing: which JDKs get an archive, what keys it, who may write it, and — on real JVMs —
that a background worker writes it once, later workers map it, and a damaged one only costs speed."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from gradle_repl.host.handle import WorkerHandle
from gradle_repl.host.manager import SessionLimits, SessionManager
from gradle_repl.paths import cache_dir
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.target import SessionTarget
from gradle_repl.worker.artifacts import classdata
from support.paths import SAMPLE_PROJECT


def _worker_of(manager: SessionManager, session: str) -> WorkerHandle | None:
    """The worker a session of the manager runs on (None if it has none)."""
    held = manager._sessions.get(session)
    assert held is not None, session
    return held.worker


def _jdk(tmp_path: Path, version: str) -> str:
    home = tmp_path / f"jdk-{version}"
    home.mkdir()
    (home / "release").write_text(f'IMPLEMENTOR="Test"\nJAVA_VERSION="{version}"\n')
    return str(home)


def test_the_feature_release_is_read_from_the_jdks_release_file(tmp_path: Path) -> None:
    assert classdata.jdk_feature(_jdk(tmp_path, "17.0.15")) == 17
    assert classdata.jdk_feature(_jdk(tmp_path, "1.8.0_392")) == 8
    assert classdata.jdk_feature(str(tmp_path / "nowhere")) is None


def test_jdks_without_dynamic_archives_get_none(tmp_path: Path) -> None:
    assert classdata.archive_path(_jdk(tmp_path, "11.0.2"), []) is None
    assert classdata.archive_path(_jdk(tmp_path, "21.0.1"), []) is not None


def test_a_changed_jar_gets_a_new_archive(tmp_path: Path) -> None:
    home = _jdk(tmp_path, "17.0.1")
    jar = tmp_path / "compiler.jar"
    jar.write_bytes(b"one")
    before = classdata.archive_path(home, [str(jar)])
    jar.write_bytes(b"three")
    assert classdata.archive_path(home, [str(jar)]) != before
    assert classdata.archive_path(_jdk(tmp_path, "17.0.2"), [str(jar)]) != classdata.archive_path(home, [str(jar)])


def test_one_trainer_at_a_time_across_processes_and_a_dead_ones_claim_expires(tmp_path: Path) -> None:
    archive = tmp_path / "x.jsa"
    assert classdata.claim_training(archive)
    assert not classdata.claim_training(archive)
    old = time.time() - classdata.STALE_CLAIM_SECONDS - 1
    os.utime(archive.with_suffix(".training"), (old, old))
    assert classdata.claim_training(archive)
    classdata.release_training(archive)
    assert classdata.needs_training(archive)
    classdata.mark_training_failed(archive, "no base archive")
    assert not classdata.needs_training(archive)


def test_a_new_training_removes_archives_no_worker_mapped_for_a_month(tmp_path: Path) -> None:
    """Each JDK update or compiler version leaves its ~94 MB archive behind; the next training clears those."""
    month_ago = time.time() - classdata.UNUSED_ARCHIVE_SECONDS - 60
    unused, in_use, failed = tmp_path / "jdk17-old.jsa", tmp_path / "jdk17-used.jsa", tmp_path / "jdk21-old.failed"
    for path in (unused, in_use, failed):
        path.write_bytes(b"archive")
        os.utime(path, (month_ago, month_ago))
    classdata.mark_mapped(in_use)  # a worker started from it today
    new = tmp_path / "jdk17-new.jsa"
    assert classdata.claim_training(new)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jdk17-new.training", "jdk17-used.jsa"]
    classdata.release_training(new)


@pytest.fixture
def first_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache as on a new machine: no compiled facade, no class-data archive (environments and fetched
    jars stay shared: they are not what is tested here). Returns the class-data directory."""
    shared = cache_dir()
    mine = tmp_path / "cache"
    mine.mkdir()
    for name in ("environments", "toolchain"):
        (shared / name).mkdir(parents=True, exist_ok=True)
        (mine / name).symlink_to(shared / name)
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(mine))
    return mine / "class-data"


@pytest.mark.jvm
def test_on_a_new_machine_the_facade_compiles_a_trainer_writes_the_archive_later_workers_map_it_and_a_damaged_one_only_costs_speed(
    first_use: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The JVMs themselves say where each class came from: every JVM reads JAVA_TOOL_OPTIONS, JPype's too.
    class_loads = tmp_path / "class-load"
    class_loads.mkdir()
    monkeypatch.setenv("JAVA_TOOL_OPTIONS", f"-Xlog:class+load=info:file={class_loads}/%p.log")

    async def scenario() -> None:
        manager = SessionManager(limits=SessionLimits(spare_worker=False, max_sessions=4), resolver=resolve_environment)
        try:

            async def run(session: str, code: str) -> str:
                reply = await manager.run_snippet(
                    SessionTarget(str(SAMPLE_PROJECT), build_tool="maven", session_id=session), code=code
                )
                assert reply.result.type == "success", reply.result.message
                return reply.result.value.data if reply.result.value else ""

            assert await run("first", "1 + 1") == "2"
            first = _worker_of(manager, "first")
            assert first is not None and first.ready.class_data_archive is None and first.ready.facade_compiled
            assert _compiler_classes_from_the_archive(class_loads, first.ready.pid) == 0
            training = manager._training.task
            assert training is not None, "a missing archive starts a trainer"
            await asyncio.wait_for(asyncio.shield(training), 300)
            archives = list(first_use.glob("*.jsa"))
            assert len(archives) == 1 and archives[0].stat().st_size > 0, list(first_use.iterdir())
            assert not list(first_use.glob("*.training")) and not list(first_use.glob("*.tmp"))

            # Mapping it marks it used, so a later training's clean-up keeps it.
            month_ago = time.time() - classdata.UNUSED_ARCHIVE_SECONDS - 60
            os.utime(archives[0], (month_ago, month_ago))
            assert await run("second", "data class P(val x: Int)\nP(3).copy(x = 4).x") == "4"
            assert archives[0].stat().st_mtime > month_ago + 60
            second = _worker_of(manager, "second")
            assert second is not None and second.ready.class_data_archive == str(archives[0])
            assert not second.ready.facade_compiled, "the facade is compiled once per Kotlin version"
            assert _compiler_classes_from_the_archive(class_loads, second.ready.pid) > 1000, (
                "the JVM mapped the archive"
            )
            assert manager._training.task is training, "an archive that exists is never trained again"

            # JPype installed elsewhere (a reinstall, another checkout's virtualenv) maps the same archive: the JVM's
            # class path starts with the content-named copy of JPype's jar, and the installation's own comes last.
            _install_jpype_copy(elsewhere := tmp_path / "another-install")
            monkeypatch.setenv("PYTHONPATH", str(elsewhere))
            class_path = await run("relocated", 'System.getProperty("java.class.path")')
            monkeypatch.delenv("PYTHONPATH")
            assert class_path.endswith(str(elsewhere / "org.jpype.jar")), class_path
            relocated = _worker_of(manager, "relocated")
            assert relocated is not None and relocated.ready.class_data_archive == str(archives[0])
            assert _compiler_classes_from_the_archive(class_loads, relocated.ready.pid) > 1000, (
                "mapped from another JPype"
            )
            assert list(first_use.glob("*.jsa")) == archives

            # Damaged as a new file renamed over it, as gradle-repl writes archives: the second worker has
            # the old one mapped, and truncating a mapped file under a live JVM crashes it (SIGBUS).
            damaged = archives[0].with_suffix(".damaged")
            damaged.write_bytes(b"not an archive" * 1000)
            damaged.replace(archives[0])
            assert await run("third", '"still" + " runs"') == "still runs"
            third = _worker_of(manager, "third")
            assert third is not None and third.ready.class_data_archive == str(archives[0])
            assert _compiler_classes_from_the_archive(class_loads, third.ready.pid) == 0, (
                "the JVM refused the damaged one"
            )
            pids = manager.worker_pids()
        finally:
            await manager.close_all()
        assert not any(_alive(pid) for pid in pids)

    asyncio.run(scenario())


def _install_jpype_copy(target: Path) -> None:
    """JPype (its package, native module and support jar) copied as an installation of its own."""
    import importlib.util
    import shutil

    spec = importlib.util.find_spec("jpype")
    assert spec is not None and spec.origin is not None
    site = Path(spec.origin).resolve().parents[1]
    target.mkdir()
    shutil.copytree(site / "jpype", target / "jpype")
    for native in site.glob("_jpype*"):
        shutil.copy2(native, target / native.name)
    shutil.copy2(site / "org.jpype.jar", target / "org.jpype.jar")


def _compiler_classes_from_the_archive(logs: Path, pid: int) -> int:
    """How many of the Kotlin compiler's classes the JVM with pid loaded from the dynamic archive ("top" layer)."""
    lines = (logs / f"{pid}.log").read_text(errors="replace").splitlines()
    assert any("org.jetbrains.kotlin." in line for line in lines), "the JVM logged its class loading"
    return sum("org.jetbrains.kotlin." in line and "source: shared objects file (top)" in line for line in lines)


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
