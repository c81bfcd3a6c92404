"""Measures gradle-repl against the alternatives, in one run on this machine, and prints a table.

    .venv/bin/python bench/run.py [--runs 60]

Everything goes through the real MCP server over stdio, against sample-project (resolved with Maven).
The alternatives, measured in the same run: each snippet as a Kotlin script (`K2JVMCompiler -script`
with the same classpath and the same compiler jars — what an agent does without a REPL) and a JShell
one-shot for a comparable Java expression.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from gradle_repl.worker import classdata
from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import WorkerOptions
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.project.resolve import resolve_environment

SAMPLE = Path(__file__).resolve().parents[1] / "sample-project"
TRIVIAL = "1 + 1"
CALL = 'sample.displayTitle(sample.classics.books.first().title)'
CLASS_30_LINES = "\n".join(
    ["data class Invoice(val id: Int, val lines: List<Pair<String, Int>>) {"]
    + [f"    fun part{i}() = lines.sumOf {{ it.second }} * {i}" for i in range(27)]
    + ["}", 'Invoice(1, listOf("a" to 2)).part3()']
)


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
                [env.java_executable, "-cp", host, "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler", "-no-stdlib",
                 f"-Xplugin={scripting}", *plugins, "-classpath", os.pathsep.join(env.classpath + env.repl_host_classpath),
                 "-script", str(script)],
                capture_output=True, text=True,
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
        for name, code in (("trivial expression", TRIVIAL), ("30-line class", CLASS_30_LINES), ("call into project", CALL)):
            for _ in range(20):
                await call(code)
            results[name] = [await call(code) for _ in range(runs)]
        results["new session, first result"] = await call(TRIVIAL, session="fresh")

        async def rss() -> int:
            sessions = json.loads((await client.call_tool("list_kotlin_sessions", {})).content[0].text)  # type: ignore[union-attr]
            return next(s["worker_rss_bytes"] for s in sessions if s["session_id"] == "rss")

        await call("val warm = 1", session="rss")
        before = await rss()
        for i in range(100):
            await call(f"val v{i} = List(1000) {{ it * {i} }}.sum()", session="rss")
        after = await rss()
        results["rss"] = (before, after)
    return results


async def worker_start_seconds(env: ReplEnvironment, runs: int) -> dict[bool, float]:
    """Spawn to 'ready' (JVM, compiler, warm-up snippet), with and without the class-data archive, alternating."""
    archive = classdata.archive_path(env.java_home, env.repl_host_classpath)
    if archive is not None and not archive.exists():
        trainer = await WorkerHandle.launch(env, WorkerOptions(), label="bench-class-data", train_class_data=True)
        await trainer.transport.wait()
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(runs):
        for sharing in (True, False):
            started = time.monotonic()
            worker = await WorkerHandle.launch(env, WorkerOptions(class_data_sharing=sharing), label="bench-start")
            times[sharing].append(time.monotonic() - started)
            await worker.stop()
    return {sharing: statistics.median(samples) for sharing, samples in times.items()}


def generate_large_project(directory: Path, files: int) -> Path:
    """sample-project's build (same dependencies and plugins) with `files` generated Kotlin sources in 50 packages."""
    project = directory / "large-project"
    pom = (SAMPLE / "pom.xml").read_text().replace("<artifactId>sample-project</artifactId>", "<artifactId>large-project</artifactId>", 1)
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
                "run_kotlin_snippet", {"projectRoot": str(root), "buildTool": "maven", "code": TRIVIAL, "sessionId": root.name}
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=60, help="warm runs per snippet kind (default 60)")
    parser.add_argument("--script-runs", type=int, default=3, help="runs of each alternative (default 3)")
    parser.add_argument("--large-files", type=int, default=5000, help="Kotlin files in the generated project (default 5000)")
    parser.add_argument("--large-only", action="store_true", help="only the generated large project against sample-project")
    options = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="gradle-repl-bench-"))
    os.environ["GRADLE_REPL_CACHE_DIR"] = str(cache)

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
        statistics.median(_seconds(lambda root=root: resolve_environment(root, build_tool="maven")) for _ in range(200))
        for root in (SAMPLE, large)
    )
    hit_row = (
        f"environment cache hit, {options.large_files:,}-file project (p50 of 200)",
        ms(large_hit), f"sample-project {ms(small_hit)}", f"{(large_hit - small_hit) * 1000:+.2f} ms",
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
        for name, code in (("trivial expression", TRIVIAL), ("30-line class", CLASS_30_LINES), ("call into project", CALL))
    }
    jshell = jshell_seconds(env, options.script_runs)
    starts = anyio.run(worker_start_seconds, env, options.script_runs)
    shutil.rmtree(cache, ignore_errors=True)

    rows = [("measure", "gradle-repl", "alternative", "ratio")]
    for name in ("trivial expression", "30-line class", "call into project"):
        samples = mcp[name]
        assert isinstance(samples, list)
        p50, p95 = percentile(samples, 0.5), percentile(samples, 0.95)
        alternative = script.get(name)
        rows.append((
            f"warm snippet, {name} (p50 / p95 of {len(samples)})",
            f"{ms(p50)} / {ms(p95)}",
            f"script {ms(alternative)}" if alternative else "—",
            f"{alternative / p50:.0f}x faster" if alternative else "—",
        ))
    if jshell is not None:
        trivial = percentile(mcp["trivial expression"], 0.5)  # type: ignore[arg-type]
        rows.append(("JShell one-shot, Java `1 + 1`", ms(trivial), f"jshell {ms(jshell)}", f"{jshell / trivial:.0f}x faster"))
    for name in ("first session ever, first result (compiles the facade)", "new session, first result"):
        rows.append((f"{name} (environment cached)", ms(mcp[name]), "—", "—"))  # type: ignore[arg-type]
    rows.append((
        f"worker start to ready, class-data archive (p50 of {options.script_runs})",
        ms(starts[True]),
        f"no archive {ms(starts[False])}",
        f"{starts[False] / starts[True]:.1f}x faster",
    ))
    rows.append(("environment resolution, cold (mvn)", ms(cold), "—", "—"))
    rows.append(("environment resolution, cache hit (p50 of 20)", ms(statistics.median(cached)), "—", f"{cold / statistics.median(cached):.0f}x faster than cold"))
    before, after = mcp["rss"]  # type: ignore[misc]
    rows.append(("worker RSS after 100 snippets", f"{after / 2**20:.0f} MB", "—", f"+{(after - before) / 100 / 1024:.0f} KB per snippet"))
    rows += [large_row, hit_row]
    _print_table(rows)


def _seconds(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _print_table(rows: list[tuple[str, str, str, str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for index, row in enumerate(rows):
        print("| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |")
        if index == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


if __name__ == "__main__":
    main()
