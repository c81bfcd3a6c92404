"""Measures what a session in its own JVM delivers of a snippet that prints fast, and what printing costs, in one run.

    .venv/bin/python bench/output.py [--runs 5]

A real worker on sample-project (resolved with Maven), driven through the worker protocol as the server drives it,
with the default limits (frame 200 KB, output 1 MB). Each case prints N lines of 50 bytes in a tight loop; the table
gives, per case, the bytes delivered, the frames they came in, the bytes counted as cut, and the reply's time
(p50 of the runs) against the same loop building the lines into a StringBuilder without printing them. Nothing
here is asserted by tests.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from gradle_repl.environment import SessionSpec
from gradle_repl.frames import StreamFrame, SuccessResult, WorkerOptions
from gradle_repl.host.handle import Reply, WorkerHandle
from gradle_repl.project.resolve import resolve_environment

SAMPLE = Path(__file__).resolve().parents[1] / "sample-project"
# 49 characters and the line end: 50 bytes a line.
_LINE = '"line " + it.toString().padStart(6, \'0\') + "-".repeat(38)'
PRINTED = "repeat({lines}) {{ println(" + _LINE + ") }}"
BUILT = "val sb = StringBuilder()\nrepeat({lines}) {{ sb.append(" + _LINE + ").append('\\n') }}\nsb.length"
CASES = (10_000, 40_000)  # 500 KB (under the output limit), 2 MB (over it)


async def _timed(worker: WorkerHandle, code: str) -> tuple[float, Reply]:
    started = time.perf_counter()
    reply = await worker.request(code, timeout_seconds=60)
    assert isinstance(reply.result, SuccessResult), reply.result
    return (time.perf_counter() - started) * 1000, reply


async def main(runs: int) -> None:
    environment = resolve_environment(SAMPLE, build_tool="maven").environment
    worker = await WorkerHandle.launch(
        SessionSpec(environment=environment), WorkerOptions(heap_mb=512), label="bench-output"
    )
    try:
        for lines in CASES:  # warm-up: both snippets compiled and run once
            await _timed(worker, PRINTED.format(lines=lines))
            await _timed(worker, BUILT.format(lines=lines))
        rows = []
        for lines in CASES:
            printed = [await _timed(worker, PRINTED.format(lines=lines)) for _ in range(runs)]
            built = [(await _timed(worker, BUILT.format(lines=lines)))[0] for _ in range(runs)]
            reply = printed[-1][1]
            streams = [frame for frame in reply.frames if isinstance(frame, StreamFrame)]
            delivered = sum(len(frame.data.encode()) for frame in streams)
            took = statistics.median(ms for ms, _ in printed)
            rows.append(
                (
                    f"{lines * 50:,} bytes printed",
                    f"{delivered:,}",
                    str(len(streams)),
                    f"{reply.result.truncated_bytes:,}",
                    f"{took:.0f} ms",
                    f"{statistics.median(built):.0f} ms",
                )
            )
    finally:
        await worker.stop()
    header = ("case", "delivered", "frames", "counted as cut", f"reply (p50 of {runs})", "not printed (p50)")
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    for n, row in enumerate((header, *rows)):
        print("| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |")
        if n == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    asyncio.run(main(parser.parse_args().runs))
