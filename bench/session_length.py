"""Whether a warm call costs more the longer its session: one session's floor (bench/floor_driver.py) through a long
agent-like run, the same probe snippets timed early and late.

    .venv/bin/python bench/session_length.py [--snippets 1000] [--window 100]

The run repeats a cycle an agent's session is made of — a call into the project, a `val` holding its answer, an
expression over earlier values, `1 + 1`, and every 25th cycle a small class — and times the `1 + 1` and the project
call of each cycle (their compile, as the facade times it, and their wall as floor_driver reads it). Printed per window
of `--window` snippets: the p50s, and each as a ratio to the second window's (the first warms the JIT up); then the
load average before and after. The ratio is the figure: a compile that walks every earlier snippet reads well above 1
at the end.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import anyio

from child_lines import JsonLines
from gradle_repl.project.resolve import resolve_environment
from run import CALL, SAMPLE, TRIVIAL, ensure_class_data, percentile

BENCH = Path(__file__).resolve().parent


def cycle(index: int) -> list[tuple[str | None, str]]:
    """One cycle's snippets, each with the name it is timed under (None: not timed)."""
    snippets: list[tuple[str | None, str]] = [
        ("call into project", CALL),
        (None, f"val held{index} = {CALL}\nheld{index}"),
        (None, f"held{index}.length + {index}"),
        ("1 + 1", TRIVIAL),
    ]
    if index % 25 == 0:
        snippets.append((None, f"data class Kept{index}(val n: Int) {{ fun twice() = n * 2 }}\nKept{index}(1).twice()"))
    return snippets


async def measure(snippets: int, window: int) -> list[dict[str, dict[str, list[float]]]]:
    """Per window of snippets, per timed name: the walls and compiles, in seconds."""
    env = resolve_environment(SAMPLE, build_tool="maven", refresh=True).environment
    await ensure_class_data(env)
    windows: list[dict[str, dict[str, list[float]]]] = []
    async with await anyio.open_process(
        [sys.executable, str(BENCH / "floor_driver.py")], cwd=str(SAMPLE), stderr=sys.stderr
    ) as process:
        floor = JsonLines(process)
        await floor.answer()
        count = index = 0
        while count < snippets:
            index += 1
            for name, code in cycle(index):
                if count == snippets:
                    break
                answer = await floor.ask(code)
                if count % window == 0:
                    windows.append({})
                count += 1
                if name is not None:
                    timed = windows[-1].setdefault(name, {"wall": [], "compile": []})
                    timed["wall"].append(float(answer["wall"]))
                    timed["compile"].append(float(answer["compile"]))
        assert process.stdin is not None
        await process.stdin.aclose()
    return windows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--snippets", type=int, default=1000, help="snippets in the session (default 1000)")
    parser.add_argument("--window", type=int, default=100, help="snippets per reported window (default 100)")
    args = parser.parse_args()
    before = os.getloadavg()
    windows = anyio.run(measure, args.snippets, args.window)
    after = os.getloadavg()
    if len(windows) < 2:
        raise SystemExit("give at least two windows of snippets: the first warms the JIT up")
    first = windows[1]
    print(f"{'snippets':>12}  " + "  ".join(f"{name + ' compile p50':>34}" for name in first))
    for number, timed in enumerate(windows):
        cells = []
        for name in first:
            if name not in timed:
                continue
            p50 = percentile(timed[name]["compile"], 0.5)
            ratio = p50 / percentile(first[name]["compile"], 0.5)
            cells.append(f"{p50 * 1000:>20.1f} ms ({ratio:.2f}x)")
        span = f"{number * args.window + 1}-{(number + 1) * args.window}"
        print(f"{span:>12}  " + "  ".join(f"{cell:>34}" for cell in cells))
    print(f"load average {before[0]:.2f} before, {after[0]:.2f} after (1 min)")


if __name__ == "__main__":
    main()
