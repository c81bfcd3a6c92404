"""Attaching a session to a running JVM, as the MCP tool and the CLI do it: the project's environment when one is
named (its Kotlin and compiler plugins), the target's classpath and JDK, then the manager's attach."""

from __future__ import annotations

import asyncio
import os
import shutil

from gradle_repl.environment import BuildToolChoice, ReplEnvironment
from gradle_repl.errors import GradleReplError
from gradle_repl.host.manager import SessionManager
from gradle_repl.host.notices import Notice
from gradle_repl.project.attach_target import attach_environment
from gradle_repl.project.running_jvms import RunningJvm, attachable_jvm, java_home_of
from gradle_repl.worker.artifacts.agent_jar import build_agent_jar
from gradle_repl.worker.artifacts.agent_socket import agent_dir

__all__ = ["agent_option", "attach_session", "jvm_line"]


async def attach_session(
    manager: SessionManager,
    session_id: str,
    pid: int,
    *,
    project_root: str | None,
    project_path: str,
    source_set: str,
    build_tool: BuildToolChoice,
) -> tuple[ReplEnvironment, tuple[Notice, ...]]:
    """Attaches `session_id` to JVM `pid`: the environment it runs with and what the user must know. A JVM that can't
    be attached to (another user's, one refusing attach) is refused first, before its project is built."""
    await asyncio.to_thread(attachable_jvm, pid)
    project = None
    if project_root is not None:
        resolved = await manager.resolve(
            project_root, project_path=project_path, source_set=source_set, build_tool=build_tool, progress=None
        )
        project = resolved.environment
    environment = await asyncio.to_thread(attach_environment, pid, project)
    return environment, await manager.attach(session_id, environment, pid)


def jvm_line(jvm: RunningJvm) -> str:
    """One JVM as `gradle-repl jvms` and list_running_jvms show it."""
    state = "attachable" if jvm.attachable else f"not attachable: {jvm.why_not}"
    return f"{jvm.pid:>8}  Java {jvm.java_version or '?':<8} {jvm.main}  (in {jvm.working_directory or '?'}; {kotlin_text(jvm)}; {state})"


def kotlin_text(jvm: RunningJvm) -> str:
    """A JVM's Kotlin as the listing says it."""
    if jvm.has_kotlin is None:
        return "Kotlin unknown"
    if not jvm.has_kotlin:
        return "no Kotlin"
    return f"Kotlin {jvm.kotlin_version}" if jvm.kotlin_version else "Kotlin (version unknown)"


def agent_option() -> str:
    """The JVM option that loads gradle-repl's agent at an app's start (no warning on Java 21+, which warns about
    agents loaded into a running JVM): `-javaagent:<jar>=<directory>`, the jar a worker builds for attaching (built
    with the JDK of JAVA_HOME, else of the `java` on PATH, when it is not cached yet) and the directory its agent
    listens in, so an app started with it is attached to as one a worker loaded the agent into."""
    java = os.environ.get("JAVA_HOME") or (java_home_of(found) if (found := shutil.which("java")) else None)
    if java is None:
        raise GradleReplError("no JDK found to build the agent with: set JAVA_HOME or put java on PATH")
    jar = build_agent_jar(java)
    return f"-javaagent:{jar}={agent_dir(jar)}"
