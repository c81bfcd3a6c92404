"""A preparing worker: compiles the facade, its add-ons and the class-update agent, then exits, running no snippet.

The host starts one while a machine's first build still runs (host/preparation.py), so the session's worker, started
after the build, finds its jars compiled: the facade's compile is the largest part of a first start (~15 s of ~22 on
slower cores). It gains where the build leaves a core idle; on 2 cores whose build is CPU-bound it measured neutral
(CHANGELOG, Unreleased). artifacts/facade.py's file locks make a session's worker that starts meanwhile wait for the
jar this one is compiling instead of compiling it beside it.
"""

from __future__ import annotations

import os
from contextlib import suppress

from gradle_repl.errors import WorkerFailed
from gradle_repl.frames import ReadyFrame, StartRequest
from gradle_repl.worker.artifacts.facade import build_class_phases_addon, build_dependency_addon, build_facade
from gradle_repl.worker.artifacts.facade_jars import jars_to_compile
from gradle_repl.worker.classes.class_update_agent import agent_jar
from gradle_repl.worker.jvm import start_jvm

__all__ = ["accepted", "prepare"]


def accepted(request: StartRequest) -> ReadyFrame:
    """The 'ready' a preparing worker answers its start with at once: the host then waits for its exit, as for a
    class-data worker, within a bound of its own (host/preparation.py), not a session's start timeout."""
    return ReadyFrame(
        pid=os.getpid(),
        kotlin_version=request.spec.environment.kotlin_version,
        java_version="",
        facade_compiled=False,
        startup_ms=0,
    )


def prepare(request: StartRequest) -> None:
    """Compiles what a session's worker on this environment would compile at its start; starts no JVM when all of it
    is compiled already. Runs at the priority of a session's compile: a session's
    worker may be waiting on the facade's lock for it."""
    env = request.spec.environment
    if not jars_to_compile(env):
        return
    # The class-update agent, which a session's worker builds with javac before its JVM starts (~1.5 s): never raises.
    agent_jar(env.java_home)
    start_jvm(
        env.java_home,
        env.repl_host_classpath,
        heap_mb=request.heap_mb,
        full_jit=request.full_jit,
        code_cache_mb=request.code_cache_mb,
    )
    facade_jar, _ = build_facade(env.kotlin_version, env.repl_host_classpath)
    facade = [*env.repl_host_classpath, str(facade_jar)]
    # An add-on that does not compile is left to the session's worker, which says why the session is without it.
    if env.dependency_resolver_classpath:
        with suppress(WorkerFailed):
            build_dependency_addon(env.kotlin_version, [*facade, *env.dependency_resolver_classpath])
    with suppress(WorkerFailed):
        build_class_phases_addon(env.kotlin_version, facade)
