"""An attached session's snippet classes, defined in the worker as well, never initialised: what describe reflects on
for the names and types the snippets declared (the worker's REPL compiled them), as a session of its own reflects on
the classes it ran. Their values live in the attached JVM and are read there (worker/attached.py)."""

from __future__ import annotations

from gradle_repl.worker.java import JavaObject, java_class
from gradle_repl.worker.safety import jstr

__all__ = ["SnippetMirror"]


class SnippetMirror:
    """The compiled snippets' classes, each in a loader whose parent is the previous snippet's (as the agent chains
    them in the app), the first one's the loader of the classpath snippets compile against."""

    def __init__(self, base_loader: JavaObject) -> None:
        self._newest = base_loader

    def add(self, script: JavaObject) -> JavaObject:
        """The snippet's Java class (`_N_repl`) from its compiled script (a KJvmCompiledScript), defined here and not
        initialised: none of its code runs in the worker. Every compiled snippet is added, whatever its run came to:
        later snippets' classes refer to it, the first one's to what the REPL shares with all of them."""
        self._newest = script.getCompiledModule().createClassLoader(self._newest)
        return java_class("java.lang.Class").forName(jstr(script.getScriptClassFQName()), False, self._newest)
