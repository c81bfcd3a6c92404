"""Attaching a session to a running JVM, as the MCP tool and the CLI do it: the project's environment when one is
named (its Kotlin and compiler plugins), the target's classpath and JDK, then the manager's attach."""

from __future__ import annotations

import asyncio
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from gradle_repl.environment import Attached, AttachedOverTcp, BuildToolChoice, ReplEnvironment
from gradle_repl.errors import GradleReplError
from gradle_repl.front.token import Token, agent_token, kept_agent_token
from gradle_repl.host.manager import SessionManager
from gradle_repl.host.notices import Notice
from gradle_repl.project.attach_target import attach_environment, remote_environment
from gradle_repl.project.running_jvms import RunningJvm, attachable_jvm, java_home_of
from gradle_repl.worker.artifacts.agent_jar import agent_jar_path, agent_package, build_agent_jar
from gradle_repl.worker.artifacts.agent_socket import agent_dir
from gradle_repl.worker.link.agent_address import AgentAddress
from gradle_repl.worker.link.agent_options import agent_token_env
from gradle_repl.worker.link.agent_wire import CONNECT_TIMEOUT_SECONDS, AgentConnection
from gradle_repl.worker.link.app_classpath import fetch_app_classpath

__all__ = ["AttachedApp", "agent_option", "attach_session", "attached_line", "jvm_line", "listen_instructions"]


@dataclass(frozen=True)
class AttachedApp:
    """Where a session was attached, as its answer says it."""

    pid: int | None  # over TCP, as the app's agent names it (in a container's pid namespace, often 1)
    address: str | None = None
    same_run: bool | None = None  # over TCP, attached there before: the same run of the app, or a restarted one
    uptime_ms: int | None = None


async def attach_session(
    manager: SessionManager,
    session_id: str,
    pid: int | None = None,
    *,
    address: str | None = None,
    token: str | None = None,
    token_file: str | None = None,
    project_root: str | None,
    project_path: str,
    source_set: str,
    build_tool: BuildToolChoice,
) -> tuple[ReplEnvironment, tuple[Notice, ...], AttachedApp]:
    """Attaches `session_id` to JVM `pid` here, or to the app whose agent listens at `address` (behind its token): the
    environment it runs with, what the user must know, and where it is. A JVM that can't be attached to (another
    user's, one refusing attach, an address that doesn't answer or refuses the token) is refused first, before its
    project is built."""
    if (pid is None) == (address is None):
        raise GradleReplError(
            "attach names one app: its pid (a JVM on this machine) or its agent's address (HOST:PORT)"
        )
    if address is not None:
        return await _attach_over_tcp(
            manager,
            session_id,
            AgentAddress.parse(address),
            agent_token(token, token_file).value,
            project_root=project_root,
            project_path=project_path,
            source_set=source_set,
            build_tool=build_tool,
        )
    assert pid is not None
    await asyncio.to_thread(attachable_jvm, pid)
    project = await _project(manager, project_root, project_path, source_set, build_tool)
    environment = await asyncio.to_thread(attach_environment, pid, project)
    return environment, await manager.attach(session_id, environment, Attached(pid=pid)), AttachedApp(pid=pid)


async def _attach_over_tcp(
    manager: SessionManager,
    session_id: str,
    address: AgentAddress,
    token: str,
    *,
    project_root: str | None,
    project_path: str,
    source_set: str,
    build_tool: BuildToolChoice,
) -> tuple[ReplEnvironment, tuple[Notice, ...], AttachedApp]:
    """Over TCP, first a look at the app — its agent's hello and its class path, fetched here — then the session."""
    app = f"the app at {address}"
    connection = await asyncio.to_thread(
        AgentConnection.connect_tcp,
        address,
        token,
        agent=agent_package(agent_jar_path()),
        timeout=CONNECT_TIMEOUT_SECONDS,
    )
    try:
        classpath = await asyncio.to_thread(fetch_app_classpath, connection, app)
    finally:
        connection.close()
    hello = connection.hello
    project = await _project(manager, project_root, project_path, source_set, build_tool)
    environment = await asyncio.to_thread(remote_environment, classpath, hello.java_version, app, project)
    before = manager.app_runs.get(str(address))
    placement = AttachedOverTcp(address=str(address), token=token, run=hello.run)
    notices = await manager.attach(session_id, environment, placement)
    manager.app_runs[str(address)] = hello.run
    where = AttachedApp(
        pid=hello.pid,
        address=str(address),
        same_run=None if before is None else before == hello.run,
        uptime_ms=hello.uptime_ms if hello.uptime_ms >= 0 else None,
    )
    return environment, notices, where


async def _project(
    manager: SessionManager,
    project_root: str | None,
    project_path: str,
    source_set: str,
    build_tool: BuildToolChoice,
) -> ReplEnvironment | None:
    """The named project's environment (its Kotlin and compiler plugins), or None."""
    if project_root is None:
        return None
    resolved = await manager.resolve(
        project_root, project_path=project_path, source_set=source_set, build_tool=build_tool, progress=None
    )
    return resolved.environment


