"""Where a command's CPU goes, by kind of process: the suite's worker JVMs, Maven, Kotlin daemons, pytest itself.

    .venv/bin/python tests/suitecpu.py [--every 0.25] [--modules] [--tests 40] -- bash .ci/run

Runs the command and, while it runs, reads every process's CPU time (user + system) every --every seconds; a
process's growth between two readings is added to its kind (`kind_of`: from its command line). At the end it prints
CPU seconds and processes per kind, then per test module (`--modules`: the module whose test was running when the
process, or the process that started it, began — pytest sets PYTEST_CURRENT_TEST, and a child inherits it), the N
tests whose processes cost most (`--tests N`: a module-scoped fixture's processes count for its first test), and the
wall time. A process that ends between two readings loses what it spent
since the last one (at most --every seconds of its CPU); one that started before the command is left out. The suite
on 2 cores is CPU-bound (CONTRIBUTING.md, The suite), so its wall time follows the CPU these kinds spend. Linux or
macOS (psutil); run by hand (tests/repo/test_suitecpu.py checks how it reads, not the suite).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import psutil

from suitetime import module_of as module_of_test

__all__ = ["kind_of", "module_of", "started_for", "CpuByKind"]

# (what the command line holds, the kind), first match wins: the worker's Python process hosts its JVM (JPype).
_KINDS = (
    ("gradle_repl.worker", "session worker (Python + its JVM)"),
    ("org.jetbrains.kotlin.daemon.KotlinCompileDaemon", "Kotlin daemon"),
    ("org.codehaus.plexus.classworlds.launcher.Launcher", "Maven"),
    ("org.jetbrains.kotlin.cli.jvm.K2JVMCompiler", "kotlinc"),
)
# How pytest-xdist's workers are started (execnet's bootstrap over stdin): no word of pytest in their command line.
_EXECNET_BOOTSTRAP = "exec(eval(sys.stdin.readline()))"

# A JVM option that takes the next word as its value.
_OPTION_WITH_VALUE = frozenset({"-cp", "-classpath", "--class-path", "-jar", "--add-opens", "--add-exports", "-p"})


def kind_of(cmdline: list[str]) -> str:
    """The kind of process a command line starts: one of _KINDS, gradle-repl's server or CLI, another JVM by its
    main class (or jar), else the program's name."""
    joined = " ".join(cmdline)
    for mark, kind in _KINDS:
        if mark in joined:
            return kind
    if "gradle_repl" in cmdline[1:3]:  # python -m gradle_repl …
        return "gradle-repl server" if "serve" in cmdline else "gradle-repl CLI"
    program = cmdline[0].rsplit("/", 1)[-1] if cmdline else "?"
    # By program or module, never by an argument: the suite's temporary paths all hold "pytest-of-…".
    if program.startswith("pytest") or cmdline[1:3] == ["-m", "pytest"] or _EXECNET_BOOTSTRAP in joined:
        return "pytest"
    if program != "java":
        return program
    words = iter(cmdline[1:])
    for word in words:
        if word == "-jar":
            return f"JVM: {next(words, '?').rsplit('/', 1)[-1]}"
        if word in _OPTION_WITH_VALUE:
            next(words, None)
        elif not word.startswith("-"):
            return f"JVM: {word}"
    return "JVM: ?"


def started_for(environment: dict[str, str]) -> str:
    """The test a process was started for, from the PYTEST_CURRENT_TEST it inherited
    ("tests/test_x.py::test_y[a] (setup)" → "tests/test_x.py::test_y[a]"; a module-scoped fixture's process is its
    first test's), or "" outside any test."""
    current = environment.get("PYTEST_CURRENT_TEST", "")
    return current.rsplit(" (", 1)[0] if current.endswith(")") else current


def module_of(environment: dict[str, str]) -> str:
    """The test module a process was started for ("tests/test_x.py"), or "" outside any test."""
    return module_of_test(started_for(environment))


def _started_for(process: psutil.Process) -> str:
    try:
        return started_for(process.environ())
    except (psutil.Error, OSError):
        return ""  # ended, or not ours to read


