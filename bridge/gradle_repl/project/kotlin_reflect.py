"""Which kotlin-reflect the worker's JVM runs with: the project's, where the project has one.

Snippets share the worker's `kotlin.*` classes — the stdlib, the scripting runtime the evaluator speaks to them
in, and with them kotlin-reflect: the stdlib's `kotlin.jvm.internal.Reflection` finds kotlin-reflect by name
through its own (the worker's) class loader, so the copy on the REPL host classpath is the one every snippet's
`::class.memberProperties` runs on, whatever the project declares. The compiler needs one too (it reads its
own argument annotations with kotlin-reflect) and brings an old one (1.6.10). So the project's kotlin-reflect
replaces the compiler's on the REPL host classpath (`repl_host_classpath`): snippets get the project's version and
the compiler runs on a newer copy of a backward-compatible library. A project without kotlin-reflect keeps the compiler's; snippets
still can't compile against it (their compile classpath is the project's), only code that reflects by name
could reach it.
"""

from __future__ import annotations

import re
from pathlib import Path

from gradle_repl.environment import ReplEnvironment

__all__ = ["use_project_kotlin_reflect", "is_kotlin_reflect"]

# kotlin-reflect-2.2.21.jar, not kotlin-reflect-api or a sources jar.
_KOTLIN_REFLECT = re.compile(r"kotlin-reflect-\d[\w.+-]*(?<!-sources)\.jar")


def is_kotlin_reflect(jar: str) -> bool:
    return _KOTLIN_REFLECT.fullmatch(Path(jar).name) is not None


def use_project_kotlin_reflect(environment: ReplEnvironment) -> None:
    """Puts the project's kotlin-reflect on `environment`'s REPL host classpath in place of the compiler's own (the
    environment is changed, not copied)."""
    project = next((jar for jar in environment.classpath if is_kotlin_reflect(jar)), None)
    if project is None:
        return
    classpath = environment.repl_host_classpath
    position = next((i for i, jar in enumerate(classpath) if is_kotlin_reflect(jar)), len(classpath))
    others = [jar for jar in classpath if not is_kotlin_reflect(jar)]
    environment.repl_host_classpath = [*others[:position], project, *others[position:]]
