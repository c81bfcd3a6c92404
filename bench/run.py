"""Measures gradle-repl against the alternatives, in one run on this machine, and prints a table.

    .venv/bin/python bench/run.py [--runs 60]

Everything goes through the real MCP server over stdio, against sample-project (resolved with Maven).
The alternatives, measured in the same run: each snippet as a Kotlin script (`K2JVMCompiler -script`
with the same classpath and the same compiler jars — what an agent does without a REPL), a JShell
one-shot for a comparable Java expression, and the Kotlin Jupyter kernel in K1 and K2 modes on the same
snippets (bench/kernel.py installs it into a venv of its own). Last, four sessions' memory busy and idle.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from gradle_repl.environment import ReplEnvironment, SessionSpec
from gradle_repl.frames import WorkerOptions
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.worker.artifacts import classdata

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernel import KERNEL_VERSION, KernelJob, KernelResult, measure_kernel

SAMPLE = Path(__file__).resolve().parents[1] / "sample-project"
TRIVIAL = "1 + 1"
CALL = "sample.displayTitle(sample.classics.books.first().title)"
CLASS_30_LINES = "\n".join(
    ["data class Invoice(val id: Int, val lines: List<Pair<String, Int>>) {"]
    + [f"    fun part{i}() = lines.sumOf {{ it.second }} * {i}" for i in range(27)]
    + ["}", 'Invoice(1, listOf("a" to 2)).part3()']
)
SNIPPETS = {"trivial expression": TRIVIAL, "30-line class": CLASS_30_LINES, "call into project": CALL}
# The RSS rows: a fresh session, one snippet, then these 100.
RSS_FIRST = "val warm = 1"
RSS_SNIPPETS = [f"val v{i} = List(1000) {{ it * {i} }}.sum()" for i in range(100)]
WARM_UP_RUNS = 20


def first_text(result: CallToolResult) -> str:
    """A tool result's first block, which is its text."""
    block = result.content[0]
    assert isinstance(block, TextContent), result.content
    return block.text


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms(seconds: float) -> str:
    if seconds < 0.001:
        return f"{seconds * 1000:.2f} ms"
    if seconds < 0.01:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def script_run_seconds(env: ReplEnvironment, code: str, runs: int) -> float:
    """A snippet as a .kts script, compiled and run by a fresh compiler JVM each time."""
    host = os.pathsep.join(env.repl_host_classpath)
    scripting = next(p for p in env.repl_host_classpath if "kotlin-scripting-compiler-embeddable" in p)
    plugins = [f"-Xplugin={p}" for p in env.compiler_plugin_classpath]
    times = []
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "snippet.kts"
        *body, last = code.splitlines()
        script.write_text("\n".join([*body, f"println({last})"]) + "\n")
        for _ in range(runs):
            started = time.monotonic()
            done = subprocess.run(
                [
                    env.java_executable,
                    "-cp",
                    host,
                    "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler",
                    "-no-stdlib",
                    f"-Xplugin={scripting}",
                    *plugins,
                    "-classpath",
                    os.pathsep.join(env.classpath + env.repl_host_classpath),
                    "-script",
                    str(script),
                ],
                capture_output=True,
                text=True,
            )
            times.append(time.monotonic() - started)
            assert done.returncode == 0, done.stderr
    return statistics.median(times)


def jshell_seconds(env: ReplEnvironment, runs: int) -> float | None:
    jshell = Path(env.java_home) / "bin" / "jshell"
    if not jshell.exists():
        return None
    times = []
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "one.jsh"
        script.write_text("System.out.println(1 + 1);\n/exit\n")
        for _ in range(runs):
            started = time.monotonic()
            subprocess.run([str(jshell), "-q", str(script)], capture_output=True, check=True)
            times.append(time.monotonic() - started)
    return statistics.median(times)


