"""A preparing worker: compiles the facade, its add-ons and the class-update agent, then exits, running no snippet.

The host starts one while a machine's first build still runs (host/preparation.py), so the session's worker, started
after the build, finds its jars compiled: on a new machine the facade's compile is the largest part of a first start
(~15 s of ~22). facade.py's file locks make a session's worker that starts meanwhile wait for the jar this one is
compiling instead of compiling it beside it.
"""

from __future__ import annotations

import os
import time
from contextlib import suppress

from gradle_repl.errors import WorkerFailed
from gradle_repl.frames import ReadyFrame, StartRequest
from gradle_repl.worker.classes.class_update_agent import agent_jar
from gradle_repl.worker.facade import build_companions_addon, build_dependency_addon, build_facade
from gradle_repl.worker.facade_jars import has_compiler_plugins, jars_to_compile
from gradle_repl.worker.java import java_class
from gradle_repl.worker.jvm import start_jvm

__all__ = ["prepare"]

_NICENESS = 19


def prepare(request: StartRequest) -> ReadyFrame:
    """Compiles what a session's worker on this environment would compile at its start; starts no JVM when all of it
    is compiled already."""
    started = time.monotonic()
    env = request.environment
    compiled = False
    java_version = ""
    if jars_to_compile(env):
        # The build it runs beside compiles too: this compile takes the CPU the build leaves, never the build's (the JVM's
        # threads, started below, inherit the niceness; javac's process too).
        os.nice(_NICENESS)
        # The class-update agent, which a session's worker builds with javac before its JVM starts (~1.5 s): never raises.
        agent_jar(env.java_home)
        start_jvm(
            env.java_home,
            env.repl_host_classpath,
            heap_mb=request.heap_mb,
            full_jit=request.full_jit,
            code_cache_mb=request.code_cache_mb,
        )
        java_version = str(java_class("java.lang.System").getProperty("java.version"))
        facade_jar, compiled = build_facade(env.kotlin_version, env.repl_host_classpath)
        facade = [*env.repl_host_classpath, str(facade_jar)]
        # An add-on that does not compile is left to the session's worker, which says why the session is without it.
        if env.dependency_resolver_classpath:
            with suppress(WorkerFailed):
                build_dependency_addon(env.kotlin_version, [*facade, *env.dependency_resolver_classpath])
        if has_compiler_plugins(env):
            with suppress(WorkerFailed):
                build_companions_addon(env.kotlin_version, facade)
    return ReadyFrame(
        pid=os.getpid(),
        kotlin_version=env.kotlin_version,
        java_version=java_version,
        facade_compiled=compiled,
        startup_ms=int((time.monotonic() - started) * 1000),
    )
