"""Class-data sharing for worker JVMs: an archive of the classes the REPL compiler loads.

Starting a worker is mostly loading and verifying the Kotlin compiler's classes. A dynamic CDS
archive (JEP 350, JDK 13+) holds them pre-parsed; a JVM that maps it starts the REPL about twice as
fast (bench/README.md). One archive exists per JDK and REPL host classpath; a worker of its own
("training") writes it once in the background, and every later worker maps it. A missing, stale or
foreign archive only costs speed: the JVM checks it and falls back to loading classes normally.
"""

from __future__ import annotations

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
]

# Dynamic archives (-XX:ArchiveClassesAtExit) exist from JDK 13 on.
MIN_JDK_FEATURE = 13
# A training claim older than this belongs to a process that died without releasing it.
STALE_CLAIM_SECONDS = 600.0
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
    # JPype puts its own jar on the JVM's class path too: another installation means another class path.
    digest.update(str(_jpype_location()).encode())
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


def _jpype_location() -> Path | None:
    spec = importlib.util.find_spec("jpype")  # located, not imported: the host never loads JPype
    return Path(spec.origin).parent if spec is not None and spec.origin else None


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
    return True


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
