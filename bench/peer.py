"""gradle-repl against the Kotlin Jupyter kernel, interleaved call by call, in rounds (issue 59, item 1).

    .venv/bin/python bench/peer.py [--rounds 3] [--calls 40]

The same project (sample-project, resolved with Maven) and the same snippets as `bench/run.py --kernel-only`, but the
sides are alive at once and take turns: one gradle-repl MCP session (the real server over stdio, opened as run.py
opens it) and one warm kernel per compiler mode (K1, K2; bench/kernel.py drives each cell by cell through
bench/kernel_driver.py --lines, in the kernel's own venv). For each warm row (`1 + 1`, the call into the project, the
30-line class) a call goes to each side in turn, the order rotating call by call, so a burst of the machine's load
falls on all three alike; 20 warm-up calls of each snippet per side first (--warm-up), then per round --calls of each.

Per round and row: each side's p50, and the ratio gradle-repl / the better kernel mode (the lower p50 of the
round). Start to first result is per round too, from fresh processes started one after another in a rotating order
(gradle-repl: a worker launched with the class-data archive and no spare, to its `1 + 1`, as run.py measures it; the
kernel: start_kernel to its `1 + 1`), while the warm sides idle. Printed per row: the median of the rounds' p50s per
side and the median ratio with its spread (min–max over the rounds); the load average before and after.

Left to `bench/run.py --kernel-only`: RSS after 100 snippets (a memory figure, not moved by the day's load the way a
latency is) and the spare worker's first result. Not part of the test suite; nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from gradle_repl.environment import ReplEnvironment, SessionSpec
from gradle_repl.frames import WorkerOptions
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.project.resolve import resolve_environment

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernel import KERNEL_VERSION, KernelCells, KernelStart
from run import (
    CALL,
    CLASS_30_LINES,
    SAMPLE,
    TRIVIAL,
    WARM_UP_RUNS,
    _print_table,
    ensure_class_data,
    kernel_job,
    ms,
    percentile,
)

# The warm rows in its order, then the start; and its goals: the ratio's limit, and the kernel mode it is
# against (None: the better one).
ROWS = {"warm `1 + 1`": TRIVIAL, "warm call into the project": CALL, "warm 30-line class": CLASS_30_LINES}
FIRST_RESULT = "start to first result (no spare)"
GOALS: dict[str, tuple[float, str | None]] = {
    "warm `1 + 1`": (0.6, None),
    "warm call into the project": (0.6, None),
    "warm 30-line class": (0.7, "K2"),
    FIRST_RESULT: (0.4, None),
}
OURS = "gradle-repl"
MODES = ("K1", "K2")
SIDES = (OURS, *MODES)


@dataclass
class Round:
    """One round's samples, in seconds: per row, per side."""

    samples: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: {row: {side: [] for side in SIDES} for row in [*ROWS, FIRST_RESULT]}
    )

    def p50(self, row: str, side: str) -> float:
        return percentile(self.samples[row][side], 0.5)

    def ratio(self, row: str, against: str | None = None) -> float:
        """gradle-repl's p50 over the kernel's: the better mode's, or the mode named."""
        kernel = self.p50(row, against) if against else min(self.p50(row, mode) for mode in MODES)
        return self.p50(row, OURS) / kernel


def rotated(sides: tuple[str, ...], by: int) -> list[str]:
    by %= len(sides)
    return [*sides[by:], *sides[:by]]


async def our_first_result(env: ReplEnvironment) -> float:
    """A worker launched (class-data archive, no spare) to its first `1 + 1`, as bench/run.py measures it: as the
    server launches one a call waits for, without the warm-up snippet (StartRequest.warm_up)."""
    started = time.monotonic()
    worker = await WorkerHandle.launch(
        SessionSpec(environment=env), WorkerOptions(class_data_sharing=True), label="bench-peer-start", warm_up=False
    )
    try:
        assert (await worker.request(TRIVIAL, timeout_seconds=120)).result.type == "success"
        return time.monotonic() - started
    finally:
        await worker.stop()


async def kernel_first_result(env: ReplEnvironment, mode: str) -> float:
    """A fresh kernel of the mode, start_kernel to its first `1 + 1` answered (timed by the driver)."""
    kernel = await KernelCells.start(KernelStart(mode=mode, java_home=env.java_home, classpath=[], first=TRIVIAL))
    await kernel.aclose()
    return kernel.first_result_seconds


