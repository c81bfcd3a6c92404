"""The Kotlin runtime an attached session's snippets run with, in an app that has none of its own, and its lending.

Every compiled snippet links to the Kotlin standard library (`kotlin.Unit`, at least), which a Java app doesn't
carry. Such an app gets the jars the worker's REPL itself was resolved with (kotlin-stdlib and the script runtime of
the Kotlin the snippets compile for): the worker sends their bytes over the agent's channel (`R`, agent_wire.py) and
the agent defines them in a loader of the session's own, between the app's loader and the first snippet's. No file is
shared: an app in a container, on another host or run by another user gets them alike. Nothing is added to the app's
class path and the app's own loaders never see them; the session's end lets them go. An app with a kotlin-stdlib of
its own keeps it: snippets then compile for its Kotlin (project/attach_target.py), and the agent itself checks again
that the app can't load `kotlin.Unit` before it uses the jars.
"""

from __future__ import annotations

import time
from pathlib import Path

from gradle_repl.errors import WorkerFailed
from gradle_repl.worker.link.agent_wire import AgentConnection, AgentRuntime

__all__ = ["RUNTIME_JAR_PREFIXES", "lend_runtime", "snippet_runtime_jars"]

# The jars a compiled snippet may link to at run time, by file name prefix.
RUNTIME_JAR_PREFIXES = ("kotlin-stdlib-", "kotlin-script-runtime-")
_STDLIB = RUNTIME_JAR_PREFIXES[0]


def snippet_runtime_jars(app_classpath: list[str], host_classpath: list[str]) -> list[str]:
    """The runtime jars of the REPL's host classpath that an app with this class path must be lent: none when it has a
    kotlin-stdlib of its own, else each runtime jar it lacks."""
    names = [Path(entry).name for entry in app_classpath]
    if any(name.startswith(_STDLIB) for name in names):
        return []
    return [entry for entry in host_classpath if Path(entry).name.startswith(RUNTIME_JAR_PREFIXES)]


def lend_runtime(connection: AgentConnection, app: str, jars: list[str], *, timeout: float) -> None:
    """Has the agent define the Kotlin runtime for this session's snippets from the jars' bytes; one sentence if it
    can't. `app` names the app in that sentence ("JVM 1234", "the app at host:5006")."""
    connection.runtime(0, [(Path(jar).name, Path(jar).read_bytes()) for jar in jars])
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        answer = connection.receive(left)
        if isinstance(answer, AgentRuntime):
            if answer.state == "failed":
                connection.close()
                raise WorkerFailed(
                    f"{app} has no Kotlin of its own and could not define the Kotlin runtime gradle-repl sent its "
                    f"snippets ({answer.detail}); start the app with kotlin-stdlib on its class path, or attach again"
                )
            return
    connection.close()
    raise WorkerFailed(
        f"{app} did not answer gradle-repl's agent within {timeout:g} s (is it stopped or hung?): attach again once it runs"
    )