async def mcp_measurements(runs: int) -> dict[str, object]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "gradle_repl", "serve"], env=dict(os.environ))
    args = {"projectRoot": str(SAMPLE), "buildTool": "maven"}
    results: dict[str, object] = {}
    async with Client(params, read_timeout_seconds=600) as client:

        async def call(code: str, session: str = "bench") -> float:
            started = time.monotonic()
            result = await client.call_tool("run_kotlin_snippet", {**args, "code": code, "sessionId": session})
            elapsed = time.monotonic() - started
            assert not result.is_error, result.content
            return elapsed

        results["first session ever, first result (compiles the facade)"] = await call(TRIVIAL)
        # Steady state: the spare worker started after the first call warms up on the same two cores.
        await anyio.sleep(10)
        for name, code in SNIPPETS.items():
            for _ in range(WARM_UP_RUNS):
                await call(code)
            results[name] = [await call(code) for _ in range(runs)]
        results["new session, first result"] = await call(TRIVIAL, session="fresh")

        async def rss() -> int:
            sessions = json.loads(first_text(await client.call_tool("list_kotlin_sessions", {})))
            return int(next(s["workerRssBytes"] for s in sessions if s["sessionId"] == "rss"))

        await call(RSS_FIRST, session="rss")
        before = await rss()
        for code in RSS_SNIPPETS:
            await call(code, session="rss")
        after = await rss()
        results["rss"] = (before, after)
    return results


# Check and completion (issue 25): the snippets a session holds before completions are timed, and the checks and
# completions in a row whose effect on the worker's live heap is measured.
SESSION_SNIPPETS = 50
ANALYSIS_IN_A_ROW = 500
COMPLETIONS = ["held3.ma", "sample.", "twice", "listOf(1).fi", "held7.", "Spot(1, 2).", "sample.classics.bo", "Str"]
LIVE_HEAP = "System.gc(); System.gc()\njava.lang.management.ManagementFactory.getMemoryMXBean().heapMemoryUsage.used"


