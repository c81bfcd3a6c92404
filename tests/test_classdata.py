"""Class-data sharing: which JDKs get an archive, what keys it, who may write it, and — on real JVMs —
that a background worker writes it once, later workers map it, and a damaged one only costs speed."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from conftest import SAMPLE_PROJECT
from gradle_repl.worker import classdata
from gradle_repl.host.manager import SessionLimits, SessionManager
from gradle_repl.paths import cache_dir
from gradle_repl.project.resolve import resolve_environment


def _jdk(tmp_path: Path, version: str) -> str:
    home = tmp_path / f"jdk-{version}"
    home.mkdir()
    (home / "release").write_text(f'IMPLEMENTOR="Test"\nJAVA_VERSION="{version}"\n')
    return str(home)


def test_the_feature_release_is_read_from_the_jdks_release_file(tmp_path: Path):
    assert classdata.jdk_feature(_jdk(tmp_path, "17.0.15")) == 17
    assert classdata.jdk_feature(_jdk(tmp_path, "1.8.0_392")) == 8
    assert classdata.jdk_feature(str(tmp_path / "nowhere")) is None


def test_jdks_without_dynamic_archives_get_none(tmp_path: Path):
    assert classdata.archive_path(_jdk(tmp_path, "11.0.2"), []) is None
    assert classdata.archive_path(_jdk(tmp_path, "21.0.1"), []) is not None


def test_a_changed_jar_gets_a_new_archive(tmp_path: Path):
    home = _jdk(tmp_path, "17.0.1")
    jar = tmp_path / "compiler.jar"
    jar.write_bytes(b"one")
    before = classdata.archive_path(home, [str(jar)])
    jar.write_bytes(b"three")
    assert classdata.archive_path(home, [str(jar)]) != before
    assert classdata.archive_path(_jdk(tmp_path, "17.0.2"), [str(jar)]) != classdata.archive_path(home, [str(jar)])


def test_one_trainer_at_a_time_across_processes_and_a_dead_ones_claim_expires(tmp_path: Path):
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
):
    async def scenario() -> None:
        manager = SessionManager(limits=SessionLimits(spare_worker=False, max_sessions=4), resolver=resolve_environment)
        try:
            async def run(session: str, code: str) -> str:
                reply = await manager.run_snippet(session_id=session, project_root=str(SAMPLE_PROJECT), code=code, build_tool="maven")
                assert reply.result.type == "success", reply.result.message
                return reply.result.value.data if reply.result.value else ""

            assert await run("first", "1 + 1") == "2"
            first = manager._sessions["first"].worker
            assert first is not None and first.ready.class_data_archive is None and first.ready.facade_compiled
            training = manager._training
            assert training is not None, "a missing archive starts a trainer"
            await asyncio.wait_for(asyncio.shield(training), 300)
            archives = list(first_use.glob("*.jsa"))
            assert len(archives) == 1 and archives[0].stat().st_size > 0, list(first_use.iterdir())
            assert not list(first_use.glob("*.training")) and not list(first_use.glob("*.tmp"))

            assert await run("second", 'data class P(val x: Int)\nP(3).copy(x = 4).x') == "4"
            second = manager._sessions["second"].worker
            assert second is not None and second.ready.class_data_archive == str(archives[0])
            assert not second.ready.facade_compiled, "the facade is compiled once per Kotlin version"
            assert manager._training is training, "an archive that exists is never trained again"

            # Damaged as a new file renamed over it, as gradle-repl writes archives: the second worker has
            # the old one mapped, and truncating a mapped file under a live JVM crashes it (SIGBUS).
            damaged = archives[0].with_suffix(".damaged")
            damaged.write_bytes(b"not an archive" * 1000)
            damaged.replace(archives[0])
            assert await run("third", '"still" + " runs"') == "still runs"
            third = manager._sessions["third"].worker
            assert third is not None and third.ready.class_data_archive == str(archives[0])
            pids = manager.worker_pids()
        finally:
            await manager.close_all()
        assert not any(_alive(pid) for pid in pids)

    asyncio.run(scenario())


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
