"""The test suite's Kotlin daemons: kept apart from the user's and stopped when the run ends.

gradle-repl's edit-loop compile (project/buildtools/maven_speed.py) leaves a Kotlin daemon running for minutes
after the build, by design. The suite's builds get a run directory of their own through MAVEN_OPTS
(`-Dkotlin.daemon.options=runFilesPath=…`, which kotlin-maven-plugin's daemon client reads and hands to the daemon
as `--daemon-runFilesPath`): a daemon there was started by this run and serves only it, so the run's end stops
exactly those, and a daemon the user runs (in ~/.local/share/kotlin/daemon or elsewhere) is never touched or shared.

They also get the suite's short-lived JVM flags (`-Dkotlin.daemon.jvm.options`, which the daemon client adds to the
daemon's command line): a user's daemon serves edits for hours, where C2 pays back, but a run's daemon compiles a few
dozen small projects and is stopped with the run. Measured on test_maven.py and test_recompile.py (2 cores, 3 daemons):
22.1 CPU-s in the daemons with the JVM's defaults against 10.9 s with these, 209 against 184 CPU-s in all.
"""

from __future__ import annotations

import os
from pathlib import Path

import psutil
import pytest

from gradle_repl.project.buildtools.kotlin_daemons import DAEMON_MAIN_CLASS, daemon_run_files
from gradle_repl.stopping import stop_processes_now
from support.shortjvm import SHORT_LIVED_JVM_FLAGS

__all__ = ["daemon_options", "daemons_apart", "daemons_in", "stop_daemons"]

# A Kotlin daemon stops its compiles and exits on SIGTERM within a second or two; past this it gets SIGKILL.
STOP_GRACE_SECONDS = 10.0


def daemon_options(run_files: Path) -> str:
    """The MAVEN_OPTS flags giving Kotlin daemons started by the suite's builds run_files as their run directory, and
    the short-lived JVM flags."""
    run_files.mkdir(parents=True, exist_ok=True)
    return f"-Dkotlin.daemon.options=runFilesPath={run_files} -Dkotlin.daemon.jvm.options={','.join(SHORT_LIVED_JVM_FLAGS)}"


def daemons_apart(monkeypatch: pytest.MonkeyPatch, run_files: Path) -> None:
    """The builds' Kotlin daemons in run_files, apart from the run's warm one (a later -D wins in the JVM). Where no
    daemon runs there yet, a resolve compiles in process: a build on another Kotlin version, or from another local
    repository, would otherwise start a daemon of its own beside the run's, for one compile (~3 CPU-s more)."""
    monkeypatch.setenv("MAVEN_OPTS", f"{os.environ.get('MAVEN_OPTS', '')} {daemon_options(run_files)}")


def daemons_in(run_files: Path) -> list[psutil.Process]:
    """The Kotlin daemons running with run_files as their run directory."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        cmdline = process.info["cmdline"] or []
        if DAEMON_MAIN_CLASS in cmdline and daemon_run_files(cmdline) == str(run_files):
            found.append(process)
    return found


def stop_daemons(run_files: Path) -> list[psutil.Process]:
    """Stops the Kotlin daemons of run_files (the product's stop ladder: SIGTERM, then SIGKILL); any still alive."""
    stop_processes_now(daemons_in(run_files), grace_seconds=STOP_GRACE_SECONDS)
    return daemons_in(run_files)