async def measure(env: ReplEnvironment, rounds: int, calls: int, warm_up: int) -> list[Round]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "gradle_repl", "serve"], env=dict(os.environ))
    arguments = {"projectRoot": str(SAMPLE), "buildTool": "maven", "sessionId": "bench"}
    measured: list[Round] = []
    async with Client(params, read_timeout_seconds=600) as client:

        async def ours(code: str) -> float:
            started = time.monotonic()
            result = await client.call_tool("run_kotlin_snippet", {**arguments, "code": code})
            elapsed = time.monotonic() - started
            assert not result.is_error, result.content
            return elapsed

        first = await ours(TRIVIAL)
        print(f"gradle-repl: first session ever, first result {ms(first)}", file=sys.stderr, flush=True)
        # Steady state: the spare worker started after the first call warms up on the same two cores.
        await anyio.sleep(10)
        await ensure_class_data(env)
        kernels: dict[str, KernelCells] = {}
        try:
            for mode in MODES:
                classpath = kernel_job(env, mode, calls).classpath
                kernels[mode] = await KernelCells.start(
                    KernelStart(mode=mode, java_home=env.java_home, classpath=classpath, first=TRIVIAL)
                )
                print(f"kernel {mode}: up, classpath added", file=sys.stderr, flush=True)
            side: dict[str, Callable[[str], Awaitable[float]]] = {
                OURS: ours,
                **{mode: kernels[mode].run for mode in MODES},
            }
            for code in ROWS.values():
                for index in range(warm_up):
                    for name in rotated(SIDES, index):
                        await side[name](code)
            for number in range(rounds):
                this = Round()
                for name in rotated(SIDES, number):
                    seconds = await our_first_result(env) if name == OURS else await kernel_first_result(env, name)
                    this.samples[FIRST_RESULT][name].append(seconds)
                for row, code in ROWS.items():
                    for index in range(calls):
                        for name in rotated(SIDES, number + index):
                            this.samples[row][name].append(await side[name](code))
                measured.append(this)
                print(
                    f"round {number + 1}: "
                    + "; ".join(
                        f"{row} {' / '.join(ms(this.p50(row, name)) for name in SIDES)} → {this.ratio(row):.2f}x"
                        for row in [*ROWS, FIRST_RESULT]
                    ),
                    file=sys.stderr,
                    flush=True,
                )
        finally:
            for kernel in kernels.values():
                await kernel.aclose()
    return measured


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}x ({min(values):.2f}–{max(values):.2f})"


def rows_of(measured: list[Round], calls: int) -> list[tuple[str, ...]]:
    header = (
        "row",
        OURS,
        f"kernel {KERNEL_VERSION} K1 / K2",
        f"ratio to the better mode, median (min–max) of {len(measured)}",
        "goal (issue 59)",
    )
    rows: list[tuple[str, ...]] = [header]
    for row in [*ROWS, FIRST_RESULT]:
        p50 = {name: statistics.median(r.p50(row, name) for r in measured) for name in SIDES}
        limit, against = GOALS[row]
        goal_ratios = [r.ratio(row, against) for r in measured]
        goal = statistics.median(goal_ratios)
        verdict = f"≤ {limit}x {against or 'the better mode'}: " + (f"{spread(goal_ratios)}, " if against else "")
        verdict += "met" if goal <= limit else "missed"
        label = f"{row} p50 (of {calls} a round)" if row in ROWS else row
        rows.append(
            (
                label,
                ms(p50[OURS]),
                f"{ms(p50['K1'])} / {ms(p50['K2'])}",
                spread([r.ratio(row) for r in measured]),
                verdict,
            )
        )
    return rows


def load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    parser.add_argument(
        "--calls", type=int, default=40, help="warm calls of each snippet per side a round (default 40)"
    )
    parser.add_argument(
        "--warm-up",
        type=int,
        default=WARM_UP_RUNS,
        help=f"warm-up calls of each snippet per side (default {WARM_UP_RUNS})",
    )
    options = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="gradle-repl-bench-"))
    os.environ["GRADLE_REPL_CACHE_DIR"] = str(cache)
    try:
        print(f"load average before: {load()}", flush=True)
        began = time.monotonic()
        env = resolve_environment(SAMPLE, build_tool="maven", refresh=True).environment
        measured = anyio.run(measure, env, options.rounds, options.calls, options.warm_up)
        print(f"load average after:  {load()} ({time.monotonic() - began:.0f} s)\n", flush=True)
        _print_table(rows_of(measured, options.calls))
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