async def analysis_measurements(runs: int) -> dict[str, object]:
    """check_kotlin_snippet against run_kotlin_snippet on the same code, in one session; completion after
    SESSION_SNIPPETS snippets; the live heap (after full collections) before and after ANALYSIS_IN_A_ROW checks and
    completions."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "gradle_repl", "serve", "--no-spare-worker"], env=dict(os.environ)
    )
    args = {"projectRoot": str(SAMPLE), "buildTool": "maven", "sessionId": "analysis"}
    results: dict[str, object] = {}
    async with Client(params, read_timeout_seconds=600) as client:

        async def call(tool: str, **arguments: object) -> tuple[float, CallToolResult]:
            started = time.monotonic()
            result = await client.call_tool(tool, {**args, **arguments})
            elapsed = time.monotonic() - started
            assert not result.is_error, result.content
            return elapsed, result

        for name, code in SNIPPETS.items():
            runs_of, checks_of = [], []
            for index in range(WARM_UP_RUNS + runs):
                run_seconds, _ = await call("run_kotlin_snippet", code=code)
                check_seconds, _ = await call("check_kotlin_snippet", code=code)
                if index >= WARM_UP_RUNS:
                    runs_of.append(run_seconds)
                    checks_of.append(check_seconds)
            results[f"run {name}"], results[f"check {name}"] = runs_of, checks_of
        await call(
            "run_kotlin_snippet",
            code="import sample.*\nfun twice(x: Int) = 2 * x\ndata class Spot(val x: Int, val y: Int)",
        )
        for i in range(SESSION_SNIPPETS - 1):
            await call("run_kotlin_snippet", code=f"val held{i} = listOf({i}, {i + 1})")
        completions = []
        for index in range(WARM_UP_RUNS + runs):
            seconds, result = await call("complete_kotlin_snippet", code=COMPLETIONS[index % len(COMPLETIONS)])
            assert result.structured_content and result.structured_content["items"], (
                COMPLETIONS[index % len(COMPLETIONS)],
                result.content,
            )
            if index >= WARM_UP_RUNS:
                completions.append(seconds)
        results["completion"] = completions

        async def live_heap() -> int:
            _, result = await call("run_kotlin_snippet", code=LIVE_HEAP)
            assert result.structured_content is not None, result.content
            return int(result.structured_content["value"])

        await live_heap()
        before = await live_heap()
        for index in range(ANALYSIS_IN_A_ROW):
            if index % 2:
                await call("complete_kotlin_snippet", code=COMPLETIONS[index % len(COMPLETIONS)])
            else:
                await call(
                    "check_kotlin_snippet",
                    code=f"val checked{index} = held{index % 40}.map {{ it * {index} }}\nchecked{index}",
                )
        results["live heap"] = (before, await live_heap())
    return results


def analysis_rows(measured: dict[str, object]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = [("measure", "gradle-repl", "alternative", "ratio")]
    for name in SNIPPETS:
        checks, runs = measured[f"check {name}"], measured[f"run {name}"]
        assert isinstance(checks, list) and isinstance(runs, list)
        check_p50, run_p50 = percentile(checks, 0.5), percentile(runs, 0.5)
        rows.append(
            (
                f"check, {name} (p50 / p95 of {len(checks)})",
                f"{ms(check_p50)} / {ms(percentile(checks, 0.95))}",
                f"run {ms(run_p50)}",
                f"{run_p50 / check_p50:.2f}x the run's speed",
            )
        )
    completions = measured["completion"]
    assert isinstance(completions, list)
    rows.append(
        (
            f"completion after {SESSION_SNIPPETS} snippets (p50 / p95 of {len(completions)})",
            f"{ms(percentile(completions, 0.5))} / {ms(percentile(completions, 0.95))}",
            "—",
            "—",
        )
    )
    heap = measured["live heap"]
    assert isinstance(heap, tuple)
    before, after = heap
    rows.append(
        (
            f"live heap after {ANALYSIS_IN_A_ROW} checks and completions",
            f"{after / 2**20:.0f} MB",
            f"before {before / 2**20:.0f} MB",
            f"{(after - before) / 2**20:+.1f} MB",
        )
    )
    return rows


async def ensure_class_data(env: ReplEnvironment) -> None:
    """The class-data archive a launched worker maps, trained now when the cache has none (the facade built with it)."""
    archive = classdata.archive_path(env.java_home, env.repl_host_classpath)
    if archive is not None and not archive.exists():
        trainer = await WorkerHandle.launch(
            SessionSpec(environment=env), WorkerOptions(), label="bench-class-data", role="class-data"
        )
        await trainer.transport.wait()


async def worker_start_seconds(env: ReplEnvironment, runs: int) -> tuple[dict[bool, float], float]:
    """Spawn to 'ready' (JVM, compiler), with and without the class-data archive, alternating; and with the archive,
    spawn to the first result of `1 + 1` (what a new session costs without a spare worker). Launched as the server
    launches a worker a call waits for: no warm-up snippet before 'ready' (StartRequest.warm_up)."""
    await ensure_class_data(env)
    times: dict[bool, list[float]] = {True: [], False: []}
    first_results = []
    for _ in range(runs):
        for sharing in (True, False):
            started = time.monotonic()
            worker = await WorkerHandle.launch(
                SessionSpec(environment=env),
                WorkerOptions(class_data_sharing=sharing),
                label="bench-start",
                warm_up=False,
            )
            times[sharing].append(time.monotonic() - started)
            if sharing:
                assert (await worker.request(TRIVIAL, timeout_seconds=120)).result.type == "success"
                first_results.append(time.monotonic() - started)
            await worker.stop()
    return {sharing: statistics.median(samples) for sharing, samples in times.items()}, statistics.median(first_results)


IDLE_SESSIONS = 4
# "Within a minute of idleness": the RSS the idle sessions hold this long after their last snippet.
IDLE_SECONDS = 60.0
IDLE_POLL_SECONDS = 5.0


async def idle_memory_measurements(runs: int) -> dict[str, object]:
    """Four sessions run the RSS snippets one after another, then sit idle: their total RSS busy (each session's
    right after its last snippet) and IDLE_SECONDS after the last one, the warm latencies of the first session,
    and each session's first snippet after the idle minute."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gradle_repl", "serve", "--max-sessions", str(IDLE_SESSIONS), "--no-spare-worker"],
        env=dict(os.environ),
    )
    args = {"projectRoot": str(SAMPLE), "buildTool": "maven"}
    sessions = [f"idle{i}" for i in range(IDLE_SESSIONS)]
    results: dict[str, object] = {}
    async with Client(params, read_timeout_seconds=600) as client:

        async def call(code: str, session: str) -> float:
            started = time.monotonic()
            result = await client.call_tool("run_kotlin_snippet", {**args, "code": code, "sessionId": session})
            assert not result.is_error, result.content
            return time.monotonic() - started

        async def rss(among: list[str]) -> int:
            listed = json.loads(first_text(await client.call_tool("list_kotlin_sessions", {})))
            return sum(int(s["workerRssBytes"]) for s in listed if s["sessionId"] in among)

        busy = 0
        for index, session in enumerate(sessions):
            await call(RSS_FIRST, session)
            for code in RSS_SNIPPETS:
                await call(code, session)
            if index == 0:  # warm latencies, on a session that has run the same 100 snippets as the others
                for name, code in (("trivial expression", TRIVIAL), ("30-line class", CLASS_30_LINES)):
                    for _ in range(WARM_UP_RUNS):
                        await call(code, session)
                    results[name] = [await call(code, session) for _ in range(runs)]
            # Each session's busy figure right after its own work: the others run one after another.
            busy += await rss([session])
        results["busy"] = busy
        idle_since = time.monotonic()
        trace = []
        while (idle := time.monotonic() - idle_since) < IDLE_SECONDS:
            await anyio.sleep(min(IDLE_POLL_SECONDS, IDLE_SECONDS - idle))
            trace.append(await rss(sessions))
        results["idle"] = trace[-1]
        results["trace"] = trace
        results["first after idle"] = [await call(TRIVIAL, session) for session in sessions]
    return results


