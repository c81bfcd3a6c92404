"""Companions that compiler plugins generate, made the companions of snippet classes.

kotlinx.serialization (and any plugin that generates a companion object) gives a `@Serializable` class a companion
holding `serializer()`. The K2 REPL generates it for a snippet's class but never makes it the class's companion, so
`Q.serializer()` is an unresolved reference while `Q.Companion.serializer()` works (jvm-worker/runs-in-worker/companions says why
and how the add-on fixes it). The add-on reads the compiler's FIR, so it is compiled per Kotlin version; a session
whose Kotlin it doesn't fit starts without it, and an unresolved reference in that session says why.
"""

from __future__ import annotations

import re

from gradle_repl.environment import ReplEnvironment
from gradle_repl.errors import WorkerFailed
from gradle_repl.worker.artifacts.facade import build_companions_addon, first_compile_error
from gradle_repl.worker.artifacts.facade_jars import has_compiler_plugins
from gradle_repl.worker.java import JavaException, JavaObject, ReplDriver, addon_loader, java_class
from gradle_repl.worker.repl.plugin_hints import Hint

__all__ = ["generated_companions"]

# What the compiler says of the generated companion's serializer() called through the class (kotlinx.serialization's is
# the companion users reach for; a hint on every unresolved name would mislead on each typo).
_UNRESOLVED = re.compile(r"Unresolved reference 'serializer'")


def generated_companions(
    environment: ReplEnvironment, driver: ReplDriver, facade_loader: JavaObject, facade_jar: str
) -> list[Hint]:
    """Registers the add-on in the session's compiler when the session has compiler plugins; when it can't, the
    hint that explains an unresolved member of a generated companion."""
    if not has_compiler_plugins(environment):
        return []
    try:
        jar, _ = build_companions_addon(environment.kotlin_version, [*environment.repl_host_classpath, facade_jar])
        java_class("gradlerepl.companions.GeneratedCompanions", loader=addon_loader(jar, facade_loader))(driver)
        return []
    except WorkerFailed as error:
        why = f"its add-on did not compile on Kotlin {environment.kotlin_version}: {first_compile_error(str(error))}"
    except (JavaException, TypeError) as error:
        why = f"its add-on could not start on Kotlin {environment.kotlin_version}: {error}"
    return [
        Hint(
            _UNRESOLVED,
            (
                "hint: in this session a companion object that a compiler plugin generates (kotlinx.serialization's, with "
                f"serializer()) is not its class's companion ({why}): call its members through `.Companion`, as in "
                "`Q.Companion.serializer()`."
            ),
        )
    ]
