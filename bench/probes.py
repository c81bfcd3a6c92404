"""What a probe costs, each figure a ratio against the same work without one, measured in one run.

    .venv/bin/python bench/probes.py [--rounds 7]

On a private copy of tests/projects/maven-junit (a shop's Cart; CartTest.discountFromTenItems fails), one test session
driven in-process by a SessionManager, as the server drives it:
- 200,000 calls of Cart.subtotalCents (a one-line method), timed inside the snippet: with a probe on that line
  whose `when` never holds, against no probe (goal ≤ 2×), and with no probe again after a probed call ended
  (goal ≤ 1.05×: the class runs its own bytes again);
- one hit's cost, with locals and `this` rendered: 1,000 calls of Cart.totalCents, each a hit, against the same calls
  without a probe, per hit (goal ≤ 1 ms);
- setting a probe in a warm session: a `1 + 1` call with a probe on a line it never reaches against the same call
  without (the worker's own time, the median of 5 pairs; goal ≤ 100 ms), and with a `capture` (its compile included).
  The take-out follows the reply: what it adds to a `1 + 1` sent at once after it (the client's wall time) is the
  take-out's figure (goal ≤ 100 ms). A `1 + 1` before each timed call lets the last one's take-out finish, as an
  agent's next call seconds later finds it finished;
- run_project_tests with explainFailures against a plain run of the same test class (median of 5 pairs; goal ≤ 3×).
Rounds alternate the sides, so both see the machine's load alike; each figure is the median of the rounds, with their
spread. Nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from gradle_repl.frames import Probe, SuccessResult, TestRunResult, WorkerOptions
from gradle_repl.host.manager import SessionLimits, SessionManager
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.target import SessionTarget

HERE = Path(__file__).resolve().parents[1]
SHOP = HERE / "tests" / "projects" / "maven-junit"
CART = "src/main/kotlin/shop/Cart.kt"
# 200,000 calls to warm, then the median of 7 timed blocks of 200,000: one block reads a GC pause or a JIT compile now
# and then, several times the others.
LOOP = (
    'val benchCart = shop.Cart().add(shop.Item("a", 1))\n'
    "var sum = 0L\nrepeat(200_000) { sum += benchCart.subtotalCents() }\n"
    "val blocks = (1..7).map {\n"
    "    val started = System.nanoTime()\n    repeat(200_000) { sum += benchCart.subtotalCents() }\n"
    "    (System.nanoTime() - started) / 1_000\n}\n"
    "blocks.sorted()[3]"
)
HITS = 1_000
# Pairs (with, without) per round for the per-call figures.
PAIRS = 5
HIT_LOOP = (
    'val hitCart = shop.Cart().add(shop.Item("a", 1))\n'
    f"val hitStart = System.nanoTime()\nrepeat({HITS}) {{ hitCart.totalCents() }}\n"
    "(System.nanoTime() - hitStart) / 1_000"
)


def line_of(root: Path, text: str) -> int:
    lines = (root / CART).read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


class Bench:
    def __init__(self, root: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.manager = SessionManager(
            limits=SessionLimits(spare_worker=False, train_class_data=False),
            worker_options=WorkerOptions(heap_mb=512),
            resolver=resolve_environment,
        )
        self.target = SessionTarget(str(root), source_set="test", build_tool="maven", session_id="bench")

    def run(self, code: str, *probes: Probe) -> SuccessResult:
        reply = self.loop.run_until_complete(self.manager.run_snippet(self.target, code=code, probes=probes))
        assert isinstance(reply.result, SuccessResult), reply.result
        return reply.result

    def micros(self, code: str, *probes: Probe) -> float:
        """The snippet's value: microseconds it measured itself."""
        self.settle()
        result = self.run(code, *probes)
        assert result.value is not None
        return float(result.value.data)

    def settle(self) -> None:
        """A call whose JVM work waits for what the last call's probes left to do after its reply (their take-out,
        ProbeCall.close): what an agent's next call, seconds later, finds done."""
        self.run("1 + 1")

    def overhead(self, probe: Probe) -> tuple[float, float]:
        """What setting a probe adds to a `1 + 1` call, in the worker's own time (ms), and what taking it out adds to
        a `1 + 1` call sent at once after that call's reply (the client's wall time, ms: the worker takes it out before
        it reads the next request), each against the same call without a probe."""
        self.settle()
        bare = self.run("1 + 1").duration_ms
        after_bare = self.wall("1 + 1")
        with_probe = self.run("1 + 1", probe).duration_ms
        after_probe = self.wall("1 + 1")
        return with_probe - bare, after_probe - after_bare

    def wall(self, code: str) -> float:
        started = time.perf_counter()
        self.run(code)
        return (time.perf_counter() - started) * 1000

    def tests(self, *, explain: bool) -> float:
        self.settle()
        started = time.perf_counter()
        reply = self.loop.run_until_complete(
            self.manager.run_tests(self.target, selectors=["shop.CartTest"], explain_failures=explain)
        )
        assert isinstance(reply.result, TestRunResult) and reply.result.failed == 1, reply.result
        if explain:
            assert reply.result.failures[0].frames, reply.result.failures[0]
        return time.perf_counter() - started

    def close(self) -> None:
        self.loop.run_until_complete(self.manager.close_all())
        self.loop.close()


