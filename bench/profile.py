"""Where a warm snippet's time goes: Java Flight Recorder on one worker, samples grouped by compiler phase.

    .venv/bin/python bench/profile.py [--kind class|trivial|call] [--snippets 150]

One worker on sample-project (resolved with Maven) runs 20 warm-up snippets, then JFR records while it
runs the given number of snippets of one kind (bench/run.py's snippets). Printed: the wall time per
snippet as the host sees it, and the worker thread's CPU samples by phase — parsing, FIR (the K2
front end), FIR → IR, IR lowerings, bytecode, running the snippet, gradle-repl's own work — plus the
methods where the samples end. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gradle_repl.environment import SessionSpec
from gradle_repl.frames import WorkerOptions
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.project.resolve import resolve_environment
from run import CALL, CLASS_30_LINES, SAMPLE, TRIVIAL

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


def stacks(recording: Path) -> list[list[str]]:
    """Each execution sample (Java code running on any thread: the compiler's, the snippet's), its frames
    innermost first."""
    text = subprocess.run(
        ["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "512", str(recording)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result: list[list[str]] = []
    for event in text.split("jdk.ExecutionSample {")[1:]:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=sorted(SNIPPETS), default="class")
    parser.add_argument("--snippets", type=int, default=150)
    parser.add_argument("--keep", type=Path, help="also keep the recording here (for `jfr print`, JMC)")
    args = parser.parse_args()
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
