"""The project's tests in the session against `mvn -o test -Dtest=…` (issue 41, item 8), in one run.

    .venv/bin/python bench/tests.py [--runs 5] [--mvn-only]

On tests/projects/maven-kotlin-test (kotlin.test on JUnit 5; PantryTest has one failing test, restockingAddsToWhatIsLeft)
and tests/projects/maven-spring-boot (a @SpringBootTest class), each side on its own private copy:
- a warm re-run of one test class: the MCP tool `run_project_tests` (tests ["pantry.PantryTest"]) through the real
  server over stdio, against `mvn -o test -Dtest=PantryTest` (goal: ≤ 0.1×);
- edit → the failing test's result: the same one-line edit of Pantry.restock on both copies (fixing it, then breaking
  it again, alternately), then `run_project_tests` on the failing method (the session's edit path) against
  `mvn -o test -Dtest=PantryTest#restockingAddsToWhatIsLeft` (goal: ≤ 0.3×);
- a @SpringBootTest class's second run in the session against its first (Spring's test context cache), beside one
  `mvn -o test -Dtest=BlogApplicationTests`.
The two sides alternate, so both see the same load on a shared machine. `--mvn-only` measures the Maven side alone (for
a build whose server has no `run_project_tests`). Nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

PROJECTS = Path(__file__).resolve().parents[1] / "tests" / "projects"
KOTLIN_TEST = PROJECTS / "maven-kotlin-test"
SPRING = PROJECTS / "maven-spring-boot"
PANTRY = "src/main/kotlin/pantry/Pantry.kt"
BROKEN = "        counts[item] = n\n"
FIXED = "        counts[item] = count(item) + n\n"
TEST_CLASS, FAILING = "pantry.PantryTest", "pantry.PantryTest.restockingAddsToWhatIsLeft"
SPRING_CLASS = "blog.BlogApplicationTests"
# One mvn run of a small project's tests, offline and warm, takes seconds; past this it is stuck.
MVN_TIMEOUT_SECONDS = 600
# The first run_project_tests resolves the project and starts the session's JVM; a @SpringBootTest starts Spring.
TOOL_TIMEOUT_SECONDS = 600


def copy(source: Path, destination: Path) -> Path:
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns("target", ".gradle-repl"))
    return destination


def mvn_seconds(root: Path, selector: str) -> tuple[float, int]:
    """One `mvn -o test -Dtest=<selector>` in the project, as a user runs it: its wall time and exit status."""
    started = time.perf_counter()
    done = subprocess.run(
        ["mvn", "-o", "-B", "-q", "test", f"-Dtest={selector}", "-Dsurefire.failIfNoSpecifiedTests=false"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=MVN_TIMEOUT_SECONDS,
    )
    return time.perf_counter() - started, done.returncode


def edit(root: Path, fixed: bool) -> None:
    """Pantry.restock fixed or broken again, its mtime moved on so every build and watcher sees a change."""
    source = root / PANTRY
    text = source.read_text()
    source.write_text(text.replace(BROKEN, FIXED) if fixed else text.replace(FIXED, BROKEN))
    later = time.time() + 1
    os.utime(source, (later, later))


class Session:
    """The real server over stdio and the project the calls name."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def run_tests(self, root: Path, tests: list[str], session: str) -> tuple[float, dict[str, Any]]:
        started = time.perf_counter()
        result = await self.client.call_tool(
            "run_project_tests",
            {
                "projectRoot": str(root),
                "buildTool": "maven",
                "sessionId": session,
                "tests": tests,
                "timeoutSeconds": TOOL_TIMEOUT_SECONDS,
            },
        )
        elapsed = time.perf_counter() - started
        data = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None) or {}
        if not data or (getattr(result, "is_error", False) and "passed" not in data):
            text = " ".join(getattr(c, "text", "") for c in result.content)
            raise RuntimeError(f"run_project_tests {tests} failed: {text[:500]}")
        return elapsed, data


def counts(data: dict[str, Any]) -> str:
    return f"{data.get('passed')} passed, {data.get('failed')} failed"


