"""Where the suite's time goes, by test module: summed in every run, printed at its end, and kept for the next run, which
starts its slowest modules first.

pytest-xdist (`--dist loadfile`) hands whole modules to its workers in collection order, the next to whichever worker
is free. A run whose slowest module happens to be collected last ends with one worker busy and the other idle for that
module's length; handing the longest modules out first (the longest-processing-time-first rule) makes the two finish
close together. Module times are kept beside the suite's other caches; a new machine's first run, which has none,
starts the modules with the most tests first. pytest-xdist would re-sort modules by their number of tests itself
(`--no-loadscope-reorder` in pyproject.toml keeps this order).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

__all__ = ["ModuleTimes"]


def module_of(nodeid: str) -> str:
    """`tests/test_x.py::test_y[a]` → `tests/test_x.py`."""
    return nodeid.split("::", 1)[0]


class ModuleTimes:
    """Seconds spent per test module (setup, call and teardown of its tests)."""

    def __init__(self, store: Path) -> None:
        self._store = store
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.tests: Counter[str] = Counter()

    def add(self, report: pytest.TestReport) -> None:
        module = module_of(report.nodeid)
        self.seconds[module] += report.duration
        if report.when == "call":
            self.tests[module] += 1

    def previous(self) -> dict[str, float]:
        """The module times the last full run kept; empty when there is none (or it can't be read)."""
        try:
            kept = json.loads(self._store.read_text())
        except (OSError, ValueError):
            return {}
        return {str(k): float(v) for k, v in kept.items()} if isinstance(kept, dict) else {}

    def order(self, items: list[pytest.Item]) -> None:
        """Reorders items in place: modules with no kept time first (all of them on a new machine), most tests first, as
        the likeliest to be long; then the others by their last measured time, longest first. Tests keep their order
        within a module."""
        previous = self.previous()
        first_seen = {module_of(item.nodeid): i for i, item in reversed(list(enumerate(items)))}
        tests = Counter(module_of(item.nodeid) for item in items)

        def rank(item: pytest.Item) -> tuple[bool, float, int]:
            module = module_of(item.nodeid)
            kept = previous.get(module)
            return (kept is not None, -(tests[module] if kept is None else kept), first_seen[module])

        items.sort(key=rank)

    def keep(self) -> None:
        """Stores this run's times for the next; only a run that ran most of the suite, so one file's run doesn't
        leave the others' order unknown."""
        previous = self.previous()
        if len(self.seconds) < max(10, len(previous) // 2):
            return
        self._store.parent.mkdir(parents=True, exist_ok=True)
        self._store.write_text(json.dumps({**previous, **self.seconds}, indent=1, sort_keys=True))

    def summary(self, count: int = 15) -> list[str]:
        """The slowest modules, one line each, and the total."""
        total = sum(self.seconds.values())
        lines = [
            f"{s:8.1f} s {self.tests[m]:4d} tests  {m}"
            for m, s in sorted(self.seconds.items(), key=lambda e: -e[1])[:count]
        ]
        return [*lines, f"{total:8.1f} s in all, {sum(self.tests.values())} tests in {len(self.seconds)} modules"]
