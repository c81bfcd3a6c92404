"""Tells, in about a millisecond, whether anything under a build's input trees changed since last asked.

A stat pass over a build's inputs costs one stat per file (about 30 ms for 5,000 files here), paid
before every snippet. A watcher (watchfiles: inotify, FSEvents or ReadDirectoryChangesW under one
API) makes the usual answer, "nothing changed", nearly free. Its events arrive on a thread of its
own, so a question must not race an edit made just before it: each poll writes a sentinel file in a
directory the same watcher watches (a new name each time) and waits for that event. Events of one watcher arrive in order,
so once the sentinel is seen, every earlier change is too. When a watcher can't start or breaks,
`poll` answers None and the caller falls back to the stat pass.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from pathlib import Path

from gradle_repl.paths import cache_dir
from gradle_repl.project.build_inputs import is_ignored

__all__ = ["ChangeWatcher", "watcher_for", "close_all_watchers"]

# How long a poll waits for its own sentinel before it gives up and lets the caller stat instead;
# the sentinel normally arrives within a millisecond or two, this covers a loaded machine.
SENTINEL_TIMEOUT_SECONDS = 2.0
# Each watcher holds an inotify instance (a per-user kernel limit, 128 by default) and a thread;
# the least recently used is closed past this many.
MAX_WATCHERS = 8


class ChangeWatcher:
    """Watches trees recursively; `poll` names the input paths changed since the previous poll and
    counts the polls that saw any in `generation`."""

    def __init__(self, trees: tuple[Path, ...]) -> None:
        from watchfiles._rust_notify import RustNotify  # the library's own low-level API, typed in its stub

        self.trees = trees
        base = cache_dir() / "watch"
        base.mkdir(parents=True, exist_ok=True)
        self._sentinel_dir = Path(tempfile.mkdtemp(prefix="sentinel-", dir=base))
        self._count = 0
        self.generation = 0
        self._lock = threading.Lock()
        self._broken = False
        try:
            self._notify = RustNotify([str(t) for t in trees] + [str(self._sentinel_dir)], False, False, 50, True, True)
        except Exception:
            shutil.rmtree(self._sentinel_dir, ignore_errors=True)
            raise

    def poll(self) -> set[str] | None:
        """Input paths changed since the last poll (empty: none), or None when this watcher can't tell."""
        with self._lock:
            if self._broken:
                return None
            self._count += 1
            sentinel = self._sentinel_dir / f"s{self._count}"
            changed: set[str] = set()
            try:
                sentinel.write_bytes(b"")
                deadline = time.monotonic() + SENTINEL_TIMEOUT_SECONDS
                while True:
                    remaining_ms = int((deadline - time.monotonic()) * 1000)
                    if remaining_ms <= 0:
                        self._break()
                        return None
                    # No sleep between checks (step 0): the sentinel lands within microseconds and a
                    # 1 ms step would cost 2 ms per poll; grouping changes waits at most 1 ms.
                    result = self._notify.watch(1, 0, remaining_ms, None)
                    if not isinstance(result, set):
                        self._break()
                        return None
                    paths = {path for _, path in result}
                    changed |= paths
                    if str(sentinel) in paths:
                        break
                sentinel.unlink()
            except Exception:  # noqa: BLE001 - any watcher failure means "can't tell", never a wrong answer
                self._break()
                return None
            roots: dict[Path, bool] = {}
            changed = {
                p for p in changed if not p.startswith(str(self._sentinel_dir)) and not self._ignored(Path(p), roots)
            }
            if changed:
                self.generation += 1
            return changed

    def _ignored(self, path: Path, roots: dict[Path, bool]) -> bool:
        return all(is_ignored(path, tree, roots) for tree in self.trees)

    def _break(self) -> None:
        """Closes a watcher that failed; it answers None from now on."""
        self.close()
        self._broken = True

    def close(self) -> None:
        try:
            self._notify.close()
        except Exception:  # noqa: BLE001 - closing twice or after a failure is fine
            pass
        shutil.rmtree(self._sentinel_dir, ignore_errors=True)


_WATCHERS: OrderedDict[tuple[Path, ...], ChangeWatcher] = OrderedDict()
_WATCHERS_LOCK = threading.Lock()


def watcher_for(trees: tuple[Path, ...]) -> ChangeWatcher | None:
    """The process's watcher for these trees, started on first use; None when none can run here."""
    with _WATCHERS_LOCK:
        watcher = _WATCHERS.get(trees)
        if watcher is not None:
            _WATCHERS.move_to_end(trees)
            return watcher
        try:
            watcher = ChangeWatcher(trees)
        except Exception:  # noqa: BLE001 - no watcher (missing tree, kernel limits): stat passes instead
            return None
        _WATCHERS[trees] = watcher
        while len(_WATCHERS) > MAX_WATCHERS:
            _, oldest = _WATCHERS.popitem(last=False)
            oldest.close()
        return watcher


def close_all_watchers() -> None:
    with _WATCHERS_LOCK:
        for watcher in _WATCHERS.values():
            watcher.close()
        _WATCHERS.clear()


atexit.register(close_all_watchers)
