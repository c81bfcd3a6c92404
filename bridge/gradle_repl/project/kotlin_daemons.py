"""The Kotlin daemons gradle-repl's edit-loop builds started, found among the running processes.

gradle-repl never starts a daemon itself: kotlin-maven-plugin does, for the compile-only build after an edit, with
the idle shutdown and heap cap of project/buildtools/maven_speed.py. The daemon receives them on its command line
(`--daemon-shutdownDelayMilliseconds=600000`, `-Xmx1g`: bench/README.md, "The daemon's lifetime"), and a daemon
the user's own builds start carries the plugin's or Gradle's defaults instead, so the pair names gradle-repl's.
"""

from __future__ import annotations

from dataclasses import dataclass

import psutil

from gradle_repl.project.buildtools.maven_speed import KOTLIN_DAEMON_HEAP, KOTLIN_DAEMON_IDLE_SECONDS

__all__ = ["KotlinDaemon", "started_kotlin_daemons", "DAEMON_MAIN_CLASS"]

DAEMON_MAIN_CLASS = "org.jetbrains.kotlin.daemon.KotlinCompileDaemon"
_OUR_FLAGS = (f"--daemon-shutdownDelayMilliseconds={KOTLIN_DAEMON_IDLE_SECONDS * 1000}", f"-{KOTLIN_DAEMON_HEAP}")


@dataclass(frozen=True)
class KotlinDaemon:
    pid: int
    rss_bytes: int
    idle_shutdown_seconds: int


def started_kotlin_daemons() -> list[KotlinDaemon]:
    """The Kotlin daemons running with gradle-repl's idle shutdown and heap cap, by pid."""
    found = []
    for process in psutil.process_iter(["cmdline", "memory_info"]):
        cmdline = process.info["cmdline"] or []
        if DAEMON_MAIN_CLASS in cmdline and all(flag in cmdline for flag in _OUR_FLAGS):
            memory = process.info["memory_info"]
            found.append(KotlinDaemon(process.pid, memory.rss if memory else 0, KOTLIN_DAEMON_IDLE_SECONDS))
    return sorted(found, key=lambda daemon: daemon.pid)
