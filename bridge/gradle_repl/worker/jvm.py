"""Starts the session's JVM through JPype from the project's own JDK."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gradle_repl.errors import JvmNotFound
from gradle_repl.paths import log_dir
from gradle_repl.settings import DEFAULTS
from gradle_repl.worker.artifacts.classdata import jdk_feature, jpype_support_jar
from gradle_repl.worker.java import JavaException, java_class, start_vm, unlink_python_gc_from_java_gc

__all__ = ["find_libjvm", "start_jvm", "jvm_is_exiting"]

_LIBJVM_NAMES = ("libjvm.so", "libjvm.dylib", "jvm.dll")
# Older JDKs keep libjvm under jre/; server VMs under server/, some builds under client/.
_LIBJVM_DIRS = ("lib/server", "lib/client", "jre/lib/server", "jre/lib/amd64/server", "lib", "bin/server")


def find_libjvm(java_home: str) -> Path:
    """The libjvm of a JDK, or JvmNotFound naming where it looked."""
    home = Path(java_home)
    for directory in _LIBJVM_DIRS:
        for name in _LIBJVM_NAMES:
            candidate = home / directory / name
            if candidate.is_file():
                return candidate
    found = next((p for name in _LIBJVM_NAMES for p in home.rglob(name)), None) if home.is_dir() else None
    if found is not None:
        return found
    raise JvmNotFound(
        f"no libjvm under javaHome {home} (looked in {', '.join(_LIBJVM_DIRS)}); "
        "point the project's Java toolchain or JAVA_HOME at a full JDK"
    )


def start_jvm(
    java_home: str,
    classpath: list[str],
    *,
    heap_mb: int,
    full_jit: bool = False,
    code_cache_mb: int = DEFAULTS.code_cache_mb,
    extra_options: Sequence[str] = (),
) -> None:
    """Starts the one JVM this process may ever have."""
    logs = log_dir()
    logs.mkdir(parents=True, exist_ok=True)
    start_vm(
        str(find_libjvm(java_home)),
        [
            f"-Xmx{heap_mb}m",
            # Before the session's own flags, so its -Xms wins (settings.py, initial_heap_mb).
            f"-Xms{min(DEFAULTS.initial_heap_mb, heap_mb)}m",
            # A crash report belongs with the worker logs, never in the project or the server's directory.
            f"-XX:ErrorFile={logs / 'hs_err_pid%p.log'}",
            # The JIT's replay data after a compiler crash too (it would land in the working directory).
            f"-XX:ReplayDataFile={logs / 'replay_pid%p.log'}",
            "-Xss4m",
            "-Djava.awt.headless=true",
            # Serial GC keeps a small worker small; the REPL is single-threaded anyway.
            "-XX:+UseSerialGC",
            # C1 only, unless asked: the compiler's code is short-lived per snippet, and on few cores C2's
            # compile threads cost more than they return — starts ~30% faster, lower RSS (bench/README.md).
            *(() if full_jit else ("-XX:TieredStopAtLevel=1",)),
            # The code cache C2 would get: C1-only's 48 MB default fills up, and evicted methods are compiled again
            # (settings.py, code_cache_mb).
            f"-XX:ReservedCodeCacheSize={code_cache_mb}m",
            # The exit guard (a security manager, see ExitGuard.kt) may be installed up to JDK 23; 24 has none.
            *(("-Djava.security.manager=allow",) if 12 <= (jdk_feature(java_home) or 0) < 24 else ()),
            *extra_options,
        ],
        # JPype's own jar first, from a path that outlives this virtualenv, so a class-data archive does too.
        classpath=[*(str(j) for j in [jpype_support_jar()] if j is not None), *classpath],
    )
    unlink_python_gc_from_java_gc()


def jvm_is_exiting() -> bool:
    """True once code in the JVM called System.exit: the JVM then ends this process with its code."""
    runtime = java_class("java.lang.Runtime").getRuntime()
    probe = java_class("java.lang.Thread")()
    try:
        runtime.addShutdownHook(probe)
    except JavaException:  # IllegalStateException: "Shutdown in progress"
        return True
    runtime.removeShutdownHook(probe)
    return False
