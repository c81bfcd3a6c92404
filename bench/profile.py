"""Where a warm call's time goes: its floor and its budget, for the three snippets; or one snippet kind under JFR.

    .venv/bin/python bench/profile.py [--calls 40] [--warm-up 20] [--jfr-snippets 60]
    .venv/bin/python bench/profile.py --kind class|trivial|call [--snippets 150]

Without --kind (issue 59, item 2), per snippet of bench/run.py's three, two sides alive at once on sample-project
(resolved with Maven), their calls interleaved one by one, the order alternating:
- the floor: a session booted as a worker boots it, in a process of its own (bench/floor_driver.py), where the facade
  compiles, runs and renders each snippet with nothing else around it — no pipe, server, output forwarding, probes,
  declarations or result; its wall per snippet, and the facade's three steps;
- a call over MCP: the real server over stdio (bench/budget_server.py: `serve --no-spare-worker` with timers wrapped
  around its steps from outside) and the real client. Its wall split, call by call, into the MCP transport and SDK
  (client and server, both ways), the server's tool (progress relay, the reply as MCP content), what is checked
  before the snippet (the resolve from cache: build files and sources unchanged; then the session, its spec and its
  worker), the host ↔ worker pipes (request and result frames), the worker around the snippet (output capture,
  probes, the result, declarations, heap watch: its `duration_ms` less the JVM's steps) and the JVM's compile,
  evaluate and render (the result's `times`, from the facade).
Then, with Java Flight Recorder on the floor's JVM, --jfr-snippets more of each snippet: the compile's CPU samples on
the snippet's thread by compiler phase, as shares of the compile time. Printed: p50 of each part (a part's p50 is of
its own per-call values, so the parts' p50s need not add up to the wall's), the load average before and after.

With --kind: one worker on sample-project runs 20 warm-up snippets, then JFR records while it runs the given number
of snippets of one kind. Printed: the wall time per snippet as the host sees it, and the worker thread's CPU samples
by phase — parsing, FIR (the K2 front end), FIR → IR, IR lowerings, bytecode, running the snippet, gradle-repl's own
work — plus the methods where the samples end. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))

from child_lines import JsonLines
from gradle_repl.environment import SessionSpec
from gradle_repl.frames import WorkerOptions
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.project.resolve import resolve_environment
from run import CALL, CLASS_30_LINES, SAMPLE, TRIVIAL, WARM_UP_RUNS, ensure_class_data, percentile

SNIPPETS = {"class": CLASS_30_LINES, "trivial": TRIVIAL, "call": CALL}
# Checked innermost frame first: the first phase a sample's stack enters, seen from where it ends.
PHASES: list[tuple[str, re.Pattern[str]]] = [
    ("bytecode (ASM, class files)", re.compile(r"^org\.jetbrains\.org\.objectweb\.asm\.|\.backend\.jvm\.codegen\.")),
    ("IR lowerings", re.compile(r"\.backend\.(jvm|common)\.lower\.|\.ir\.backend\.jvm\.|\.backend\.common\.phaser\.")),
    ("FIR → IR", re.compile(r"\.fir\.backend\.|Fir2Ir")),
    ("FIR checkers", re.compile(r"\.fir\.analysis\.")),
    ("FIR resolution", re.compile(r"\.fir\.resolve\.|\.fir\.(scopes|symbols|types)\.")),
    ("FIR building (raw FIR from PSI)", re.compile(r"\.fir\.(builder|lightTree)\.")),
    ("parsing (PSI)", re.compile(r"\.kotlin\.(parsing|psi)\.|\.com\.intellij\.(lang|psi)\.")),
    ("running the snippet", re.compile(r"\$\$eval|^Line_\d+|ScriptEvaluator|\.evaluate\(|ReplEvaluator")),
    ("class loading", re.compile(r"^java\.lang\.ClassLoader\.|^jdk\.internal\.loader\.")),
    ("gradle-repl (rendering, declarations)", re.compile(r"^gradlerepl\.runtime\.|Declarations|Renderer")),
]


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "  —  "


def stacks(recording: Path, thread: str | None = None) -> list[list[str]]:
    """Each execution sample (Java code running on any thread: the compiler's, the snippet's; or on the named thread
    only), its frames innermost first."""
    text = subprocess.run(
        ["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "512", str(recording)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result: list[list[str]] = []
    for event in text.split("jdk.ExecutionSample {")[1:]:
        if thread is not None and f'sampledThread = "{thread}"' not in event:
            continue
        body = event.split("stackTrace = [", 1)[-1]
        frames = [
            line.strip() for line in body.splitlines()[1:] if line.strip() and line.strip() not in ("]", "}", "...")
        ]
        result.append([f.split("(", 1)[0] + "(" for f in frames])
    return result


def phase(frames: list[str]) -> str:
    for frame in frames:
        for name, pattern in PHASES:
            if pattern.search(frame):
                return name
    return "other compiler and scripting code"


async def measure(kind: str, count: int, recording: Path) -> list[float]:
    env = resolve_environment(SAMPLE, build_tool="maven").environment
    # JFR's stack depth is a start-up option; JAVA_TOOL_OPTIONS reaches the JVM that JPype creates.
    os.environ["JAVA_TOOL_OPTIONS"] = "-XX:FlightRecorderOptions:stackdepth=512"
    worker = await WorkerHandle.launch(SessionSpec(environment=env), WorkerOptions(), label="bench-profile")
    try:
        code = SNIPPETS[kind]
        for _ in range(20):
            await worker.request(code, timeout_seconds=120)
        jcmd = ["jcmd", str(worker.pid)]
        subprocess.run([*jcmd, "JFR.start", "name=bench", "settings=profile"], check=True, capture_output=True)
        times = []
        for _ in range(count):
            started = time.monotonic()
            reply = await worker.request(code, timeout_seconds=120)
            times.append(time.monotonic() - started)
            assert reply.result.type == "success", reply.result.message
        subprocess.run([*jcmd, "JFR.dump", "name=bench", f"filename={recording}"], check=True, capture_output=True)
        return times
    finally:
        await worker.stop()


# The budget's snippets, in issue 59's order.
BUDGET = {"trivial `1 + 1`": TRIVIAL, "call into the project": CALL, "30-line class": CLASS_30_LINES}
BENCH = Path(__file__).resolve().parent
# The phases a compile's samples can be in: gradle-repl's own steps around the compiler (taking back each run's JVM
# backend, the snippet modules' chain), then the PHASES but running and rendering the snippet, which compile_phase
# tells apart by the evaluator and Renderer on the stack (their patterns would match a compile's frames too:
# ReplDriver.evaluate calls the compiler, and "Declarations" is in FIR's class names).
COMPILE_PHASES = [
    (
        "gradle-repl around the compiler (CompilerMarks, SnippetModuleChain)",
        re.compile(r"^gradlerepl\.repl\.(CompilerMarks|SnippetModuleChain)"),
    ),
    *((name, pattern) for name, pattern in PHASES if not name.startswith(("running the snippet", "gradle-repl"))),
]
JFR_PERIOD_MS = 10  # settings=profile: jdk.ExecutionSample every 10 ms of a thread running Java code
SNIPPET_THREAD = "repl-snippet"  # the facade's RunningSnippet thread, where a snippet compiles, runs and renders


def compile_phase(frames: list[str]) -> str | None:
    """The compiler phase of a sample on the snippet's thread; None when it is the snippet's evaluation or rendering
    (the facade's evaluator or Renderer on its stack), not its compile."""
    if any("K2ReplEvaluator" in f or "gradlerepl.runtime.Renderer" in f or "$$eval" in f for f in frames):
        return None
    for frame in frames:
        for name, pattern in COMPILE_PHASES:
            if pattern.search(frame):
                return name
    return "other compiler and scripting code"


async def measure_budget(calls: int, warm_up: int, jfr_snippets: int, scratch: Path) -> dict[str, dict[str, Any]]:
    """Per snippet: the floor's samples, the MCP calls' samples (with their server-side steps) and the compile's
    JFR samples by phase."""
    env = resolve_environment(SAMPLE, build_tool="maven", refresh=True).environment
    await ensure_class_data(env)  # the facade built and the class-data archive trained before either side starts
    log = scratch / "calls.jsonl"
    log.touch()
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(BENCH / "budget_server.py")],
        env={**os.environ, "GRADLE_REPL_BENCH_BUDGET": str(log)},
    )
    arguments = {"projectRoot": str(SAMPLE), "buildTool": "maven", "sessionId": "budget"}
    measured: dict[str, dict[str, Any]] = {name: {"floor": [], "mcp": []} for name in BUDGET}
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(Client(params, read_timeout_seconds=600))

        async def over_mcp(code: str) -> dict[str, Any]:
            began = time.perf_counter()
            result = await client.call_tool("run_kotlin_snippet", {**arguments, "code": code})
            wall = time.perf_counter() - began
            assert not result.is_error, result.content
            return {"wall": wall, **json.loads(log.read_text().splitlines()[-1])}

        await over_mcp(TRIVIAL)  # the session's worker up before the floor's JVM starts beside it
        process = await anyio.open_process(
            [sys.executable, str(BENCH / "floor_driver.py")],
            cwd=str(SAMPLE),
            stderr=sys.stderr,
            # No JAVA_TOOL_OPTIONS for a deeper JFR stack (as --kind sets): the floor's JVM starts as a worker's does.
            # JFR keeps the innermost 64 frames, where a compile's phase is named; the evaluator's and the Renderer's
            # frames, which tell a run or a render apart, sit near the top of a snippet thread's stack too.
        )
        stack.push_async_callback(process.aclose)
        floor = JsonLines(process)
        pid = (await floor.answer())["pid"]
        sides = {"floor": floor.ask, "mcp": over_mcp}
        for name, code in BUDGET.items():
            for index in range(warm_up + calls):
                for side in ("floor", "mcp") if index % 2 == 0 else ("mcp", "floor"):
                    sample = await sides[side](code)
                    if index >= warm_up:
                        measured[name][side].append(sample)
        for number, (name, code) in enumerate(BUDGET.items()):
            recording = scratch / f"budget-{number}.jfr"
            jcmd = ["jcmd", str(pid)]
            subprocess.run([*jcmd, "JFR.start", "name=budget", "settings=profile"], check=True, capture_output=True)
            for _ in range(jfr_snippets):
                await floor.ask(code)
            subprocess.run([*jcmd, "JFR.dump", "name=budget", f"filename={recording}"], check=True, capture_output=True)
            subprocess.run([*jcmd, "JFR.stop", "name=budget"], check=True, capture_output=True)
            measured[name]["jfr_snippets"] = jfr_snippets
            measured[name]["phases"] = Counter(
                phase for phase in map(compile_phase, stacks(recording, SNIPPET_THREAD)) if phase is not None
            )
            recording.unlink()
        assert process.stdin is not None
        await process.stdin.aclose()
    return measured