def idle_rows(measured: dict[str, object]) -> list[tuple[str, ...]]:
    def mb(b: float) -> str:
        return f"{b / 2**20:.0f} MB"

    busy, idle = measured["busy"], measured["idle"]
    assert isinstance(busy, int) and isinstance(idle, int)
    rows: list[tuple[str, ...]] = [("measure", "gradle-repl", "goal")]
    rows.append((f"{IDLE_SESSIONS} sessions' total RSS after {len(RSS_SNIPPETS)} snippets each, busy", mb(busy), "—"))
    rows.append(
        (
            f"the same, {IDLE_SECONDS:.0f} s after the last snippet",
            mb(idle),
            f"≤ 60% of busy: {'met' if idle <= 0.6 * busy else 'missed'} ({idle / busy:.0%})",
        )
    )
    for name in ("trivial expression", "30-line class"):
        samples = measured[name]
        assert isinstance(samples, list)
        rows.append(
            (
                f"warm {name} p50 / p95 (of {len(samples)}), first session",
                f"{ms(percentile(samples, 0.5))} / {ms(percentile(samples, 0.95))}",
                "—",
            )
        )
    first = measured["first after idle"]
    assert isinstance(first, list)
    rows.append(
        ("first trivial snippet after the idle minute (p50 of the 4 sessions)", ms(statistics.median(first)), "—")
    )
    return rows


def generate_large_project(directory: Path, files: int) -> Path:
    """sample-project's build (same dependencies and plugins) with `files` generated Kotlin sources in 50 packages."""
    project = directory / "large-project"
    pom = (
        (SAMPLE / "pom.xml")
        .read_text()
        .replace("<artifactId>sample-project</artifactId>", "<artifactId>large-project</artifactId>", 1)
    )
    (project / "src/main/kotlin").mkdir(parents=True)
    (project / "pom.xml").write_text(pom)
    for i in range(files):
        package = project / "src/main/kotlin/gen" / f"p{i % 50}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"F{i}.kt").write_text(f"package gen.p{i % 50}\n\nfun f{i}(x: Int): Int = x + {i}\n")
    return project


