"""How gradle-repl's Maven builds run fast (an edit's cost is mostly the build): every build's Maven JVM with the
C1 compiler only, and the edit loop's compile-only build through a warm Kotlin daemon.

After an edit to sources alone, `mvn compile` is most of what the session waits for, and most of that is JVM warm-up:
the Kotlin compiler loaded and JIT-compiled again in a fresh Maven JVM each time. A Kotlin daemon kept for a while
keeps the compiler loaded and compiled between edits. Maven's own JVM lives seconds, too short for C2 to pay off:
C1 alone finishes sooner, both when it only hands the compile to the daemon and when it compiles in process (the full
resolve; measured in bench/README.md, "The edit loop's build"). The full resolve compiles in process unless that daemon
is already running (project/buildtools/kotlin_daemons.py): it runs once per session start or build change, and a daemon it started
would outlive it for nothing when no edit follows; one the edit loop started halves it (14 → 8 s on sample-project).

kotlin-maven-plugin 2.2.20 and later (the versions that compile through the Kotlin Build Tools API) read the user
properties below (KotlinCompileMojoBase: `kotlin.compiler.daemon`, `kotlin.compiler.daemon.shutdownDelayMs`,
`kotlin.compiler.daemon.jvmArgs`); older versions ignore them and compile in process, as before. A POM that sets
`<useDaemon>`, `<daemonShutdownDelayMs>` or `<kotlinDaemonJvmArgs>` itself wins over them: Maven prefers a plugin's
configuration to a user property. The daemon client uses a running daemon of the same compiler with at least this
heap (the user's own, say) before it starts one (kotlin-daemon-client's KotlinCompilerClient, `memorywiseFitsInto`).
`kotlin.daemon.options` is left to the user: it also names the daemons' run directory, which a `-D` of ours would
replace (the test suite sets it in MAVEN_OPTS to keep its daemons apart).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "KOTLIN_DAEMON_IDLE_SECONDS",
    "KOTLIN_DAEMON_HEAP",
    "MAVEN_JVM_OPTIONS",
    "daemon_properties",
    "jvm_config",
    "maven_environment",
]

# How long the Kotlin daemon stays after the last build that used it ended (the plugin's default is 30 minutes). Edits
# in a working session come seconds to minutes apart: ten minutes covers reading a result, thinking and editing
# again; after a longer pause the next edit pays the daemon's start once (about a second more than compiling in
# process). The daemon gets this as `--daemon-shutdownDelayMilliseconds`.
KOTLIN_DAEMON_IDLE_SECONDS = 10 * 60
# The daemon's heap cap. Unset, it inherits the Maven JVM's default (a quarter of RAM: 6 GB on a 24 GB machine).
# 1 GB is twice Gradle's default daemon heap (512 MB), which Kotlin's Gradle daemon inherits, and compiles a module
# of thousands of files; the Build Tools API adds the dash (`-Xmx1g` would reach the JVM as `--Xmx1g`).
KOTLIN_DAEMON_HEAP = "Xmx1g"
# Maven's JVM with the C1 compiler only (sample-project, one-line edit, alternating runs, medians: the compile in a warm
# daemon 3.15 against 4.03 s; the full resolve 7.4 against 14.3 s and 7.8 against 9.6 s). The serial collector measured
# no better (3.11 s, 8.18 s) and is left out; class data sharing is on by default (-Xshare:auto).
MAVEN_JVM_OPTIONS = ("-XX:TieredStopAtLevel=1",)


def daemon_properties() -> list[str]:
    """The `-D` flags that make kotlin-maven-plugin compile in a Kotlin daemon that shuts down when idle."""
    return [
        "-Dkotlin.compiler.daemon=true",
        f"-Dkotlin.compiler.daemon.shutdownDelayMs={KOTLIN_DAEMON_IDLE_SECONDS * 1000}",
        f"-Dkotlin.compiler.daemon.jvmArgs={KOTLIN_DAEMON_HEAP}",
    ]


def maven_environment(environ: Mapping[str, str], root: Path) -> dict[str, str]:
    """environ with MAVEN_OPTS starting with the edit loop's JVM options. The user's MAVEN_OPTS come after ours, so
    theirs win where both set an option; `.mvn/jvm.config` (which mvn and mvnw put before MAVEN_OPTS) keeps any
    option it sets: ours is left out then."""
    configured = jvm_config(root)
    ours = [option for option in MAVEN_JVM_OPTIONS if _option_name(option) not in configured]
    theirs = environ.get("MAVEN_OPTS", "").strip()
    return {**environ, "MAVEN_OPTS": " ".join([*ours, *([theirs] if theirs else [])])}


def jvm_config(root: Path) -> str:
    """The build's `.mvn/jvm.config` (JVM options mvn and mvnw put before MAVEN_OPTS), or nothing."""
    config = root / ".mvn" / "jvm.config"
    return config.read_text(encoding="utf-8", errors="replace") if config.is_file() else ""


def _option_name(option: str) -> str:
    """`-XX:TieredStopAtLevel=1` → `TieredStopAtLevel`: what another spelling of the same option contains."""
    return option.removeprefix("-XX:").lstrip("+-").split("=", 1)[0]
