"""The worker's record of the project's class outputs (worker/classes/class_updates.py), without a JVM: changes are found by
content, and the copies of new classes left by workers that ended are removed by the next worker."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from gradle_repl.worker.classes import class_updates
from gradle_repl.worker.classes.class_updates import ClassOutputs


def _write(path: Path, data: bytes, *, later: int = 0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if later:
        stamp = path.stat().st_mtime + later
        os.utime(path, (stamp, stamp))


def test_classes_are_named_by_path_and_compared_by_bytes(tmp_path: Path) -> None:
    """A class file rewritten with the same bytes (a build recompiling everything) is the same class; one with new
    bytes differs; resources and META-INF are no classes; a jar is noted by size and time."""
    out, jar = tmp_path / "classes", tmp_path / "lib.jar"
    _write(out / "sample/A.class", b"one")
    _write(out / "sample/B$Inner.class", b"two")
    _write(out / "META-INF/versions/9/module-info.class", b"x")
    _write(out / "sample/data.json", b"{}")
    jar.write_bytes(b"PK")
    before = ClassOutputs.read([str(out), str(jar)])
    assert sorted(before.classes) == ["sample.A", "sample.B$Inner"] and list(before.jars) == [str(jar)]
    _write(out / "sample/A.class", b"one", later=5)
    _write(out / "sample/B$Inner.class", b"TWO", later=5)
    after = ClassOutputs.read([str(out), str(jar)], before)
    assert after.bytes_of("sample.A") == before.bytes_of("sample.A")
    assert after.bytes_of("sample.B$Inner") == b"TWO" != before.bytes_of("sample.B$Inner")


def test_a_class_file_not_touched_is_not_read_again(tmp_path: Path) -> None:
    """Unchanged size and time: the earlier record is kept as it is (one stat per file, not a read)."""
    out = tmp_path / "classes"
    _write(out / "A.class", b"one")
    before = ClassOutputs.read([str(out)])
    assert ClassOutputs.read([str(out)], before).classes["A"] is before.classes["A"]


def test_copies_left_by_ended_workers_are_removed_and_live_ones_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker ends with os._exit, so its copies of new classes stay behind: the next worker removes the copies of
    every pid that no longer runs, never a running worker's."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = tmp_path / f"{class_updates._ADDED_PREFIX}999999999-abc"
    live = tmp_path / f"{class_updates._ADDED_PREFIX}{os.getpid()}-def"
    other = tmp_path / "unrelated-999999999-x"
    for directory in (dead, live, other):
        directory.mkdir()
    class_updates._remove_dead_workers_copies()
    assert not dead.exists() and live.exists() and other.exists()
