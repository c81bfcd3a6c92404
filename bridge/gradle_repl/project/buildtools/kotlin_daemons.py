"""The Kotlin daemons gradle-repl's builds started, found among the running processes.

gradle-repl never starts a daemon itself: kotlin-maven-plugin does, for the compile-only build after an edit, with
the idle shutdown and heap cap of project/buildtools/maven_speed.py. The daemon receives them on its command line
(`--daemon-shutdownDelayMilliseconds=600000`, `-Xmx1g`: bench/README.md, "The daemon's lifetime"), and a daemon
the user's own builds start carries the plugin's or Gradle's defaults instead, so the pair names gradle-repl's.

A full resolve compiles in such a daemon when one is already running where its build's daemon client looks for daemons
(`warm_daemon_running`): the edit loop has started it, so the user works in one, and the warm compiler halves the
build (maven_speed.py). The client looks in one run-files directory: `runFilesPath` of the `kotlin.daemon.options`
system property when the Maven JVM gets one, else kotlin-daemon-common's default (FileSystem.getRuntimeStateFilesPath:
`kotlin/daemon` under `$XDG_DATA_HOME` or `~/.local/share` on Linux, `~/Library/Application Support` on macOS,
`%LOCALAPPDATA%` on Windows; `~/.kotlin/daemon` when that base is no directory). Where the guess misses (a
`-Dkotlin.daemon.options` in MAVEN_ARGS or `.mvn/maven.config`, a relative path), the build either compiles in process,
as without a daemon, or starts a daemon of its own, as its first edit would.

The daemon's compiler version isn't compared (the build's is known only once it ran): a build of another Kotlin version
(2.2.20 or later) starts that version's daemon, about 3 s more than in process, once, which its edits then use.
"""

from __future__ import annotations

import itertools
import os
import shlex
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import psutil

from gradle_repl.project.buildtools.maven_speed import KOTLIN_DAEMON_HEAP, KOTLIN_DAEMON_IDLE_SECONDS

__all__ = [
    "KotlinDaemon",
    "started_kotlin_daemons",
    "DAEMON_MAIN_CLASS",
    "daemon_run_files",
    "maven_daemon_run_files",
    "warm_daemon_running",
]

DAEMON_MAIN_CLASS = "org.jetbrains.kotlin.daemon.KotlinCompileDaemon"
_OUR_FLAGS = (f"--daemon-shutdownDelayMilliseconds={KOTLIN_DAEMON_IDLE_SECONDS * 1000}", f"-{KOTLIN_DAEMON_HEAP}")
_DAEMON_OPTIONS = "-Dkotlin.daemon.options="


@dataclass(frozen=True)
class KotlinDaemon:
    pid: int
    rss_bytes: int
    idle_shutdown_seconds: int
    # Where the daemon keeps its run file: only a client looking in the same directory finds it.
    run_files: Path | None


def started_kotlin_daemons() -> list[KotlinDaemon]:
    """The Kotlin daemons running with gradle-repl's idle shutdown and heap cap, by pid."""
    found = []
    for process in psutil.process_iter(["cmdline", "memory_info"]):
        cmdline = process.info["cmdline"] or []
        if DAEMON_MAIN_CLASS in cmdline and all(flag in cmdline for flag in _OUR_FLAGS):
            memory = process.info["memory_info"]
            run_files = daemon_run_files(cmdline)
            found.append(
                KotlinDaemon(
                    process.pid,
                    memory.rss if memory else 0,
                    KOTLIN_DAEMON_IDLE_SECONDS,
                    Path(run_files) if run_files is not None else None,
                )
            )
    return sorted(found, key=lambda daemon: daemon.pid)


def daemon_run_files(cmdline: list[str]) -> str | None:
    """A daemon's `--daemon-runFilesPath <dir>` (two arguments, as the daemon client passes it)."""
    for flag, value in itertools.pairwise(cmdline):
        if flag == "--daemon-runFilesPath":
            return value
    return None


def maven_daemon_run_files(environ: Mapping[str, str], jvm_config: str) -> Path:
    """The run-files directory a Maven build's Kotlin daemon client uses, given the build's environment and its
    `.mvn/jvm.config` text: MAVEN_OPTS comes after jvm.config on the JVM's command line, so its property wins."""
    chosen: str | None = None
    for options, comments in ((jvm_config, True), (environ.get("MAVEN_OPTS", ""), False)):
        for word in _words(options, comments=comments):
            if word.startswith(_DAEMON_OPTIONS):
                chosen = None  # the JVM keeps the last -D of a property, whole
                for option in word.removeprefix(_DAEMON_OPTIONS).split(","):
                    if option.startswith("runFilesPath="):
                        chosen = option.removeprefix("runFilesPath=").strip("\"'")
    if chosen:
        return Path(chosen)
    base = _runtime_state_base(environ)
    return base / "kotlin" / "daemon" if base.is_dir() else Path.home() / ".kotlin" / "daemon"


def warm_daemon_running(run_files: Path) -> bool:
    """Whether a Kotlin daemon gradle-repl's builds started runs in run_files (a client there would use it).

    Its compiler's version isn't compared: a build of another Kotlin version starts a daemon of its own, as that
    project's first edit would."""
    return any(daemon.run_files == run_files for daemon in started_kotlin_daemons())


def _runtime_state_base(environ: Mapping[str, str]) -> Path:
    if sys.platform == "win32":
        return Path(environ.get("LOCALAPPDATA") or tempfile.gettempdir())
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support"
    return Path(environ.get("XDG_DATA_HOME", "").strip() or Path.home() / ".local" / "share")


def _words(options: str, *, comments: bool) -> list[str]:
    """JVM options as the launcher splits them; jvm.config may hold `#` comments (mvn strips them)."""
    try:
        # Not POSIX on Windows: there a backslash separates a path's parts and escapes nothing.
        return shlex.split(options, comments=comments, posix=os.name != "nt")
    except ValueError:  # an unbalanced quote: Maven's own script would have split on spaces
        return options.split()
