"""Tells a session when its heap is nearly full, before an OutOfMemoryError takes its state."""

from __future__ import annotations

from gradle_repl.worker.java import java_class

__all__ = ["HeapWatch", "WARN_FRACTION", "heap_nearly_full"]

# Warn from this share of the heap live after a collection on, and again at each further step.
WARN_FRACTION = 0.85
_STEP = 0.05


class HeapWatch:
    """Reads the heap live after the last collection (garbage doesn't count) against the JVM's maximum."""

    def __init__(self) -> None:
        self._warned_at = 0.0

    def warning(self) -> str | None:
        """A warning the first time the heap crosses WARN_FRACTION, and at each 5% step beyond; else None."""
        # Never a System.gc() of our own: on a 1.5 GB heap each costs 0.2–0.7 s, and forcing one whenever
        # garbage filled 85% of it made every ~14th declaration-heavy snippet that much slower (measured
        # with JFR, bench/profile.py). The JVM runs a full collection itself before the heap runs out, and
        # its figure of what survived that one is what's read here.
        live, maximum = _heap_bytes()
        fraction = _live_fraction(live, maximum)
        if fraction < WARN_FRACTION:
            self._warned_at = 0.0
            return None
        if fraction < self._warned_at + _STEP:
            return None
        self._warned_at = fraction
        return (
            f"memory: this session's heap is {fraction:.0%} full after garbage collection "
            f"({live // 2**20} of {maximum // 2**20} MB); declarations and values kept by the session are what "
            "fills it. reset_kotlin_session frees it all, or start the server with a larger --heap-mb."
        )


def heap_nearly_full() -> bool:
    """Whether the heap live after the last collection is past WARN_FRACTION (what HeapWatch warns of)."""
    return _live_fraction(*_heap_bytes()) >= WARN_FRACTION


def _live_fraction(live: int, maximum: int) -> float:
    """The share of the heap live; 0 when the JVM names no maximum."""
    return live / maximum if maximum > 0 else 0.0


def _heap_bytes() -> tuple[int, int]:
    """(live after each pool's last collection, maximum) over the heap's pools."""
    management = java_class("java.lang.management.ManagementFactory")
    heap = java_class("java.lang.management.MemoryType").HEAP
    live = 0
    for pool in management.getMemoryPoolMXBeans():
        if pool.getType() != heap:
            continue
        collected = pool.getCollectionUsage() if pool.isCollectionUsageThresholdSupported() else None
        live += int(collected.getUsed()) if collected is not None else int(pool.getUsage().getUsed())
    return live, int(java_class("java.lang.Runtime").getRuntime().maxMemory())