@dataclass
class CpuByKind:
    """CPU seconds and processes per kind, from readings of every process's CPU time."""

    # Per process (pid, start time): its kind at its last reading (a shell that execs a JVM keeps its pid, and takes
    # the JVM's kind from then on, with what it spent before) and its CPU seconds then.
    _seen: dict[tuple[int, float], tuple[str, float]] = field(default_factory=dict)
    _before: set[tuple[int, float]] = field(default_factory=set)
    # Per process: the test it was started for, read once (its environment doesn't change).
    _tests: dict[tuple[int, float], str] = field(default_factory=dict)

    def exclude_running(self) -> None:
        """Leaves out what runs now: this tool, the shell, anything started before the command."""
        self._before = {(p.pid, p.info["create_time"]) for p in psutil.process_iter(["create_time"])}

    def read(self) -> None:
        for process in psutil.process_iter(["cmdline", "cpu_times", "create_time"]):
            key = (process.pid, process.info["create_time"])
            times = process.info["cpu_times"]
            if key in self._before or times is None or key[1] is None:
                continue  # started before the command, or ended while it was read
            cmdline = process.info["cmdline"]
            # A process that has ended but not been waited for (a zombie) has no command line any more: it keeps the
            # kind it was last read with.
            kind = kind_of(cmdline) if cmdline else self._seen.get(key, ("?", 0.0))[0]
            self._seen[key] = (kind, times.user + times.system)
            if key not in self._tests:
                self._tests[key] = _started_for(process)

    @property
    def seconds(self) -> dict[str, float]:
        totals: defaultdict[str, float] = defaultdict(float)
        for kind, cpu in self._seen.values():
            totals[kind] += cpu
        return dict(totals)

    @property
    def processes(self) -> Counter[str]:
        return Counter(kind for kind, _ in self._seen.values())

    @property
    def seconds_by_module(self) -> dict[str, tuple[float, Counter[str]]]:
        """Per test module: the CPU seconds of the processes started for it, and how many of each kind."""
        return self._seconds_by(module_of_test)

    @property
    def seconds_by_test(self) -> dict[str, tuple[float, Counter[str]]]:
        """Per test: the CPU seconds of the processes started while it (or its fixtures) ran, and their kinds."""
        return self._seconds_by(lambda test: test)

    def _seconds_by(self, group: Callable[[str], str]) -> dict[str, tuple[float, Counter[str]]]:
        totals: defaultdict[str, float] = defaultdict(float)
        kinds: defaultdict[str, Counter[str]] = defaultdict(Counter)
        for key, (kind, cpu) in self._seen.items():
            test = self._tests.get(key)
            name = group(test) if test else "(no test)"
            totals[name] += cpu
            kinds[name][kind] += 1
        return {name: (cpu, kinds[name]) for name, cpu in totals.items()}

    def module_report(self) -> list[str]:
        return _lines(self.seconds_by_module)

    def test_report(self, count: int) -> list[str]:
        return _lines(self.seconds_by_test)[:count]

    def report(self) -> list[str]:
        seconds, processes = self.seconds, self.processes
        lines = [
            f"{cpu:9.1f} CPU-s {processes[kind]:5d} processes  {kind}"
            for kind, cpu in sorted(seconds.items(), key=lambda e: -e[1])
            if cpu >= 0.05
        ]
        return [*lines, f"{sum(seconds.values()):9.1f} CPU-s in all"]


def _lines(groups: dict[str, tuple[float, Counter[str]]]) -> list[str]:
    return [
        f"{cpu:9.1f} CPU-s  {name}  ({', '.join(f'{n} {kind}' for kind, n in kinds.most_common())})"
        for name, (cpu, kinds) in sorted(groups.items(), key=lambda e: -e[1][0])
        if cpu >= 0.05
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=float, default=0.25, help="seconds between readings")
    parser.add_argument("--modules", action="store_true", help="also print CPU per test module")
    parser.add_argument("--tests", type=int, default=0, metavar="N", help="also print the N tests that cost most CPU")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run (after --)")
    args = parser.parse_args()
    command = (args.command[1:] if args.command[:1] == ["--"] else args.command) or ["bash", ".ci/run"]
    usage = CpuByKind()
    usage.exclude_running()
    started = time.monotonic()
    with subprocess.Popen(command) as run:
        while run.poll() is None:
            usage.read()
            time.sleep(args.every)
    usage.read()
    if args.tests:
        print(*usage.test_report(args.tests), "", sep="\n")
    if args.modules:
        print(*usage.module_report(), "", sep="\n")
    print(*usage.report(), f"{time.monotonic() - started:9.1f} s wall, exit status {run.returncode}", sep="\n")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