async def large_project_measurements(large: Path, runs: int) -> tuple[list[float], list[float]]:
    """Warm trivial snippets on sample-project and on the large project, alternating, through one server."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "gradle_repl", "serve"], env=dict(os.environ))
    samples: dict[Path, list[float]] = {SAMPLE: [], large: []}
    async with Client(params, read_timeout_seconds=900) as client:

        async def call(root: Path) -> float:
            started = time.monotonic()
            result = await client.call_tool(
                "run_kotlin_snippet",
                {"projectRoot": str(root), "buildTool": "maven", "code": TRIVIAL, "sessionId": root.name},
            )
            assert not result.is_error, result.content
            return time.monotonic() - started

        for _ in range(20):
            await call(SAMPLE)
            await call(large)
        for _ in range(runs):
            for root in (SAMPLE, large):
                samples[root].append(await call(root))
    return samples[SAMPLE], samples[large]


@asynccontextmanager
async def _http_client(token: str) -> AsyncIterator[Client]:
    """`serve --http` on a free port, and the SDK's Streamable HTTP client of it."""
    with tempfile.NamedTemporaryFile(prefix="gradle-repl-http-", suffix=".log", delete=False) as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "gradle_repl", "serve", "--http", "--port", "0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            env={**os.environ, "GRADLE_REPL_TOKEN": token},
        )
    try:
        url = None
        while url is None:
            assert server.poll() is None, Path(log.name).read_text()
            url = next(iter(re.findall(r"Streamable HTTP at (\S+)", Path(log.name).read_text())), None)
            await anyio.sleep(0.05)
        async with (
            httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=600)
            ) as http,
            Client(streamable_http_client(url, http_client=http), read_timeout_seconds=600) as client,
        ):
            yield client
    finally:
        server.terminate()
        server.wait()
        os.unlink(log.name)


async def transport_measurements(runs: int) -> dict[str, list[float]]:
    """A warm trivial snippet's round trip through the same server over stdio and over HTTP, one after the other."""
    stdio = StdioServerParameters(
        command=sys.executable, args=["-m", "gradle_repl", "serve", "--no-spare-worker"], env=dict(os.environ)
    )
    results: dict[str, list[float]] = {}
    for name, connect in (
        ("stdio", lambda: Client(stdio, read_timeout_seconds=600)),
        ("HTTP", lambda: _http_client(secrets.token_urlsafe(32))),
    ):
        async with connect() as client:

            async def call() -> float:
                started = time.monotonic()
                result = await client.call_tool(
                    "run_kotlin_snippet", {"projectRoot": str(SAMPLE), "buildTool": "maven", "code": TRIVIAL}
                )
                assert not result.is_error, result.content
                return time.monotonic() - started

            for _ in range(WARM_UP_RUNS):
                await call()
            results[name] = [await call() for _ in range(runs)]
    return results


