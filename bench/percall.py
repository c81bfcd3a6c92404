"""What every call pays: two (or more) checkouts side by side, their calls interleaved.

    git worktree add /work/wt-c08 c08c229 && (cd /work/wt-c08 && bash scripts/setup)
    .venv/bin/python bench/percall.py --side before=/work/wt-c08 [--side main=/work/main] [--calls 40] [--layer worker]

Each side is a checkout with its own .venv, on its own sample-project resolved with Maven. --layer mcp (the default):
the checkout's MCP server over stdio (`serve --no-spare-worker`), driven by the real MCP client. --layer worker: the
checkout's WorkerHandle driving one worker directly (no server, no resolve per call), from a small driver process run
with the checkout's Python. The sides take turns call by call (the order rotating every round), so the machine's load
falls on all of them alike: a trivial `1 + 1` and a call into the project's classes, 20 warm-up rounds, then --calls
of each. Printed: the load average before and after; per side and snippet the wall time's p50/p95, the worker's own
part (a result's duration: from the request's arrival in the worker to its result), the CPU time the side's processes
spent per call (server and worker, every thread: what the machine's load can't stretch), and the ratios to the first
side. This checkout is always the last side, "now". Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import anyio
import psutil
from anyio.abc import Process
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from child_lines import stdout_lines
from run import CALL, TRIVIAL, percentile

HERE = Path(__file__).resolve().parents[1]
SNIPPETS = {"trivial `1 + 1`": TRIVIAL, "call into the project": CALL}
WARM_UP = 20

# Run by a checkout's own Python in the checkout: one worker, driven through that checkout's WorkerHandle. Reads a
# snippet (JSON) a line, answers [wall seconds, worker CPU seconds, the result's duration in seconds, its type].
WORKER_DRIVER = """
import asyncio, json, sys, time
from pathlib import Path
import psutil
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.host.limits import worker_options
from gradle_repl.project.resolve import resolve_environment

def cpu(process):
    times = process.cpu_times()
    return times.user + times.system

async def main():
    env = resolve_environment(str(Path("sample-project").resolve()), build_tool="maven").environment
    worker = await WorkerHandle.launch(env, worker_options(), label="bench-percall")
    process = psutil.Process(worker.pid)
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    try:
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            used, started = cpu(process), time.monotonic()
            reply = await worker.request(json.loads(line), timeout_seconds=120)
            wall = time.monotonic() - started
            print(json.dumps([wall, cpu(process) - used, reply.result.duration_ms / 1000, reply.result.type]), flush=True)
    finally:
        await worker.stop()

asyncio.run(main())
"""


@dataclass
class Measured:
    """One side's samples for one snippet, in seconds."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    worker: list[float] = field(default_factory=list)


class Side(Protocol):
    async def call(self, code: str) -> tuple[float, float, float]:
        """Runs the snippet: wall time, CPU time of the side's processes, the worker's own part."""
        ...


