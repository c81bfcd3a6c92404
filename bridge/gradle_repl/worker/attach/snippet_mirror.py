"""An attached session's snippet classes, defined in the worker as well, never initialised: what describe reflects on
for the names and types the snippets declared (the worker's REPL compiled them), as a session of its own reflects on
the classes it ran. Their values live in the attached JVM and are read there (worker/attach/attached_runner.py)."""

from __future__ import annotations

from gradle_repl.worker.java import JavaObject, java_class
from gradle_repl.worker.results.safety import jstr

__all__ = ["SnippetMirror"]


class SnippetMirror:
    """The compiled snippets' classes, each in a loader whose parent is the previous snippet's, the first one's the
    loader of the classpath snippets compile against. A chain, unlike the app's (SessionClasses.java): a describe
    reflects on a few classes, where a snippet's run may load many."""

    def __init__(self, base_loader: JavaObject) -> None:
        self._newest = base_loader

    def add(self, script: JavaObject) -> str:
        """Defines the compiled snippet's classes (from a KJvmCompiledScript) after the previous one's, and names its
        class (`_N_repl`). Every compiled snippet is added, whatever its run came to: later snippets' classes refer to
        it."""
        self._newest = script.getCompiledModule().createClassLoader(self._newest)
        return jstr(script.getScriptClassFQName())

    def snippet_class(self, name: str) -> JavaObject:
        """A snippet's Java class, loaded here and not initialised: none of its code runs in the worker. A JavaException
        when it can't be loaded (a class it names missing from the classpath here)."""
        return java_class("java.lang.Class").forName(name, False, self._newest)
