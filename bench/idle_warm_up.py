"""A session's first snippets after an idle pause: a worker that warmed its compiler while idle against one that didn't.

    .venv/bin/python bench/idle_warm_up.py [--rounds 3] [--calls 20] [--compiles 100]

Per round, two fresh workers on sample-project (WorkerHandle, class-data archive mapped, as a session's): one with
`idle_warm_up_compiles` at --compiles, one at 0. Each answers a first `1 + 1` (what starts a session over MCP), then
both idle until the warming one's log says it is done, so they idled alike (the JIT also drains its queue while
idle); then the same --calls of each of bench/run.py's three snippets, the two workers taking turns call by call
(order rotating). Printed per round and over all: each side's p50 of the first 5 and of all --calls calls per
snippet, the warmed side's over the other's, the warm-up's own time and CPU, and both workers' RSS after it. What
the warm-up costs is the worker's CPU while it idles (psutil, every thread). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gradle_repl.environment import ReplEnvironment, SessionSpec
from gradle_repl.frames import WorkerOptions
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.project.resolve import resolve_environment
from run import CALL, CLASS_30_LINES, SAMPLE, TRIVIAL

SNIPPETS = {"trivial `1 + 1`": TRIVIAL, "call into the project": CALL, "30-line class": CLASS_30_LINES}
DONE = "idle: warmed the compiler with"


def cpu_seconds(pid: int) -> float:
    process = psutil.Process(pid)
    times = process.cpu_times()
    return times.user + times.system


async def warmed(worker: WorkerHandle, seconds: float = 300.0) -> None:
    """Until the worker's log says its warm-up is done (an observable state, polled)."""
    log = worker.log_path()
    assert log is not None
    deadline = time.monotonic() + seconds
    while not (log.exists() and DONE in log.read_text(errors="replace")):
        assert time.monotonic() < deadline, f"the warm-up did not end within {seconds:g} s"
        await asyncio.sleep(0.05)


@dataclass
class Round:
    times: dict[str, dict[str, list[float]]]  # side → snippet → the worker's ms per call
    warm_up_seconds: float
    warm_up_cpu: float
    rss_mb: dict[str, float]


async def one_round(env: ReplEnvironment, calls: int, compiles: int) -> Round:
    spec = SessionSpec(environment=env)
    sides = {
        "warmed": await WorkerHandle.launch(spec, WorkerOptions(idle_warm_up_compiles=compiles), label="bench-warm"),
        "cold": await WorkerHandle.launch(spec, WorkerOptions(idle_warm_up_compiles=0), label="bench-cold"),
    }
    try:
        for worker in sides.values():
            assert (await worker.request(TRIVIAL, timeout_seconds=120)).result.type == "success"
        idle_from = time.monotonic()
        cpu_before = cpu_seconds(sides["warmed"].pid)
        await warmed(sides["warmed"])
        warm_up_seconds = time.monotonic() - idle_from
        warm_up_cpu = cpu_seconds(sides["warmed"].pid) - cpu_before
        rss = {name: psutil.Process(worker.pid).memory_info().rss / 2**20 for name, worker in sides.items()}
        times: dict[str, dict[str, list[float]]] = {name: {s: [] for s in SNIPPETS} for name in sides}
        for index in range(calls):
            for snippet, code in SNIPPETS.items():
                order = list(sides) if index % 2 == 0 else list(reversed(sides))
                for name in order:
                    reply = await sides[name].request(code, timeout_seconds=120)
                    assert reply.result.type == "success", reply.result
                    times[name][snippet].append(reply.result.duration_ms)
        return Round(times, warm_up_seconds, warm_up_cpu, rss)
    finally:
        for worker in sides.values():
            await worker.stop()


def p50(values: list[float]) -> float:
    return statistics.median(values)


def report(rounds: list[Round], calls: int, compiles: int) -> None:
    print(f"\n{compiles} throwaway compiles while idle, then {calls} calls of each snippet (the worker's own ms):")
    for snippet in SNIPPETS:
        firsts = {side: [p50(r.times[side][snippet][:5]) for r in rounds] for side in ("warmed", "cold")}
        alls = {side: [p50(r.times[side][snippet]) for r in rounds] for side in ("warmed", "cold")}
        first_ratio = [w / c for w, c in zip(firsts["warmed"], firsts["cold"], strict=True)]
        all_ratio = [w / c for w, c in zip(alls["warmed"], alls["cold"], strict=True)]
        print(
            f"  {snippet:24} first 5: {p50(firsts['warmed']):6.1f} / {p50(firsts['cold']):6.1f} ms → "
            f"{p50(first_ratio):.2f}x ({min(first_ratio):.2f}–{max(first_ratio):.2f}); all {calls}: "
            f"{p50(alls['warmed']):6.1f} / {p50(alls['cold']):6.1f} ms → {p50(all_ratio):.2f}x "
            f"({min(all_ratio):.2f}–{max(all_ratio):.2f})"
        )
    print(
        f"  the warm-up: {p50([r.warm_up_seconds for r in rounds]):.1f} s, "
        f"{p50([r.warm_up_cpu for r in rounds]):.1f} CPU-s of the worker (p50 of {len(rounds)})"
    )
    rss = {side: p50([r.rss_mb[side] for r in rounds]) for side in ("warmed", "cold")}
    print(f"  RSS after it: {rss['warmed']:.0f} MB warmed / {rss['cold']:.0f} MB cold")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--compiles", type=int, default=100)
    args = parser.parse_args()
    env = resolve_environment(SAMPLE, build_tool="maven").environment
    print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rounds = []
    for number in range(1, args.rounds + 1):
        rounds.append(await one_round(env, args.calls, args.compiles))
        print(f"round {number} done", flush=True)
    print(f"load average after:  {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    report(rounds, args.calls, args.compiles)


if __name__ == "__main__":
    asyncio.run(main())