def print_transport_table(runs: int) -> None:
    measured = anyio.run(transport_measurements, runs)
    stdio, http = (percentile(measured[name], 0.5) for name in ("stdio", "HTTP"))
    _print_table(
        [
            ("measure", "over HTTP", "over stdio", "ratio"),
            (
                f"warm snippet, trivial expression (p50 / p95 of {runs})",
                f"{ms(http)} / {ms(percentile(measured['HTTP'], 0.95))}",
                f"{ms(stdio)} / {ms(percentile(measured['stdio'], 0.95))}",
                f"{http / stdio:.2f}x the time",
            ),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=60, help="warm runs per snippet kind (default 60)")
    parser.add_argument("--script-runs", type=int, default=3, help="runs of each alternative (default 3)")
    parser.add_argument(
        "--large-files", type=int, default=5000, help="Kotlin files in the generated project (default 5000)"
    )
    parser.add_argument(
        "--large-only", action="store_true", help="only the generated large project against sample-project"
    )
    parser.add_argument("--no-kernel", action="store_true", help="leave out the Kotlin Jupyter kernel (K1 and K2)")
    parser.add_argument("--idle-only", action="store_true", help="only the memory of four idle sessions")
    parser.add_argument(
        "--kernel-only", action="store_true", help="only gradle-repl's snippets against the Kotlin Jupyter kernel"
    )
    parser.add_argument(
        "--transport-only", action="store_true", help="only a warm snippet over HTTP against over stdio"
    )
    parser.add_argument(
        "--analysis-only", action="store_true", help="only check and completion against runs of the same code"
    )
    options = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="gradle-repl-bench-"))
    os.environ["GRADLE_REPL_CACHE_DIR"] = str(cache)

    if options.transport_only:
        print_transport_table(options.runs)
        shutil.rmtree(cache, ignore_errors=True)
        return
    if options.analysis_only:
        resolve_environment(SAMPLE, build_tool="maven", refresh=True)
        _print_table(analysis_rows(anyio.run(analysis_measurements, options.runs)))
        print(f"load average (1 min) after: {os.getloadavg()[0]:.2f}")
        shutil.rmtree(cache, ignore_errors=True)
        return

    if options.idle_only:
        print_idle_table(options)
        shutil.rmtree(cache, ignore_errors=True)
        return
    if options.kernel_only:
        env = resolve_environment(SAMPLE, build_tool="maven", refresh=True).environment
        mcp = anyio.run(mcp_measurements, options.runs)
        _, first_result = anyio.run(worker_start_seconds, env, options.script_runs)
        print(f"load average (1 min) at the end of the gradle-repl rows: {os.getloadavg()[0]:.2f}")
        print_kernel_table(mcp, first_result, measure_kernels(env, options.runs))
        shutil.rmtree(cache, ignore_errors=True)
        return
    # The staleness check runs before every snippet: it must not grow with the project.
    large = generate_large_project(cache, options.large_files)
    started = time.monotonic()
    resolve_environment(large, build_tool="maven", refresh=True)
    large_cold = time.monotonic() - started
    small_runs, large_runs = anyio.run(large_project_measurements, large, options.runs)
    small_p50, large_p50 = percentile(small_runs, 0.5), percentile(large_runs, 0.5)
    large_row = (
        f"warm snippet, trivial, {options.large_files:,}-file project (p50 / p95 of {len(large_runs)})",
        f"{ms(large_p50)} / {ms(percentile(large_runs, 0.95))}",
        f"sample-project {ms(small_p50)}",
        f"{(large_p50 - small_p50) * 1000:+.1f} ms",
    )
    # The check alone, in process: a cache hit is the staleness check plus a dictionary lookup.
    small_hit, large_hit = (
        statistics.median(
            _seconds(functools.partial(resolve_environment, root, build_tool="maven")) for _ in range(200)
        )
        for root in (SAMPLE, large)
    )
    hit_row = (
        f"environment cache hit, {options.large_files:,}-file project (p50 of 200)",
        ms(large_hit),
        f"sample-project {ms(small_hit)}",
        f"{(large_hit - small_hit) * 1000:+.2f} ms",
    )
    print(f"generated project: {options.large_files} files, cold resolve {ms(large_cold)}", file=sys.stderr)
    if options.large_only:
        _print_table([("measure", "gradle-repl", "alternative", "ratio"), large_row, hit_row])
        shutil.rmtree(cache, ignore_errors=True)
        return

    started = time.monotonic()
    env = resolve_environment(SAMPLE, build_tool="maven", refresh=True).environment
    cold = time.monotonic() - started
    cached = []
    for _ in range(20):
        started = time.monotonic()
        assert resolve_environment(SAMPLE, build_tool="maven").from_cache
        cached.append(time.monotonic() - started)

    mcp = anyio.run(mcp_measurements, options.runs)
    script = {
        name: script_run_seconds(env, code, options.script_runs)
        for name, code in (
            ("trivial expression", TRIVIAL),
            ("30-line class", CLASS_30_LINES),
            ("call into project", CALL),
        )
    }
    jshell = jshell_seconds(env, options.script_runs)
    starts, first_result = anyio.run(worker_start_seconds, env, options.script_runs)
    loads = os.getloadavg()
    kernels = {} if options.no_kernel else measure_kernels(env, options.runs)
    shutil.rmtree(cache, ignore_errors=True)

    rows = [("measure", "gradle-repl", "alternative", "ratio")]
    for name in ("trivial expression", "30-line class", "call into project"):
        samples = mcp[name]
        assert isinstance(samples, list)
        p50, p95 = percentile(samples, 0.5), percentile(samples, 0.95)
        alternative = script.get(name)
        rows.append(
            (
                f"warm snippet, {name} (p50 / p95 of {len(samples)})",
                f"{ms(p50)} / {ms(p95)}",
                f"script {ms(alternative)}" if alternative else "—",
                f"{alternative / p50:.0f}x faster" if alternative else "—",
            )
        )
    if jshell is not None:
        trivial_runs = mcp["trivial expression"]
        assert isinstance(trivial_runs, list)
        trivial = percentile(trivial_runs, 0.5)
        rows.append(
            ("JShell one-shot, Java `1 + 1`", ms(trivial), f"jshell {ms(jshell)}", f"{jshell / trivial:.0f}x faster")
        )
    for name in ("first session ever, first result (compiles the facade)", "new session, first result"):
        first = mcp[name]
        assert isinstance(first, float)
        rows.append((f"{name} (environment cached)", ms(first), "—", "—"))
    rows.append(
        (
            f"worker start to ready, class-data archive (p50 of {options.script_runs})",
            ms(starts[True]),
            f"no archive {ms(starts[False])}",
            f"{starts[False] / starts[True]:.1f}x faster",
        )
    )
    rows.append(("environment resolution, cold (mvn)", ms(cold), "—", "—"))
    rows.append(
        (
            "environment resolution, cache hit (p50 of 20)",
            ms(statistics.median(cached)),
            "—",
            f"{cold / statistics.median(cached):.0f}x faster than cold",
        )
    )
    rss = mcp["rss"]
    assert isinstance(rss, tuple)
    before, after = rss
    rows.append(
        (
            "worker RSS after 100 snippets",
            f"{after / 2**20:.0f} MB",
            "—",
            f"+{(after - before) / 100 / 1024:.0f} KB per snippet",
        )
    )
    rows += [large_row, hit_row]
    _print_table(rows)
    print(f"load average (1 min) at the end of the gradle-repl rows: {loads[0]:.2f}")
    if kernels:
        print_kernel_table(mcp, first_result, kernels)
    print()
    _print_table(analysis_rows(anyio.run(analysis_measurements, options.runs)))
    print()
    print_idle_table(options)


