"""What a session's compiler plugins do to classes declared in snippets, where that differs from the build."""

from __future__ import annotations

from pathlib import Path

from .environment import ReplEnvironment
from .toolchain import kotlin_version_tuple

__all__ = ["snippet_class_warnings"]

# Before Kotlin 2.3.20 the K2 REPL has compiler plugins treat a snippet's classes as local classes (2.2 compiles
# them as such; 2.3.0 and 2.3.10 emit nested classes of the snippet, but plugins still see local ones). all-open
# then opens the class but not its members (its status transformer skips members of local classes) and no-arg
# refuses them ("Noarg constructor generation is not possible for local classes"). Measured in real sessions on
# 2.2.21, 2.3.0, 2.3.10 (both as described), 2.3.20 and 2.3.21 (both act as in the build); serialization and
# sam-with-receiver work on all of them.
_LOCAL_SNIPPET_CLASSES_BEFORE = (2, 3, 20)
_REFUSED_ON_LOCAL_CLASSES = {
    "kotlin-allopen-compiler-plugin": "all-open opens their class but leaves its members final",
    "kotlin-noarg-compiler-plugin": "no-arg refuses them (no default constructor)",
}


def snippet_class_warnings(environment: ReplEnvironment) -> list[str]:
    """One line per plugin that won't act on snippet-declared classes as it does on the project's."""
    if kotlin_version_tuple(environment.kotlin_version) >= _LOCAL_SNIPPET_CLASSES_BEFORE:
        return []
    jars = [Path(j).name for j in environment.compiler_plugin_classpath]
    effects = [effect for prefix, effect in _REFUSED_ON_LOCAL_CLASSES.items() if any(j.startswith(prefix) for j in jars)]
    if not effects:
        return []
    return [
        f"Kotlin {environment.kotlin_version}'s REPL has compiler plugins treat classes declared in snippets as local "
        f"classes: {'; '.join(effects)}. The project's own classes are unaffected; from Kotlin "
        f"{'.'.join(map(str, _LOCAL_SNIPPET_CLASSES_BEFORE))} on, snippet classes get these plugins as the build's classes do"
    ]