async def measure(work: Path, runs: int, mvn_only: bool) -> dict[str, list[float]]:
    rows: dict[str, list[float]] = {
        key: []
        for key in (
            "mvn_class",
            "session_class",
            "mvn_edit",
            "session_edit",
            "mvn_spring",
            "spring_first",
            "spring_second",
        )
    }
    mvn_root, session_root = copy(KOTLIN_TEST, work / "mvn-pantry"), copy(KOTLIN_TEST, work / "session-pantry")
    mvn_spring, session_spring = copy(SPRING, work / "mvn-blog"), copy(SPRING, work / "session-blog")
    # Maven's side warm: compiled once, as a user's project is between runs.
    for root, selector in ((mvn_root, "PantryTest"), (mvn_spring, "BlogApplicationTests")):
        mvn_seconds(root, selector)
    params = StdioServerParameters(command=sys.executable, args=["-m", "gradle_repl", "serve"], env=dict(os.environ))
    async with Client(params, read_timeout_seconds=TOOL_TIMEOUT_SECONDS) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        session = None if mvn_only or "run_project_tests" not in tools else Session(client)
        if session is None:
            print(
                "the session side is not measured: "
                + ("--mvn-only" if mvn_only else "this server has no run_project_tests"),
                file=sys.stderr,
            )
        else:
            elapsed, data = await session.run_tests(session_root, [TEST_CLASS], "pantry")
            print(
                f"session, first run of {TEST_CLASS} (resolve + JVM start): {elapsed * 1000:.0f} ms, {counts(data)}",
                file=sys.stderr,
            )
        for k in range(1, runs + 1):
            seconds, status = mvn_seconds(mvn_root, "PantryTest")
            rows["mvn_class"].append(seconds)
            print(f"mvn -o test -Dtest=PantryTest: {seconds * 1000:.0f} ms (exit {status})", file=sys.stderr)
            if session is not None:
                elapsed, data = await session.run_tests(session_root, [TEST_CLASS], "pantry")
                rows["session_class"].append(elapsed)
                print(f"session, warm re-run of {TEST_CLASS}: {elapsed * 1000:.0f} ms, {counts(data)}", file=sys.stderr)
            fixed = k % 2 == 1
            edit(mvn_root, fixed)
            seconds, status = mvn_seconds(mvn_root, "PantryTest#restockingAddsToWhatIsLeft")
            rows["mvn_edit"].append(seconds)
            print(
                f"edit ({'fix' if fixed else 'break'}) → mvn -o test -Dtest=PantryTest#restockingAddsToWhatIsLeft: {seconds * 1000:.0f} ms (exit {status})",
                file=sys.stderr,
            )
            if session is not None:
                edit(session_root, fixed)
                elapsed, data = await session.run_tests(session_root, [FAILING], "pantry")
                rows["session_edit"].append(elapsed)
                print(
                    f"edit ({'fix' if fixed else 'break'}) → session, {FAILING}: {elapsed * 1000:.0f} ms, {counts(data)}",
                    file=sys.stderr,
                )
        seconds, status = mvn_seconds(mvn_spring, "BlogApplicationTests")
        rows["mvn_spring"].append(seconds)
        print(f"mvn -o test -Dtest=BlogApplicationTests: {seconds * 1000:.0f} ms (exit {status})", file=sys.stderr)
        if session is not None:
            # The session's JVM first (its resolve and start are not Spring's), then the class twice.
            await client.call_tool(
                "run_kotlin_snippet",
                {
                    "projectRoot": str(session_spring),
                    "buildTool": "maven",
                    "sourceSet": "test",
                    "sessionId": "blog",
                    "code": "1",
                },
            )
            for key in ("spring_first", "spring_second"):
                elapsed, data = await session.run_tests(session_spring, [SPRING_CLASS], "blog")
                rows[key].append(elapsed)
                print(
                    f"session, {SPRING_CLASS} ({key.split('_')[1]} run): {elapsed * 1000:.0f} ms, {counts(data)}",
                    file=sys.stderr,
                )
    return rows


def p50_ms(values: list[float]) -> float | None:
    return statistics.median(values) * 1000 if values else None


def row(label: str, ours: float | None, theirs: float | None, goal: str) -> str:
    ratio = f"{ours / theirs:.3f}x" if ours is not None and theirs else "—"

    def show(v: float | None) -> str:
        return f"{v:>7.0f} ms" if v is not None else f"{'—':>10}"

    return f"{label:<48} | {show(ours)} | {show(theirs)} | {ratio:>7} | {goal}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mvn-only", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gradle-repl-bench-tests-") as work:
        rows = asyncio.run(measure(Path(work), args.runs, args.mvn_only))
    print(f"{'measure (p50 of ' + str(args.runs) + ')':<48} | {'session':>10} | {'mvn -o':>10} | {'ratio':>7} | goal")
    print(row("warm re-run of one test class", p50_ms(rows["session_class"]), p50_ms(rows["mvn_class"]), "≤ 0.1x"))
    print(row("edit → the failing test's result", p50_ms(rows["session_edit"]), p50_ms(rows["mvn_edit"]), "≤ 0.3x"))
    print(
        row("@SpringBootTest class, first run (vs mvn)", p50_ms(rows["spring_first"]), p50_ms(rows["mvn_spring"]), "")
    )
    print(
        row(
            "@SpringBootTest class, second run vs first",
            p50_ms(rows["spring_second"]),
            p50_ms(rows["spring_first"]),
            "cached context",
        )
    )


if __name__ == "__main__":
    main()
