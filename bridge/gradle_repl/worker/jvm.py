"""Starts the session's JVM through JPype from the project's own JDK."""

from __future__ import annotations

import gc
from collections.abc import Sequence
from pathlib import Path

import _jpype
import jpype

from gradle_repl.worker.classdata import jdk_feature, jpype_support_jar
from gradle_repl.errors import JvmNotFound
from gradle_repl.paths import log_dir
from gradle_repl.settings import DEFAULTS

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
    jpype.startJVM(
        str(find_libjvm(java_home)),
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
        # JPype's own jar first, from a path that outlives this virtualenv, so a class-data archive does too.
        classpath=[*(str(j) for j in [jpype_support_jar()] if j is not None), *classpath],
        convertStrings=False,
    )
    _unlink_python_gc_from_java_gc()


def _unlink_python_gc_from_java_gc() -> None:
    """JPype hooks Python's collector: when the process's malloc'd memory has grown by 10 MB since it
    last looked, it runs a full Java GC (System.gc()). In a worker that memory is mostly the JVM's own
    (compiled code, class metadata of each snippet), so a declaration-heavy session took a 0.2–0.7 s full
    collection every ~12 snippets (JFR, bench/profile.py) for nothing: the few Java objects Python holds
    don't need it, and the JVM collects when its heap needs to. A snippet's own System.gc() still runs.
    The same hook also ran a Python collection after Java ones; Python now collects on its own schedule."""
    collect = getattr(_jpype, "_collect", None)
    while collect is not None and collect in gc.callbacks:
        gc.callbacks.remove(collect)


def jvm_is_exiting() -> bool:
    """True once code in the JVM called System.exit: the JVM then ends this process with its code."""
    runtime = jpype.JClass("java.lang.Runtime").getRuntime()
    probe = jpype.JClass("java.lang.Thread")()
    try:
        runtime.addShutdownHook(probe)
    except jpype.JException:  # IllegalStateException: "Shutdown in progress"
        return True
    runtime.removeShutdownHook(probe)
    return False
