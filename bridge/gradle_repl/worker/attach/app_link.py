"""How an attached session reaches its app, by its placement: a JVM on this machine by its pid (the agent loaded
through the attach API unless it listens already; a Unix socket only this user can enter), or an agent listening on
TCP behind a token (an app in a container, on another host, in a pod). Both end in the same AgentConnection, lend the
Kotlin runtime the same way (its bytes) and name the app alike in every message."""

from __future__ import annotations

from dataclasses import dataclass

from gradle_repl.environment import Attached, AttachedOverTcp, ReplEnvironment
from gradle_repl.errors import GradleReplError, WorkerFailed
from gradle_repl.worker.artifacts.agent_jar import agent_jar_path, agent_package
from gradle_repl.worker.attach.agent_loading import attach_agent
from gradle_repl.worker.attach.liveness import still_running
from gradle_repl.worker.attach.snippet_runtime import lend_runtime, snippet_runtime_jars
from gradle_repl.worker.link.agent_address import AgentAddress
from gradle_repl.worker.link.agent_wire import CONNECT_TIMEOUT_SECONDS, AgentConnection, AgentGone

__all__ = ["AppLink", "capitalized"]


def capitalized(text: str) -> str:
    """A phrase at a sentence's start."""
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class AppLink:
    """The attached app as messages name it, and the way to its agent."""

    placement: Attached | AttachedOverTcp

    @property
    def name(self) -> str:
        """`the attached JVM (pid 1234)` or `the app at host:5006`, as a sentence's subject."""
        if isinstance(self.placement, Attached):
            return f"the attached JVM (pid {self.placement.pid})"
        return str(self.placement)

    def connect(self, env: ReplEnvironment) -> AgentConnection:
        """A connection to the app's agent, with the Kotlin runtime lent when the app has none."""
        if isinstance(self.placement, Attached):
            connection = attach_agent(self.placement.pid, env.java_home)
        else:
            connection = self._over_tcp(self.placement)
        if runtime := snippet_runtime_jars(env.classpath, env.repl_host_classpath):
            lend_runtime(connection, self.name, runtime, timeout=CONNECT_TIMEOUT_SECONDS)
        return connection

    @staticmethod
    def _over_tcp(placement: AttachedOverTcp) -> AgentConnection:
        try:
            connection = AgentConnection.connect_tcp(
                AgentAddress.parse(placement.address),
                placement.token,
                agent=agent_package(agent_jar_path()),
                timeout=CONNECT_TIMEOUT_SECONDS,
            )
        except GradleReplError as error:
            # A session attached before, whose connection was lost: say that first, then the cause.
            raise WorkerFailed(
                f"{capitalized(str(placement))} can't be reached again (its port-forward or tunnel down, or the app "
                f"gone): once it answers, the next call attaches again, or attach_kotlin_session with address "
                f"{placement.address} does ({error})"
            ) from None
        if connection.hello.run != placement.run:
            # Its class path may differ from the one the session compiles against, read when it attached.
            connection.close()
            raise WorkerFailed(
                f"{placement} restarted since the session attached (a new run of the app): attach again "
                f"(attach_kotlin_session with address {placement.address}) to compile against what it runs now"
            )
        return connection

    def lost(self, gone: AgentGone) -> str:
        """What the session's call says when the connection closed: the app exited, or the link broke."""
        if isinstance(self.placement, AttachedOverTcp):
            return (
                f"The connection to {self.placement} was lost ({gone}): the app, if it runs, runs on untouched and the "
                "session's state in it is released, and the next call attaches again once the address answers (or "
                f"attach_kotlin_session with address {self.placement.address} now)."
            )
        if still_running(self.placement.pid):
            return f"The connection to {self.name} was lost: {gone}; the session's state in it is released. Attach again to go on."
        return f"{capitalized(self.name)} exited; the session's state in it is gone. Attach again to a running JVM."
