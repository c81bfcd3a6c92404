"""gradle-repl's agent loaded into an attached app and connected to: the attach API's VirtualMachine.loadAgent, from
this worker's JVM, unless the agent already listens there; within a deadline, or one sentence saying why not."""

from __future__ import annotations

import threading
from pathlib import Path

from gradle_repl.errors import WorkerFailed
from gradle_repl.worker.artifacts.agent_jar import agent_package, build_agent_jar
from gradle_repl.worker.artifacts.agent_socket import socket_path
from gradle_repl.worker.attach.liveness import stopped_note
from gradle_repl.worker.java import JavaException, JavaObject, java_class
from gradle_repl.worker.link.agent_wire import CONNECT_TIMEOUT_SECONDS, AgentConnection
from gradle_repl.worker.results.safety import jstr

__all__ = ["LOAD_AGENT_TIMEOUT_SECONDS", "attach_agent"]

# Loading the agent: VirtualMachine.attach waits up to 10 s for a JVM to start its attach listener, then the agent's
# agentmain only opens its socket. A JVM stopped meanwhile never answers, and the attach API has no deadline of its
# own: past this, the worker gives up (its exit ends the blocked call).
LOAD_AGENT_TIMEOUT_SECONDS = 30.0


def attach_agent(pid: int, java_home: str) -> AgentConnection:
    """A connection to gradle-repl's agent in JVM `pid`, loading the agent there first when it isn't listening yet
    (a second attach finds the first one's agent). Only the agent of this worker's build is talked to: its hello must
    name its package."""
    jar = build_agent_jar(java_home)
    path = socket_path(pid, jar)
    connection: AgentConnection | None = None
    if Path(path).exists():
        try:
            connection = AgentConnection.connect(path, agent=agent_package(jar), timeout=CONNECT_TIMEOUT_SECONDS)
        except OSError:
            pass  # left by an earlier JVM with this pid, or an agent that is gone: load it (again)
    if connection is None:
        _load_agent(pid, jar, path)
        try:
            connection = AgentConnection.connect(path, agent=agent_package(jar), timeout=CONNECT_TIMEOUT_SECONDS)
        except OSError as error:
            raise WorkerFailed(
                f"gradle-repl's agent was loaded into JVM {pid} but does not answer on {path} ({error.strerror or error}); "
                "if the app is stopped or busy, attach again once it runs",
            ) from error
    return connection


def _load_agent(pid: int, jar: Path, path: str) -> None:
    """Loads the agent into JVM `pid` within LOAD_AGENT_TIMEOUT_SECONDS, or one sentence saying why it can't."""
    if (stopped := stopped_note(pid)) is not None:
        raise WorkerFailed(stopped)
    outcome: list[Exception | None] = []

    def load() -> None:
        try:
            outcome.append(_attach_and_load(pid, jar, path))
        except Exception as error:  # noqa: BLE001 - handed to the waiting thread, which raises it
            outcome.append(error)

    loading = threading.Thread(target=load, name="gradle-repl-load-agent", daemon=True)
    loading.start()
    loading.join(LOAD_AGENT_TIMEOUT_SECONDS)
    if loading.is_alive():
        raise WorkerFailed(
            stopped_note(pid)
            or f"JVM {pid} did not load gradle-repl's agent within {LOAD_AGENT_TIMEOUT_SECONDS:g} s (is it hung?): "
            "attach again once it runs"
        )
    if outcome[0] is not None:
        raise outcome[0]


def _attach_and_load(pid: int, jar: Path, path: str) -> WorkerFailed | None:
    """The attach API's calls, on a thread of their own (_load_agent bounds them): what failed, or None."""
    virtual_machine = java_class("com.sun.tools.attach.VirtualMachine")
    try:
        target = virtual_machine.attach(str(pid))
    except JavaException as error:
        return WorkerFailed(
            f"cannot attach to JVM {pid} ({_java_reason(error)}); check that it runs as this user on a JDK 17+ and was "
            "not started with -XX:+DisableAttachMechanism, or start it with `gradle-repl agent-path`'s option"
        )
    try:
        target.loadAgent(str(jar), str(Path(path).parent))
    except JavaException as error:
        return WorkerFailed(
            f"JVM {pid} did not load gradle-repl's agent ({_java_reason(error)}); start the app with `gradle-repl "
            "agent-path`'s -javaagent option and attach again"
        )
    finally:
        target.detach()
    return None


def _java_reason(thrown: JavaObject) -> str:
    """A Java throwable's message, else its class's name."""
    return jstr(thrown.getMessage()) or jstr(thrown.getClass().getSimpleName())
