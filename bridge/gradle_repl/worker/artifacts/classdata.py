"""Class-data sharing for worker JVMs: an archive of the classes the REPL compiler loads.

Starting a worker is mostly loading and verifying the Kotlin compiler's classes. A dynamic CDS
archive (JEP 350, JDK 13+) holds them pre-parsed; a JVM that maps it starts the REPL about twice as
fast (bench/README.md). One archive exists per JDK and REPL host classpath; a worker of its own
("training") writes it once in the background, and every later worker maps it. A missing, stale or
foreign archive only costs speed: the JVM checks it and falls back to loading classes normally.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import re
import time
from pathlib import Path

from gradle_repl.paths import cache_dir

__all__ = [
    "MIN_JDK_FEATURE",
    "archive_path",
    "jdk_feature",
    "needs_training",
    "claim_training",
    "release_training",
    "mark_training_failed",
    "jpype_support_jar",
    "mark_mapped",
]

# Dynamic archives (-XX:ArchiveClassesAtExit) exist from JDK 13 on.
MIN_JDK_FEATURE = 13
# A training claim older than this belongs to a process that died without releasing it.
STALE_CLAIM_SECONDS = 600.0
# An archive no worker has mapped for this long is for a JDK or compiler jars no longer in use (~94 MB each): the
# next training removes it. Every worker that maps one marks it (mark_mapped).
UNUSED_ARCHIVE_SECONDS = 30 * 24 * 3600.0
_VERSION = re.compile(r'^JAVA_VERSION="(?:1\.)?(\d+)', re.MULTILINE)


def jdk_feature(java_home: str) -> int | None:
    """The JDK's feature release (8, 11, 17, …) from its `release` file; None when unknown."""
    try:
        match = _VERSION.search((Path(java_home) / "release").read_text(errors="replace"))
    except OSError:
        return None
    return int(match.group(1)) if match else None


def archive_path(java_home: str, classpath: list[str]) -> Path | None:
    """Where this JDK's archive for this classpath lives; None when the JDK can't use one."""
    feature = jdk_feature(java_home)
    if feature is None or feature < MIN_JDK_FEATURE:
        return None
    digest = hashlib.sha256()
    # The JVM's class path starts with JPype's support jar (jpype_support_jar): another JPype, another archive.
    digest.update(str(_jpype_copy().resolve()).encode())
    home = Path(java_home).resolve()
    digest.update(str(home).encode())
    digest.update((home / "release").read_bytes())
    for entry in classpath:
        # The JVM rejects an archive whose jars changed; a new key avoids even trying one.
        try:
            stat = os.stat(entry)
            digest.update(f"\0{entry}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
        except OSError:
            digest.update(f"\0{entry}\0missing".encode())
    return cache_dir() / "class-data" / f"jdk{feature}-{digest.hexdigest()[:24]}.jsa"


def jpype_support_jar() -> Path | None:
    """A copy of JPype's support jar (org.jpype.jar) at a path named by its content, for the front of a worker's
    class path; None when JPype isn't installed where it can be found.

    JPype appends the jar from its installation to every class path it starts, and an archive records the
    class path it was written with: JPype in another virtualenv (a reinstall, a fresh checkout) is another path,
    so every archive would be rejected and written again (~94 MB each). Loaded from this copy first, JPype's
    classes never come from the installation's jar, and the JVM checks the recorded class path only up to the
    last entry an archived class came from (JDK 13+), so the trailing installation path doesn't matter."""
    source = _jpype_jar()
    if source is None:
        return None
    copy = _jpype_copy()
    if not copy.is_file():
        copy.parent.mkdir(parents=True, exist_ok=True)
        partial = copy.with_name(f"{copy.name}.{os.getpid()}.tmp")
        partial.write_bytes(source.read_bytes())
        # Never rewritten, not even by a worker that raced this one here: the JVM checks the jar's size and
        # modification time against an archive's record, so a replaced copy would void an archive written with it.
        try:
            os.link(partial, copy)
        except FileExistsError:
            pass
        finally:
            partial.unlink()
    # The real path: an archive records the class path as given, and a cache reached through a link (the test
    # suite's per-run cache directory) would otherwise name a path that is gone by the next run.
    return copy.resolve()


def _jpype_copy() -> Path:
    return cache_dir() / "class-data" / f"jpype-{_jpype_jar_digest()}.jar"


def _jpype_jar() -> Path | None:
    spec = importlib.util.find_spec("jpype")  # located, not imported: the host never loads JPype
    if spec is None or not spec.origin:
        return None
    jar = Path(spec.origin).resolve().parent.parent / "org.jpype.jar"  # where jpype/_core.py looks for it
    return jar if jar.is_file() else None


@functools.cache
def _jpype_jar_digest() -> str:
    jar = _jpype_jar()
    return hashlib.sha256(jar.read_bytes()).hexdigest()[:16] if jar is not None else "no-jpype"


def _claim(archive: Path) -> Path:
    return archive.with_suffix(".training")


def _failed(archive: Path) -> Path:
    return archive.with_suffix(".failed")


def needs_training(archive: Path | None) -> bool:
    """True when an archive could exist here but doesn't, and no training for it failed before."""
    return archive is not None and not archive.exists() and not _failed(archive).exists()


def claim_training(archive: Path) -> bool:
    """Takes the right to train this archive, across processes; False while another holds it."""
    claim = _claim(archive)
    claim.parent.mkdir(parents=True, exist_ok=True)
    try:
        if time.time() - claim.stat().st_mtime > STALE_CLAIM_SECONDS:
            claim.unlink(missing_ok=True)
    except FileNotFoundError:
        pass
    try:
        descriptor = os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return False
    os.write(descriptor, str(os.getpid()).encode())
    os.close(descriptor)
    _remove_abandoned_writes(archive)
    _remove_unused_archives(archive)
    return True


def mark_mapped(archive: Path) -> None:
    """Records that a worker started from the archive (its modification time), so it is kept."""
    try:
        os.utime(archive)
    except OSError:
        pass


def _remove_unused_archives(keep: Path) -> None:
    """Archives (and failure markers) of other keys that no worker has mapped for UNUSED_ARCHIVE_SECONDS. A JVM that
    still maps one keeps its pages (POSIX); where the file can't be removed it stays."""
    cutoff = time.time() - UNUSED_ARCHIVE_SECONDS
    for old in [*keep.parent.glob("*.jsa"), *keep.parent.glob("*.failed")]:
        try:
            if old.with_suffix(".jsa") != keep and old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            pass


def _remove_abandoned_writes(archive: Path) -> None:
    """Half-written archives of trainers that were killed (their server ended mid-write)."""
    for partial in archive.parent.glob(f"{archive.name}.*.tmp"):
        try:
            partial.unlink()
        except OSError:
            pass


def release_training(archive: Path) -> None:
    _claim(archive).unlink(missing_ok=True)


def mark_training_failed(archive: Path, why: str) -> None:
    """Remembers that this JDK can't write the archive (e.g. it has no base CDS archive), so no worker tries again."""
    _failed(archive).write_text(why)