def p50_ms(values: list[float]) -> float:
    return percentile(values, 0.5) * 1000


def budget_lines(name: str, measured: dict[str, Any]) -> list[str]:
    """The floor and the budget of one snippet's calls, p50s in ms."""
    floors: list[dict[str, float]] = measured["floor"]
    calls: list[dict[str, Any]] = measured["mcp"]

    def times(call: dict[str, Any], step: str) -> float:
        return float(call["result"]["times"][f"{step}_ms"]) / 1000

    def worker(call: dict[str, Any]) -> float:
        return float(call["result"]["duration_ms"]) / 1000

    def jvm(call: dict[str, Any]) -> float:
        return sum(times(call, step) for step in ("compile", "evaluate", "render"))

    floor = p50_ms([f["wall"] for f in floors])
    wall = p50_ms([c["wall"] for c in calls])
    compile_ms = p50_ms([times(c, "compile") for c in calls])
    parts = [
        ("MCP transport and SDK, client and server, both ways", [c["wall"] - c["tool"] for c in calls]),
        ("the server's tool: progress relay, the reply as MCP content", [c["tool"] - c["manager"] for c in calls]),
        ("before the snippet: the resolve from cache (build files, sources)", [c["resolve"] for c in calls]),
        (
            "before the snippet: the rest (session, spec, worker settled)",
            [c["manager"] - c["request"] - c["resolve"] for c in calls],
        ),
        ("host ↔ worker: the request's and result's frames over the pipes", [c["request"] - worker(c) for c in calls]),
        ("the worker around the snippet (capture, probes, result, declarations)", [worker(c) - jvm(c) for c in calls]),
        ("compile (the K2 REPL, in the worker's JVM)", [times(c, "compile") for c in calls]),
        ("evaluate", [times(c, "evaluate") for c in calls]),
        ("render", [times(c, "render") for c in calls]),
    ]
    lines = [
        f"{name} (p50 of {len(calls)} calls each side, interleaved)",
        f"  floor: compile + evaluate + render, nothing around them   {floor:7.1f} ms  ("
        + ", ".join(f"{step} {p50_ms([f[step] for f in floors]):.1f}" for step in ("compile", "evaluate", "render"))
        + ")",
        f"  a call over MCP, wall                                      {wall:7.1f} ms  = {wall / floor:.2f}x the floor",
    ]
    for label, values in parts:
        lines.append(f"    {label:<72}{p50_ms(values):7.1f} ms")
        if label.startswith("compile") and measured["jfr_snippets"]:
            phases: Counter[str] = measured["phases"]
            total = sum(phases.values())
            for phase_name, count in phases.most_common():
                share = count / total
                if share >= 0.02:
                    lines.append(f"      {phase_name:<70}{compile_ms * share:7.1f} ms  ({share:.0%})")
            floor_compile = p50_ms([f["compile"] for f in floors])
            lines.append(
                f"      (shares of {total} JFR samples of Java code on the floor's snippet thread, one per "
                f"{JFR_PERIOD_MS} ms: {total * JFR_PERIOD_MS / (measured['jfr_snippets'] * floor_compile):.0%} of "
                "its compile time; the rest ran outside Java code: the JVM's own, GC, JIT)"
            )
    modules = [int(c["result"]["times"].get("depended_modules", -1)) for c in calls]
    lines.append(
        f"    (each compile depended on {min(modules)}–{max(modules)} modules: libraries', and snippets' kept for classes)"
    )
    added = "(the parts' p50s added up)"
    lines.append(f"    {added:<72}{sum(p50_ms(values) for _, values in parts):7.1f} ms")
    return lines


