"""The session JVM's instrumentation agent (jvm-worker/runs-in-worker/class-updates): built before the JVM starts, by the session JDK's own
javac, and cached per source hash, like the facade — never a shipped binary. The JVM gets it as `-javaagent:`, and
worker/classes/class_updates.py asks it to redefine project classes after a rebuild.

A JDK without javac (a bare JRE) starts without it: its session restarts on every project edit, as before, and the
restart's notice says why.
"""

from __future__ import annotations

from pathlib import Path

from gradle_repl.errors import WorkerFailed
from gradle_repl.paths import cache_dir
from gradle_repl.resources import jvm_worker_class_updates_sources
from gradle_repl.worker.artifacts.java_jars import build_java_jar, sources_hash

__all__ = ["AGENT_CLASS", "AgentJar", "agent_jar"]

AGENT_CLASS = "gradlerepl.classupdates.ClassUpdates"
# Class files every JDK the worker runs on (11+) loads.
_RELEASE = "11"
_MANIFEST = f"Manifest-Version: 1.0\r\nPremain-Class: {AGENT_CLASS}\r\nCan-Redefine-Classes: true\r\nCan-Retransform-Classes: true\r\n\r\n"


class AgentJar:
    """The agent jar, or why this session has none."""

    def __init__(self, path: Path | None, unavailable: str | None) -> None:
        self.path = path
        self.unavailable = unavailable

    def jvm_options(self) -> list[str]:
        return [f"-javaagent:{self.path}"] if self.path is not None else []


def agent_jar(java_home: str) -> AgentJar:
    """The agent jar for this JDK's javac, compiled on first use; never raises (the session starts without it)."""
    sources = jvm_worker_class_updates_sources()
    target = cache_dir() / "facade" / f"class-updates-agent-{sources_hash(sources, _RELEASE)}.jar"
    try:
        return AgentJar(
            build_java_jar(
                target,
                sources,
                java_home=java_home,
                release=_RELEASE,
                manifest=_MANIFEST,
                what="the class-update agent",
            ),
            None,
        )
    except WorkerFailed as error:
        return AgentJar(None, str(error))
