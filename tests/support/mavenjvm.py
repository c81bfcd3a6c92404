"""MAVEN_OPTS for the suite's Maven builds: about 25 short compiles of small projects, each of which loads
the Kotlin compiler into a fresh Maven JVM. Measured on sample-project (2 cores, 3 alternating runs):
C1 only 10.7–12.1 s; plus serial GC and one JIT thread 9.9–11.3 s; plus a class-data archive of Maven's
and the compiler's classes 7.2–9.4 s (CPU 14.8 → 11 s). What Maven does is unchanged — only how fast
its JVM starts.

The archive (JEP 350, the same mechanism `classdata.py` gives workers) is written once per JDK and
Maven, by one throwaway build under a file lock, then renamed into place: a JVM maps it, so it is never
rewritten under one. Any failure just leaves the suite without it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from filelock import FileLock

from support.shortjvm import SHORT_LIVED_JVM_FLAGS as FLAGS

__all__ = ["maven_opts"]

# A cold build with downloads; past this the training build is stuck and the suite goes on without it.
TRAINING_TIMEOUT_SECONDS = 600


def _archive_key() -> str | None:
    mvn, java = shutil.which("mvn"), shutil.which("java")
    if mvn is None or java is None:
        return None
    home = os.environ.get("JAVA_HOME") or str(Path(java).resolve().parents[1])
    release = Path(home) / "release"
    digest = hashlib.sha256(f"{Path(mvn).resolve()}\0{home}\0{' '.join(FLAGS)}".encode())
    digest.update(release.read_bytes() if release.is_file() else b"")
    return digest.hexdigest()[:24]


def _train(archive: Path, project: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="maven-class-data-") as scratch:
        copy = Path(scratch) / "project"
        shutil.copytree(project, copy, ignore=shutil.ignore_patterns("target", "build", ".gradle"))
        partial = archive.with_suffix(".partial")
        env = {**os.environ, "MAVEN_OPTS": " ".join((*FLAGS, f"-XX:ArchiveClassesAtExit={partial}"))}
        done = subprocess.run(
            ["mvn", "-B", "-q", "compile", "-Dkotlin.compiler.daemon=false"],
            cwd=copy,
            env=env,
            capture_output=True,
            timeout=TRAINING_TIMEOUT_SECONDS,
        )
        if done.returncode == 0 and partial.is_file() and partial.stat().st_size > 0:
            partial.replace(archive)
        else:
            partial.unlink(missing_ok=True)


def maven_opts(cache: Path, training_project: Path) -> str:
    """The suite's MAVEN_OPTS: the flags above, and the archive when there is (or can be) one."""
    key = _archive_key()
    if key is None:
        return " ".join(FLAGS)
    cache.mkdir(parents=True, exist_ok=True)
    archive = cache / f"{key}.jsa"
    failed = archive.with_suffix(".failed")
    with FileLock(archive.with_suffix(".lock")):
        if not archive.is_file() and not failed.exists():
            try:
                _train(archive, training_project)
            except (OSError, subprocess.SubprocessError):
                pass
            if not archive.is_file():
                failed.touch()  # one attempt per machine: a build that can't train costs no time again
    return " ".join((*FLAGS, f"-XX:SharedArchiveFile={archive}")) if archive.is_file() else " ".join(FLAGS)
