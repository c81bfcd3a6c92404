"""Whether a cached environment still is what the build would give: what it names still exists and
none of the build's inputs changed since it was resolved.

The full answer is a stat pass over the inputs (build_inputs.Fingerprint). A watcher over the same
trees (watch.py) lets later questions skip it: an entry found unchanged once stays unchanged while
the watcher sees no change in its trees. Only the few single files outside the trees (user
settings, parent POMs) are stat'ed every time.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from gradle_repl.environment import ReplEnvironment
from gradle_repl.project.cache import CacheEntry
from gradle_repl.project.watch import ChangeWatcher, watcher_for

__all__ = ["WatchMark", "observe", "stale_reason", "remember_unchanged"]

# A watcher and its generation: while both are the same, nothing under its trees changed.
WatchMark = tuple[ChangeWatcher, int]

_UNCHANGED_AT: dict[tuple[str, float], WatchMark] = {}
_LOCK = threading.Lock()


def observe(trees: list[str] | tuple[Path, ...]) -> WatchMark | None:
    """Polls the trees' watcher (starting it on first use); None when no watcher can tell."""
    watcher = watcher_for(tuple(Path(t) for t in trees))
    if watcher is None or watcher.poll() is None:
        return None
    return (watcher, watcher.generation)


def remember_unchanged(entry: CacheEntry, mark: WatchMark | None) -> None:
    """Records that entry's inputs were as fingerprinted when mark was observed."""
    if mark is not None and tuple(Path(t) for t in entry.fingerprint.trees) == mark[0].trees:
        with _LOCK:
            _UNCHANGED_AT[entry.identity()] = mark


def missing_artifact(environment: ReplEnvironment) -> str | None:
    """The first JDK, compiler or classpath path the environment names that is gone."""
    paths = [
        environment.java_executable,
        *environment.compiler_plugin_classpath,
        *environment.repl_host_classpath,
        *environment.classpath,
    ]
    return next((f"{path} no longer exists" for path in paths if not os.path.exists(path)), None)


def stale_reason(entry: CacheEntry) -> str | None:
    """Why entry no longer matches the project (one line), or None when it still does."""
    if (missing := missing_artifact(entry.environment)) is not None:
        return missing
    fingerprint = entry.fingerprint
    mark = observe(fingerprint.trees)
    with _LOCK:
        unchanged_since = _UNCHANGED_AT.get(entry.identity())
    if mark is not None and unchanged_since == mark:
        return fingerprint.change_in_files()
    reason = fingerprint.change()
    if reason is None:
        remember_unchanged(entry, mark)
    return reason
