"""Measures attached sessions (issue 36) against a normal session, in one run on this machine, and prints a table.

    .venv/bin/python bench/attach.py [--runs 60]

The target is tests/projects/attach-plain (a plain Kotlin `main`, resolved and built with Maven) started with
`java -cp`; the normal session is a worker on the same project's environment. Both are driven through the worker
protocol (WorkerHandle), as the server drives them: attach to first result (the agent already built; the app not yet
attached), warm trivial snippet p50/p95 (after warm-up runs) attached and normal, and the app's RSS growth after 100
snippets (a trivial expression and a declared class, alternately), each RSS taken after a full collection. Nothing here
is asserted by tests.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil

from gradle_repl.environment import Attached, SessionSpec
from gradle_repl.frames import SuccessResult, WorkerOptions
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.project.attach_target import attach_environment
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.worker.artifacts.agent_jar import build_agent_jar

SHOP = Path(__file__).resolve().parents[1] / "tests" / "projects" / "attach-plain"
TRIVIAL = "1 + 1"
CLASS = 'data class Row{n}(val id: Int, val name: String)\nRow{n}({n}, "r").name.length'
OPTIONS = WorkerOptions(heap_mb=512)


async def _ok(worker: WorkerHandle, code: str) -> float:
    started = time.perf_counter()
    reply = await worker.request(code, timeout_seconds=60)
    assert isinstance(reply.result, SuccessResult), reply.result
    return (time.perf_counter() - started) * 1000


async def _latencies(worker: WorkerHandle, runs: int, warm_up: int) -> list[float]:
    for _ in range(warm_up):
        await _ok(worker, TRIVIAL)
    return [await _ok(worker, TRIVIAL) for _ in range(runs)]


def _settled_rss(target: psutil.Process, java_home: str) -> int:
    """The app's RSS after a full collection (`jcmd GC.run`): what it holds, not garbage not yet collected — the app
    runs with the JVM's default heap (a quarter of RAM), so its RSS otherwise grows with every allocation until a
    collection, snippets or none. G1 gives heap back after a full collection, so the two samples compare alike."""
    subprocess.run([str(Path(java_home) / "bin" / "jcmd"), str(target.pid), "GC.run"], check=True, capture_output=True)
    return target.memory_info().rss


def _p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1]


async def main(runs: int) -> None:
    environment = resolve_environment(SHOP, build_tool="maven").environment
    build_agent_jar(environment.java_home)
    command = [environment.java_executable, "-cp", ":".join(environment.classpath), "shop.ShopKt"]
    app = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert app.stdout is not None and app.stdout.readline().strip() == "ready"
        target = psutil.Process(app.pid)
        rss_before_attach = target.memory_info().rss
        started = time.perf_counter()
        attached = await WorkerHandle.launch(
            SessionSpec(environment=attach_environment(app.pid), placement=Attached(pid=app.pid)),
            OPTIONS,
            label="bench-attached",
        )
        await _ok(attached, TRIVIAL)
        first_result_ms = (time.perf_counter() - started) * 1000
        normal = await WorkerHandle.launch(SessionSpec(environment=environment), OPTIONS, label="bench-normal")
        try:
            attached_ms = await _latencies(attached, runs, 20)
            normal_ms = await _latencies(normal, runs, 20)
        finally:
            await normal.stop()
        rss_attached = _settled_rss(target, environment.java_home)
        for n in range(100):
            await _ok(attached, TRIVIAL if n % 2 else CLASS.format(n=n))
        rss_after = _settled_rss(target, environment.java_home)
        await attached.stop()
    finally:
        app.kill()
        app.wait()
    rows = [
        ("attach to first result (agent built, app not yet attached)", f"{first_result_ms:.0f} ms", "", ""),
        (
            f"warm trivial snippet, p50 / p95 of {runs}",
            f"{_p(attached_ms, 50):.0f} / {_p(attached_ms, 95):.0f} ms",
            f"normal {_p(normal_ms, 50):.0f} / {_p(normal_ms, 95):.0f} ms",
            f"{_p(attached_ms, 50) / _p(normal_ms, 50):.2f}x (p50)",
        ),
        (
            "app RSS: before attach, attached, after 100 snippets",
            f"{rss_before_attach >> 20} / {rss_attached >> 20} / {rss_after >> 20} MB",
            "",
            f"+{(rss_after - rss_attached) >> 20} MB for 100 snippets",
        ),
    ]
    for row in rows:
        print(" | ".join(row))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=60)
    asyncio.run(main(parser.parse_args().runs))
    sys.exit(0)
