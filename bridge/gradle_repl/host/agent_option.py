"""The JVM option that loads gradle-repl's attach agent at an app's start (`gradle-repl agent-path`): the jar the worker
builds for attaching (worker.artifacts.agent_jar: javac and a file, no JVM here) and the directory its agent listens
in (worker.artifacts.agent_socket), so an app started with it is attached to as one the worker loaded the agent into."""

from __future__ import annotations

from gradle_repl.worker.artifacts.agent_jar import build_agent_jar
from gradle_repl.worker.artifacts.agent_socket import agent_dir

__all__ = ["javaagent_option"]


def javaagent_option(java_home: str) -> str:
    """`-javaagent:<jar>=<directory>`, the jar built with this JDK's javac when it is not cached yet."""
    jar = build_agent_jar(java_home)
    return f"-javaagent:{jar}={agent_dir(jar)}"