def attached_line(session_id: str, environment: ReplEnvironment, where: AttachedApp) -> str:
    """The first line of an attach's answer, the MCP tool's and the CLI's."""
    if where.address is None:
        return (
            f"Session {session_id!r} is attached to JVM {where.pid}: snippets run inside it (Kotlin "
            f"{environment.kotlin_version}, JDK {environment.java_home}). close_kotlin_session detaches."
        )
    run = ""
    if where.same_run is not None:
        run = (
            " It is the same run of the app as at the last attach"
            if where.same_run
            else " It is another run than at the last attach (the app restarted, or another app answers there)"
        )
        run += f" (up {_duration(where.uptime_ms)})." if where.uptime_ms is not None else "."
    return (
        f"Session {session_id!r} is attached to the app at {where.address} (its pid {where.pid} there): snippets run "
        f"inside it (Kotlin {environment.kotlin_version}, compiled against JDK {environment.java_home}). "
        f"close_kotlin_session detaches.{run}"
    )


def _duration(ms: int) -> str:
    seconds = ms // 1000
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h"


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


def agent_option(listen: str | None = None, *, new_token: bool = False) -> str:
    """The JVM option that loads gradle-repl's agent at an app's start (no warning on Java 21+, which warns about
    agents loaded into a running JVM), built with the JDK of JAVA_HOME, else of the `java` on PATH, when it is not
    cached yet. Without `listen`: `-javaagent:<jar>=<directory>`, the directory its agent listens in, so an app started
    with it is attached to by pid as one a worker loaded the agent into. With `listen` (`[HOST:]PORT`): the agent
    listens on TCP behind the token `agent-path` keeps (a new one with `new_token`), and the text says how to start an
    app in a container, with compose, Gradle, Maven or in a pod, and how to attach."""
    java = os.environ.get("JAVA_HOME") or (java_home_of(found) if (found := shutil.which("java")) else None)
    if java is None:
        raise GradleReplError("no JDK found to build the agent with: set JAVA_HOME or put java on PATH")
    jar = build_agent_jar(java)
    if listen is None:
        return f"-javaagent:{jar}={agent_dir(jar)}"
    return listen_instructions(jar, listen, kept_agent_token(new=new_token))


def listen_instructions(jar: Path, listen: str, token: Token) -> str:
    """What `agent-path --listen` prints: the options, then how each way of starting an app takes them."""
    bound = AgentAddress.parse(listen, any_port=True)
    given_host = ":" in listen.strip()
    listen_value = str(bound) if given_host else str(bound.port)  # a bare port: the agent binds loopback
    env = agent_token_env()
    local = f"-javaagent:{jar}=listen={listen_value},tokenFile={token.source}"
    # In a container the app must listen on the container's interface for a published port to reach it; the port is
    # then published on the host's loopback only.
    inside = f"-javaagent:/gradle-repl-agent.jar=listen=0.0.0.0:{bound.port or 'PORT'}"
    attach_port: int | str = bound.port or "PORT"  # port 0: any free one, which the app's console names
    return "\n".join(
        [
            f"# the app on this machine (the token is read from {token.source}):",
            local,
            "",
            f"# an app elsewhere gets the one jar ({jar.name}) and the token in {env}:",
            f'export {env}="$(cat {token.source})"',
            (
                f"#   docker run -p 127.0.0.1:{attach_port}:{attach_port} -v {jar}:/gradle-repl-agent.jar:ro -e {env} "
                f"-e JAVA_TOOL_OPTIONS='{inside}' IMAGE"
            ),
            f'#   compose: volumes [{jar}:/gradle-repl-agent.jar:ro], ports ["127.0.0.1:{attach_port}:{attach_port}"],',
            f'#            environment {{{env}: ..., JAVA_TOOL_OPTIONS: "{inside}"}}',
            (
                f'#   Gradle: bootRun/run {{ jvmArgs("{local}") }}   Maven: mvn spring-boot:run '
                f'-Dspring-boot.run.jvmArguments="{local}"'
            ),
            (
                f"#   a pod: the jar in the image or a volume, {env} from a Secret, and -javaagent:/gradle-repl-agent.jar="
                f"listen={attach_port} (loopback: kubectl port-forward connects from inside the pod); then kubectl "
                f"port-forward POD {attach_port}:{attach_port}"
            ),
            (
                "# then attach: attach_kotlin_session with address "
                f"127.0.0.1:{attach_port} (or gradle-repl repl --attach 127.0.0.1:{attach_port}); the token is found in "
                f"{token.source} or {env}."
            ),
            (
                "# Listening on every interface lets anyone who reaches the port try the token: across an untrusted "
                "network, publish on 127.0.0.1 and use ssh -L or kubectl port-forward."
            ),
        ]
    )
