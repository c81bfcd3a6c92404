"""Builds the attach agent's jar with a JDK's javac, once per agent source: never a shipped binary.

The jar is named by its sources' digest, so an attach after an upgrade loads the new agent beside an old one already
in the application (each listens on a socket of its own name) and never talks to the old one. It is compiled for
Java 17, the oldest JVM an agent can be loaded into here, whatever JDK compiles it.
"""

from __future__ import annotations

from pathlib import Path

from gradle_repl.paths import cache_dir
from gradle_repl.resources import jvm_worker_agent_sources
from gradle_repl.worker.java_jars import build_java_jar, sources_hash

__all__ = ["AGENT_CLASS", "agent_jar_path", "build_agent_jar"]

AGENT_CLASS = "gradlerepl.agent.AttachAgent"
_RELEASE = "17"


def agent_jar_path() -> Path:
    """Where the agent of these sources is cached."""
    return cache_dir() / "agent" / f"gradle-repl-agent-{sources_hash(jvm_worker_agent_sources(), _RELEASE)}.jar"


def build_agent_jar(java_home: str) -> Path:
    """The agent's jar, compiled with this JDK's javac when it is not cached yet."""
    return build_java_jar(
        agent_jar_path(), jvm_worker_agent_sources(), java_home=java_home, release=_RELEASE, manifest=_manifest(),
        what="the attach agent",
    )


def _manifest() -> str:
    # Agent-Class for VirtualMachine.loadAgent, Premain-Class for -javaagent: at the application's start.
    return f"Manifest-Version: 1.0\r\nAgent-Class: {AGENT_CLASS}\r\nPremain-Class: {AGENT_CLASS}\r\n\r\n"