def spread(values: Sequence[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-probes-") as scratch:
        root = Path(scratch) / "shop"
        shutil.copytree(SHOP, root, ignore=shutil.ignore_patterns("target", ".gradle-repl"))
        subtotal = line_of(root, "fun subtotalCents()")
        total = line_of(root, "return if (size > 10)")
        never = Probe(at=f"Cart.kt:{subtotal}", when="items.size > 1_000_000")
        unreached = Probe(at=f"Cart.kt:{total}")
        captured = Probe(at=f"Cart.kt:{total}", capture=["items.size"])
        every = Probe(at=f"Cart.kt:{total}", max_hits=HITS)
        print(f"load average before: {os.getloadavg()[0]:.2f}")
        bench = Bench(root)
        try:
            bench.run("1 + 1")
            for _ in range(2):  # the JIT warm on both paths before anything is timed
                bench.micros(LOOP)
                bench.micros(LOOP, never)
                bench.micros(HIT_LOOP)
                bench.micros(HIT_LOOP, every)
                bench.tests(explain=False)
                bench.tests(explain=True)
            without, probed, after, hit_ms, set_ms, take_out_ms, compile_ms, explained = [], [], [], [], [], [], [], []
            for _ in range(args.rounds):
                plain = bench.micros(LOOP)
                probed.append(bench.micros(LOOP, never) / plain)
                after.append(bench.micros(LOOP) / plain)
                without.append(plain)
                base = bench.micros(HIT_LOOP)
                hit_ms.append((bench.micros(HIT_LOOP, every) - base) / HITS / 1000)
                # A call's own time varies by tens of ms on a loaded machine: each figure is the median of pairs.
                pairs = [bench.overhead(unreached) for _ in range(PAIRS)]
                set_ms.append(statistics.median(pair[0] for pair in pairs))
                take_out_ms.append(statistics.median(pair[1] for pair in pairs))
                compile_ms.append(statistics.median(bench.overhead(captured)[0] for _ in range(PAIRS)))
                explained.append(
                    statistics.median(bench.tests(explain=True) / bench.tests(explain=False) for _ in range(PAIRS))
                )
        finally:
            bench.close()
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(f"rounds: {args.rounds}; each figure: median (min–max)")
    print(f"200,000 calls without a probe: {statistics.median(without) / 1000:.1f} ms")
    print(f"  with a probe whose `when` never holds: {spread(probed)}× (goal ≤ 2×)")
    print(f"  after the probed call ended:           {spread(after)}× (goal ≤ 1.05×)")
    print(f"one hit, locals and `this` rendered:     {spread(hit_ms)} ms (goal ≤ 1 ms)")
    print(f"setting a probe:                         {spread(set_ms)} ms (goal ≤ 100 ms)")
    print(f"taking it out (to a next call at once):  {spread(take_out_ms)} ms (goal ≤ 100 ms)")
    print(f"  with a capture compiled:               {spread(compile_ms)} ms")
    print(f"explainFailures against a plain run:     {spread(explained)}× (goal ≤ 3×)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
