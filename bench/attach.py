"""Measures attached sessions (issue 36, and issue 58's attach over TCP) against a normal session, in one run on this
machine, and prints a table.

    .venv/bin/python bench/attach.py [--runs 60]

The target is tests/projects/attach-plain (a plain Kotlin `main`, resolved and built with Maven) started with
`java -cp` and gradle-repl's agent listening on TCP behind a token (`-javaagent:<jar>=listen=0,tokenFile=…`, a port
the agent picks and names on the app's stderr); one session attaches to it by pid (the agent loaded again, listening
on its Unix socket too), a second over TCP as `front/attaching.py` does it (the hello, the class path fetched over the
connection, `remote_environment`), and the normal session is a worker on the same project's environment. All are
driven through the worker protocol (WorkerHandle), as the server drives them: attach by pid to first result (the
agent already built), warm trivial snippet p50/p95 (after warm-up runs) attached by pid and normal, the app's RSS
growth after 100 snippets of the pid session (a trivial expression and a declared class, alternately), each RSS taken
after a full collection; then attach over TCP to first result, and the warm trivial snippet of a new pid session (the
local socket) and the TCP session, both new, interleaved (one call on each per round, which goes first alternating),
p50/p95 and their ratio. Nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import asyncio
import queue
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

import psutil

from gradle_repl.environment import Attached, AttachedOverTcp, SessionSpec
from gradle_repl.frames import SuccessResult, WorkerOptions
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.project.attach_target import attach_environment, remote_environment
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.worker.artifacts.agent_jar import agent_package, build_agent_jar
from gradle_repl.worker.link.agent_address import AgentAddress
from gradle_repl.worker.link.agent_wire import CONNECT_TIMEOUT_SECONDS, AgentConnection
from gradle_repl.worker.link.app_classpath import fetch_app_classpath

SHOP = Path(__file__).resolve().parents[1] / "tests" / "projects" / "attach-plain"
TRIVIAL = "1 + 1"
CLASS = 'data class Row{n}(val id: Int, val name: String)\nRow{n}({n}, "r").name.length'
OPTIONS = WorkerOptions(heap_mb=512)
# The agent's line on the app's stderr when it listens on TCP (AttachAgent.listenOnPort).
LISTENS = re.compile(r"gradle-repl's agent listens on \S*?:(\d+) \(a token is required\)")
LISTEN_SECONDS = 60.0


async def _ok(worker: WorkerHandle, code: str) -> float:
    started = time.perf_counter()
    reply = await worker.request(code, timeout_seconds=60)
    assert isinstance(reply.result, SuccessResult), reply.result
    return (time.perf_counter() - started) * 1000


async def _latencies(worker: WorkerHandle, runs: int, warm_up: int) -> list[float]:
    for _ in range(warm_up):
        await _ok(worker, TRIVIAL)
    return [await _ok(worker, TRIVIAL) for _ in range(runs)]


async def _interleaved(
    first: WorkerHandle, second: WorkerHandle, runs: int, warm_up: int
) -> tuple[list[float], list[float]]:
    """The two sessions' trivial snippet, one call on each per round, the one that goes first alternating: the machine's
    load falls on both alike."""
    for _ in range(warm_up):
        await _ok(first, TRIVIAL)
        await _ok(second, TRIVIAL)
    first_ms: list[float] = []
    second_ms: list[float] = []
    for n in range(runs):
        if n % 2:
            second_ms.append(await _ok(second, TRIVIAL))
            first_ms.append(await _ok(first, TRIVIAL))
        else:
            first_ms.append(await _ok(first, TRIVIAL))
            second_ms.append(await _ok(second, TRIVIAL))
    return first_ms, second_ms


def _settled_rss(target: psutil.Process, java_home: str) -> int:
    """The app's RSS after a full collection (`jcmd GC.run`): what it holds, not garbage not yet collected — the app
    runs with the JVM's default heap (a quarter of RAM), so its RSS otherwise grows with every allocation until a
    collection, snippets or none. G1 gives heap back after a full collection, so the two samples compare alike."""
    subprocess.run([str(Path(java_home) / "bin" / "jcmd"), str(target.pid), "GC.run"], check=True, capture_output=True)
    return target.memory_info().rss


def _p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1]


def _listen_port(stderr: IO[str]) -> int:
    """The port the app's agent picked, from its line on the app's stderr; the rest of stderr goes on to ours (read
    on a thread, so the app never blocks on a full pipe)."""
    found: queue.Queue[int] = queue.Queue()

    def read() -> None:
        for line in stderr:
            if match := LISTENS.search(line):
                found.put(int(match.group(1)))
            else:
                sys.stderr.write(line)

    threading.Thread(target=read, name="app-stderr", daemon=True).start()
    try:
        return found.get(timeout=LISTEN_SECONDS)
    except queue.Empty:
        raise SystemExit(f"the app's agent did not say where it listens within {LISTEN_SECONDS:g} s") from None


async def _attach_over_tcp(address: AgentAddress, token: str, jar: Path) -> WorkerHandle:
    """A session attached over TCP as front/attaching.py's _attach_over_tcp makes it (no project named): the agent's
    hello and the app's class path over one connection, the environment from it, then the worker."""
    app = f"the app at {address}"
    connection = await asyncio.to_thread(
        AgentConnection.connect_tcp, address, token, agent=agent_package(jar), timeout=CONNECT_TIMEOUT_SECONDS
    )
    try:
        classpath = await asyncio.to_thread(fetch_app_classpath, connection, app)
    finally:
        connection.close()
    hello = connection.hello
    environment = await asyncio.to_thread(remote_environment, classpath, hello.java_version, app)
    placement = AttachedOverTcp(address=str(address), token=token, run=hello.run)
    return await WorkerHandle.launch(
        SessionSpec(environment=environment, placement=placement), OPTIONS, label="bench-attached-tcp"
    )


