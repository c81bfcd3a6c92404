"""The Kotlin runtime an attached session's snippets run with, in an app that has none of its own.

Every compiled snippet links to the Kotlin standard library (`kotlin.Unit`, at least), which a Java app doesn't
carry. Such an app gets the jars the worker's REPL itself was resolved with (kotlin-stdlib and the script runtime of
the Kotlin the snippets compile for: files of Maven's local repository or gradle-repl's cache, on this machine, as the
attach mechanism requires): the worker names them over the agent's channel (`R`, agent_wire.py) and the agent opens
them in a loader of the session's own, between the app's loader and the first snippet's. Nothing is added to the
app's class path and the app's own loaders never see them; the session's end lets them go. An app with a
kotlin-stdlib of its own keeps it: snippets then compile for its Kotlin (project/attach_target.py), and the agent
itself checks again that the app can't load `kotlin.Unit` before it uses the jars.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["RUNTIME_JAR_PREFIXES", "snippet_runtime_jars"]

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
