"""The worker's warm-up snippets in an attached session: compiled here and run in the app, where the first snippet
must run too (it carries what the REPL shares with every later one: the REPL's state object's class, which the app
defines in that snippet's loader and every later snippet finds through the session's classes, SessionClasses.java)."""

from __future__ import annotations

import time

from gradle_repl.errors import WorkerFailed
from gradle_repl.worker.attach.run_in_app import run_in_app
from gradle_repl.worker.attach.snippet_mirror import SnippetMirror
from gradle_repl.worker.link.agent_wire import (
    CONNECT_TIMEOUT_SECONDS,
    AgentAnswer,
    AgentConnection,
    AgentError,
    AgentUnit,
    AgentValue,
)
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.snippet_names import WARM_UP_SNIPPETS, SnippetCounter

__all__ = ["warm_up_attached"]


def warm_up_attached(
    snippets: SnippetCounter, connection: AgentConnection, code: str, mirror: SnippetMirror, shared: dict[str, bytes]
) -> None:
    """The worker's warm-up snippets, compiled here and run in the target: the first snippet carries what the REPL
    shares with every later one (`shared`, the state object's class files), so it must run there too (and be in the
    mirror describe reflects on)."""
    for number in range(WARM_UP_SNIPPETS):
        _, running = snippets.compile_only(code)
        running.join(0)  # Thread.join(0): until compiled
        outcome = running.getOutcome()
        if outcome is None or outcome.compiledScript is None:
            why = [jstr(d.getMessage()) for d in outcome.diagnostics] if outcome is not None else []
            raise WorkerFailed(
                f"the Kotlin REPL could not compile an attached session's first snippet ({'; '.join(why) or 'no diagnostics'}); "
                "this is gradle-repl's fault: please report it with the worker log",
            )
        mirror.add(outcome.compiledScript)
        ran = run_in_app(
            connection,
            0,
            outcome.compiledScript,
            output_limit=1_000,
            deadline=time.monotonic() + CONNECT_TIMEOUT_SECONDS,
            shared=shared if number == 0 else {},
        )
        if not isinstance(ran.reply, (AgentUnit, AgentValue)):
            raise WorkerFailed(_warm_up_failure(ran.reply))


def _warm_up_failure(reply: AgentAnswer | None) -> str:
    """Why the attached JVM could not run the session's first snippet, as one sentence with what to do."""
    if isinstance(reply, AgentError) and reply.chain:
        first = reply.chain[0]
        if first.class_name == "java.lang.NoClassDefFoundError" and (first.message or "").startswith("kotlin/"):
            return (
                f"the attached JVM cannot load Kotlin's {first.message} for the session's snippets (is its kotlin-stdlib "
                "older than the snippets' Kotlin?); attach with the app's project (`--project`) so snippets compile for its Kotlin"
            )
        what = f"{first.class_name}: {first.message}" if first.message else first.class_name
        return f"the attached JVM could not run the session's first snippet ({what}); see the app's console, and attach again"
    if reply is None:
        return (
            f"the attached JVM did not run the session's first snippet within {CONNECT_TIMEOUT_SECONDS:g} s (is it stopped "
            "(SIGSTOP) or hung?): attach again once it runs"
        )
    return "the attached JVM stopped the session's first snippet; attach again"