def tree_cpu_seconds(root: psutil.Process) -> float:
    """CPU time of a process and every process under it, all threads, live or ended."""
    total = 0.0
    for process in [root, *root.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


class McpSide:
    def __init__(self, client: Client, server: psutil.Process, checkout: Path) -> None:
        self._client = client
        self._server = server
        self._arguments = {
            "projectRoot": str(checkout / "sample-project"),
            "buildTool": "maven",
            "sessionId": "percall",
        }

    @classmethod
    async def start(cls, checkout: Path, stack: AsyncExitStack) -> McpSide:
        params = StdioServerParameters(
            command=str(checkout / ".venv/bin/python"),
            args=["-m", "gradle_repl", "serve", "--no-spare-worker"],
            env=dict(os.environ),
            cwd=str(checkout),
        )
        client = await stack.enter_async_context(Client(params, read_timeout_seconds=600))
        # The server is the child of this process running in the checkout.
        server = next(p for p in psutil.Process().children() if Path(p.cwd()) == checkout)
        return cls(client, server, checkout)

    async def call(self, code: str) -> tuple[float, float, float]:
        used, started = tree_cpu_seconds(self._server), time.monotonic()
        result = await self._client.call_tool("run_kotlin_snippet", {**self._arguments, "code": code})
        wall, used = time.monotonic() - started, tree_cpu_seconds(self._server) - used
        assert not result.is_error and result.structured_content is not None, result.content
        return wall, used, result.structured_content["durationMs"] / 1000


class WorkerSide:
    def __init__(self, process: Process) -> None:
        self._process = process
        self._lines = stdout_lines(self._process)

    @classmethod
    async def start(cls, checkout: Path, stack: AsyncExitStack) -> WorkerSide:
        process = await anyio.open_process(
            [str(checkout / ".venv/bin/python"), "-c", WORKER_DRIVER],
            cwd=str(checkout),
            stderr=sys.stderr,
        )
        stack.push_async_callback(process.aclose)
        side = cls(process)
        assert await side._line() == "ready"
        return side

    async def _line(self) -> str:
        return await self._lines.__anext__()

    async def call(self, code: str) -> tuple[float, float, float]:
        assert self._process.stdin is not None
        await self._process.stdin.send((json.dumps(code) + "\n").encode())
        wall, used, inside, kind = json.loads(await self._line())
        assert kind == "success", kind
        return wall, used, inside


async def measure(sides: dict[str, Path], calls: int, layer: str) -> dict[str, dict[str, Measured]]:
    measured = {side: {name: Measured() for name in SNIPPETS} for side in sides}
    async with AsyncExitStack() as stack:
        started: dict[str, Side] = {}
        for side, checkout in sides.items():
            started[side] = await (McpSide if layer == "mcp" else WorkerSide).start(checkout, stack)
        names = list(sides)
        for round_ in range(WARM_UP + calls):
            order = names[round_ % len(names) :] + names[: round_ % len(names)]
            for name, code in SNIPPETS.items():
                for side in order:
                    wall, used, inside = await started[side].call(code)
                    if round_ >= WARM_UP:
                        samples = measured[side][name]
                        samples.wall.append(wall)
                        samples.cpu.append(used)
                        samples.worker.append(inside)
            if round_ == 0:
                # The first calls built each project and started its JVM: let the machine settle before warming up.
                await anyio.sleep(10)
    return measured


def load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--side",
        action="append",
        default=[],
        metavar="NAME=CHECKOUT",
        help="a checkout to compare with this one (its own .venv); the first is the baseline",
    )
    parser.add_argument("--calls", type=int, default=40, help="warm calls of each snippet per side")
    parser.add_argument(
        "--layer",
        choices=("mcp", "worker"),
        default="mcp",
        help="mcp: through each side's MCP server; worker: each side's WorkerHandle on a worker directly",
    )
    args = parser.parse_args()
    sides = {name: Path(path).resolve() for name, path in (s.split("=", 1) for s in args.side)}
    sides["now"] = HERE
    if len(sides) < 2:
        parser.error("give at least one --side NAME=CHECKOUT to compare with")
    print(f"load average before: {load()}")
    began = time.monotonic()
    measured = anyio.run(measure, sides, args.calls, args.layer)
    print(f"load average after:  {load()} ({time.monotonic() - began:.0f} s)\n")
    baseline = next(iter(sides))
    print(
        f"layer {args.layer}, {args.calls} warm calls of each snippet per side, interleaved. Wall time p50/p95; the "
        "worker's part (p50); outside it (p50 of wall less the worker's part); the CPU time of the side's processes per "
        "call (mean)\n"
    )
    print(
        f"{'snippet':<24}{'side':<8}{'p50':>9}{'p95':>9}{'worker':>9}{'outside':>9}{'CPU':>9}  "
        f"ratio to {baseline}: p50, p95, worker, CPU"
    )
    for name in SNIPPETS:
        base = measured[baseline][name]
        for side in sides:
            m = measured[side][name]
            p50, p95, inside, used = (
                percentile(m.wall, 0.5),
                percentile(m.wall, 0.95),
                percentile(m.worker, 0.5),
                statistics.mean(m.cpu),
            )
            # The rest of each call (server, host, pipes, client): wall less the worker's part, call by call.
            outside = percentile([wall - worker for wall, worker in zip(m.wall, m.worker, strict=False)], 0.5)
            ratios = [
                p50 / percentile(base.wall, 0.5),
                p95 / percentile(base.wall, 0.95),
                inside / max(percentile(base.worker, 0.5), 1e-9),
                used / max(statistics.mean(base.cpu), 1e-9),
            ]
            print(
                f"{name:<24}{side:<8}{p50 * 1000:>7.1f}ms{p95 * 1000:>7.1f}ms{inside * 1000:>7.1f}ms{outside * 1000:>7.1f}ms"
                f"{used * 1000:>7.1f}ms  " + ", ".join(f"{r:.2f}x" for r in ratios)
            )


if __name__ == "__main__":
    main()