def kernel_job(env: ReplEnvironment, mode: str, runs: int) -> KernelJob:
    """The kernel gets the same JDK, the project's classes and libraries, and the same snippets."""
    # The kernel brings its own Kotlin runtime; a second stdlib on its classpath would shadow it.
    own = ("kotlin-stdlib", "kotlin-reflect", "kotlin-script-runtime", "annotations-13")
    classpath = [p for p in env.classpath if not Path(p).name.startswith(own)]
    return KernelJob(
        mode=mode,
        java_home=env.java_home,
        classpath=classpath,
        first=TRIVIAL,
        snippets=SNIPPETS,
        warmup=WARM_UP_RUNS,
        runs=runs,
        rss_first=RSS_FIRST,
        rss_snippets=RSS_SNIPPETS,
    )


def kernel_rows(mcp: dict[str, object], first_result: float, kernels: dict[str, KernelResult]) -> list[tuple[str, ...]]:
    """gradle-repl against the kernel in both modes; each ratio is gradle-repl's figure over the kernel's."""
    k1, k2 = kernels["K1"], kernels["K2"]
    rows: list[tuple[str, ...]] = [
        (
            "measure",
            "gradle-repl",
            f"Kotlin Jupyter {KERNEL_VERSION} K1",
            "K2",
            "ratio to K1",
            "ratio to K2",
            "goal",
        )
    ]

    def row(
        measure: str,
        ours: float,
        one: float,
        two: float,
        show: Callable[[float], str],
        goal: str,
        limit: float | None,
        against: float,
    ) -> None:
        verdict = "—" if limit is None else f"{goal}: {'met' if ours <= limit * against else 'missed'}"
        rows.append((measure, show(ours), show(one), show(two), f"{ours / one:.2f}x", f"{ours / two:.2f}x", verdict))

    for name in SNIPPETS:
        ours_samples = mcp[name]
        assert isinstance(ours_samples, list)
        for label, q in (("p50", 0.5), ("p95", 0.95)):
            ours = percentile(ours_samples, q)
            one, two = (percentile(k.latencies[name], q) for k in (k1, k2))
            measure = f"warm {name} {label} (of {len(ours_samples)})"
            if name == "trivial expression" and label == "p50":
                row(measure, ours, one, two, ms, "≤ 0.6x the better mode", 0.6, min(one, two))
            elif name == "30-line class":
                limit = 0.8 if label == "p50" else 1.0
                row(measure, ours, one, two, ms, f"≤ {limit}x K2", limit, two)
            else:
                row(measure, ours, one, two, ms, "", None, two)
    firsts = (k1.first_result_seconds, k2.first_result_seconds)
    row(
        "start to first result (ours: worker launch, no spare; p50)",
        first_result,
        *firsts,
        ms,
        "≤ 0.5x the better mode",
        0.5,
        min(firsts),
    )
    spare = mcp["new session, first result"]
    assert isinstance(spare, float)
    row("start to first result, spare worker (new session over MCP)", spare, *firsts, ms, "", None, 0.0)
    rss_of_ours = mcp["rss"]
    assert isinstance(rss_of_ours, tuple)
    _, ours_rss = rss_of_ours
    rss = (k1.rss_bytes[1], k2.rss_bytes[1])
    row(
        f"JVM RSS after {len(RSS_SNIPPETS)} snippets",
        ours_rss,
        *rss,
        lambda b: f"{b / 2**20:.0f} MB",
        "≤ 0.5x the better mode",
        0.5,
        min(rss),
    )
    return rows