async def main(runs: int) -> None:
    environment = resolve_environment(SHOP, build_tool="maven").environment
    jar = build_agent_jar(environment.java_home)
    token = secrets.token_urlsafe(32)
    with tempfile.TemporaryDirectory(prefix="bench-attach-") as scratch:
        token_file = Path(scratch) / "token"
        token_file.touch(mode=0o600)
        token_file.write_text(token)
        command = [
            environment.java_executable,
            f"-javaagent:{jar}=listen=0,tokenFile={token_file}",
            "-cp",
            ":".join(environment.classpath),
            "shop.ShopKt",
        ]
        app = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            assert app.stdout is not None and app.stderr is not None
            address = AgentAddress("127.0.0.1", _listen_port(app.stderr))
            assert app.stdout.readline().strip() == "ready"
            target = psutil.Process(app.pid)
            rss_before_attach = target.memory_info().rss
            by_pid = SessionSpec(environment=attach_environment(app.pid), placement=Attached(pid=app.pid))
            started = time.perf_counter()
            attached = await WorkerHandle.launch(by_pid, OPTIONS, label="bench-attached")
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
            # Over TCP against the local socket: two new sessions in the same app (its agent listens on both), so
            # neither carries the other's history of snippets, which a snippet's compile grows with.
            local = await WorkerHandle.launch(by_pid, OPTIONS, label="bench-attached-socket")
            try:
                started = time.perf_counter()
                over_tcp = await _attach_over_tcp(address, token, jar)
                await _ok(over_tcp, TRIVIAL)
                tcp_first_result_ms = (time.perf_counter() - started) * 1000
                try:
                    socket_ms, tcp_ms = await _interleaved(local, over_tcp, runs, 20)
                finally:
                    await over_tcp.stop()
            finally:
                await local.stop()
        finally:
            app.kill()
            app.wait()
    rows = [
        ("attach to first result (agent built, app not yet attached)", f"{first_result_ms:.0f} ms", "", ""),
        (
            "attach over TCP to first result (hello, class path listed and fetched unless kept, worker start)",
            f"{tcp_first_result_ms:.0f} ms",
            "",
            "",
        ),
        (
            f"warm trivial snippet, p50 / p95 of {runs}",
            f"{_p(attached_ms, 50):.0f} / {_p(attached_ms, 95):.0f} ms",
            f"normal {_p(normal_ms, 50):.0f} / {_p(normal_ms, 95):.0f} ms",
            f"{_p(attached_ms, 50) / _p(normal_ms, 50):.2f}x (p50)",
        ),
        (
            f"warm trivial snippet over TCP vs local socket, interleaved, p50 / p95 of {runs}",
            f"TCP {_p(tcp_ms, 50):.1f} / {_p(tcp_ms, 95):.1f} ms",
            f"socket {_p(socket_ms, 50):.1f} / {_p(socket_ms, 95):.1f} ms",
            f"{_p(tcp_ms, 50) / _p(socket_ms, 50):.2f}x (p50), {_p(tcp_ms, 95) / _p(socket_ms, 95):.2f}x (p95); goal <= 1.2x",
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
