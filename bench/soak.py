"""A long session at the default heap: does it finish, and how do memory and latency grow?

    .venv/bin/python bench/soak.py [--snippets 2000]

Through the real MCP server over stdio (SDK client), one session on sample-project runs a mix of what
an agent sends — values, functions, data classes, calls into project code — and records, at 100,
500, 1,000 and 2,000 snippets: the worker's RSS (from list_kotlin_sessions), the live heap after a
GC, and the p50 latency of the last 100 snippets. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

SAMPLE = Path(__file__).resolve().parents[1] / "sample-project"
CHECKPOINTS = (100, 500, 1000, 2000)
HEAP_AFTER_GC = "System.gc(); (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) / 1048576"


def snippet(i: int) -> str:
    kind = i % 4
    if kind == 0:
        return f"val v{i} = List(100) {{ it * {i} }}.sum()"
    if kind == 1:
        return f"fun f{i}(x: Int) = x + {i}\nf{i}(1)"
    if kind == 2:
        return f'data class D{i}(val a: Int, val b: String = "{i}")\nD{i}(1).copy(a = 2)'
    return "sample.classics.books.map { it.title }.size"


async def soak(total: int) -> list[tuple[int, float, float, float]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "gradle_repl", "serve", "--no-spare-worker"], env=dict(os.environ)
    )
    args = {"projectRoot": str(SAMPLE), "buildTool": "maven", "sessionId": "soak"}
    rows: list[tuple[int, float, float, float]] = []
    async with Client(params, read_timeout_seconds=600) as client:

        async def call(code: str) -> tuple[float, str]:
            started = time.monotonic()
            result = await client.call_tool("run_kotlin_snippet", {**args, "code": code})
            first = result.content[0]
            assert isinstance(first, TextContent), result.content
            text = first.text
            warning = next(
                (b.text for b in result.content if isinstance(b, TextContent) and b.text.startswith("memory:")), None
            )
            if warning and not warned:
                warned.append(warning)
                print(f"first heap warning after {len(latencies) + 1} snippets: {warning}", flush=True)
            if result.is_error:
                raise SystemExit(f"snippet failed: {text}")
            return time.monotonic() - started, text

        latencies: list[float] = []
        warned: list[str] = []
        for i in range(1, total + 1):
            try:
                latencies.append((await call(snippet(i)))[0])
            except SystemExit as failure:
                print(f"stopped at snippet {i}: {failure}", flush=True)
                rows.append((i, float("nan"), float("nan"), float("nan")))
                break
            if i in CHECKPOINTS or i == total:
                listed = (await client.call_tool("list_kotlin_sessions", {})).content[0]
                assert isinstance(listed, TextContent), listed
                sessions = json.loads(listed.text)
                rss = next(s["workerRssBytes"] for s in sessions if s["sessionId"] == "soak") / 2**20
                heap = float((await call(HEAP_AFTER_GC))[1].split("\n")[0])
                rows.append((i, rss, heap, statistics.median(latencies[-100:]) * 1000))
                print(
                    f"{i:5d} snippets: RSS {rss:.0f} MB, live heap {heap:.0f} MB, p50 {rows[-1][3]:.0f} ms", flush=True
                )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--snippets", type=int, default=2000)
    total = parser.parse_args().snippets
    rows = anyio.run(soak, total)
    print("\n| snippets | worker RSS | live heap after GC | p50 of the last 100 |")
    print("|---|---|---|---|")
    for i, rss, heap, p50 in rows:
        print(f"| {i} | {rss:.0f} MB | {heap:.0f} MB | {p50:.0f} ms |")


if __name__ == "__main__":
    main()