def print_budget(calls: int, warm_up: int, jfr_snippets: int) -> None:
    cache = Path(tempfile.mkdtemp(prefix="gradle-repl-bench-"))
    os.environ["GRADLE_REPL_CACHE_DIR"] = str(cache)
    try:
        print(f"load average before: {load()}", flush=True)
        began = time.monotonic()
        measured = anyio.run(measure_budget, calls, warm_up, jfr_snippets, cache)
        print(f"load average after:  {load()} ({time.monotonic() - began:.0f} s)\n")
        for name in BUDGET:
            print("\n".join(budget_lines(name, measured[name])) + "\n")
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", choices=sorted(SNIPPETS), help="only this snippet kind, under JFR, on one worker")
    parser.add_argument("--snippets", type=int, default=150, help="--kind: snippets recorded (default 150)")
    parser.add_argument("--keep", type=Path, help="--kind: also keep the recording here (for `jfr print`, JMC)")
    parser.add_argument("--calls", type=int, default=40, help="budget: measured calls of each snippet per side")
    parser.add_argument("--warm-up", type=int, default=WARM_UP_RUNS, help="budget: warm-up calls of each snippet")
    parser.add_argument(
        "--jfr-snippets", type=int, default=60, help="budget: snippets of each kind recorded for the compile's phases"
    )
    args = parser.parse_args()
    if args.kind is None:
        print_budget(args.calls, args.warm_up, args.jfr_snippets)
        return
    with tempfile.TemporaryDirectory() as scratch:
        recording = args.keep or Path(scratch) / "bench.jfr"
        times = asyncio.run(measure(args.kind, args.snippets, recording))
        samples = stacks(recording)
    times.sort()
    print(
        f"{args.snippets} × {args.kind} snippet: p50 {statistics.median(times) * 1000:.0f} ms, "
        f"p95 {times[int(len(times) * 0.95)] * 1000:.0f} ms (host's view, JFR on)"
    )
    print(f"\n{len(samples)} CPU samples of Java code, by phase:")
    for name, n in Counter(phase(s) for s in samples).most_common():
        print(f"  {percent(n, len(samples))}  {name}")
    print("\nWhere samples end (top 15 methods):")
    for name, n in Counter(s[0] for s in samples if s).most_common(15):
        print(f"  {percent(n, len(samples))}  {name.rstrip('(')}")


if __name__ == "__main__":
    main()