def measure_kernels(env: ReplEnvironment, runs: int) -> dict[str, KernelResult]:
    return {mode: measure_kernel(kernel_job(env, mode, runs)) for mode in ("K1", "K2")}


def print_kernel_table(mcp: dict[str, object], first_result: float, kernels: dict[str, KernelResult]) -> None:
    print()
    _print_table(kernel_rows(mcp, first_result, kernels))
    print(f"load average (1 min) after the kernels: {os.getloadavg()[0]:.2f}")
    for mode, result in kernels.items():
        print(
            f"kernel {mode}: logging off with {result.jvm_options}; its stdout/stderr held {result.log_bytes} bytes"
            + (f" ({result.log_head.strip()[:200]!r})" if result.log_bytes else "")
        )


def print_idle_table(options: argparse.Namespace) -> None:
    measured = anyio.run(idle_memory_measurements, options.runs // 2)
    _print_table(idle_rows(measured))
    trace = measured["trace"]
    assert isinstance(trace, list)
    print(
        f"RSS every {IDLE_POLL_SECONDS:g} s while idle: {[round(b / 2**20) for b in trace]} MB; "
        f"load average (1 min) after: {os.getloadavg()[0]:.2f}"
    )


def _seconds(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _print_table(rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for index, row in enumerate(rows):
        print("| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |")
        if index == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


if __name__ == "__main__":
    main()
