"""One build per project at a time, across threads and across gradle-repl processes.

Two builds of one project at once clobber each other's outputs (`target/`, `build/`), and a JVM that is
loading the project's classes can read a half-written class file. Threads of one process queue on a
lock for the whole check-or-build; processes that share a cache directory (two servers, a server and
`gradle-repl resolve`) queue on a file lock in it, taken only to build. Whoever waited then finds the first
build's environment in the cache.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from gradle_repl.errors import BuildFailed
from gradle_repl.paths import cache_dir
from gradle_repl.progress import ProgressCallback

__all__ = ["project_lock", "build_slot", "BUILD_LOCK_TIMEOUT_SECONDS"]

# Longer than any build's own timeout (Maven's 900 s, Gradle's): past it the holder is stuck, not busy.
BUILD_LOCK_TIMEOUT_SECONDS = 1800.0

_GUARD = threading.Lock()
_THREAD_LOCKS: dict[Path, threading.Lock] = {}


def project_lock(root: Path) -> threading.Lock:
    """The lock threads of this process hold while they check or build root's environment."""
    with _GUARD:
        return _THREAD_LOCKS.setdefault(root, threading.Lock())


@contextmanager
def build_slot(root: Path, on_progress: ProgressCallback | None = None) -> Iterator[bool]:
    """Holds root's build slot among processes for the body; yields whether another process held it
    first (the caller then looks in the cache again), and says so through on_progress while it waits."""
    name = hashlib.sha256(str(root).encode()).hexdigest()[:24]
    directory = cache_dir() / "locks"
    directory.mkdir(parents=True, exist_ok=True)
    lock = FileLock(directory / f"{name}.lock", thread_local=False)
    try:
        lock.acquire(timeout=0)
        waited = False
    except Timeout:
        if on_progress is not None:
            on_progress(f"waiting for another gradle-repl process that is building {root}")
        try:
            lock.acquire(timeout=BUILD_LOCK_TIMEOUT_SECONDS)
        except Timeout:
            raise BuildFailed(
                f"another gradle-repl process has been building {root} for {BUILD_LOCK_TIMEOUT_SECONDS:g} s; "
                f"if none is running, delete {lock.lock_file}"
            ) from None
        waited = True
    try:
        yield waited
    finally:
        lock.release()
