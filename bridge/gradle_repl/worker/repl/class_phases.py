"""What the compiler's whole-file passes give a file's classes and skip in a snippet, given to a snippet's classes.

The K2 REPL keeps a snippet's classes where two of the compiler's passes don't look
(jvm-worker/runs-in-worker/class-phases says which and how the add-on fixes them): a companion object a compiler
plugin generates (kotlinx.serialization's, holding `serializer()`) was never its class's companion, so `Q.serializer()`
was an unresolved reference while `Q.Companion.serializer()` worked; and a sealed class or interface declared in a
snippet had no inheritors, so a `when` missing one of them compiled, `sealedSubclasses` read `[]` and
kotlinx.serialization found no subclass of it. The add-on reads the compiler's FIR, so it is compiled per Kotlin
version; a session whose Kotlin it doesn't fit starts without it, says why in the worker's log, and an error that
its absence explains (an unresolved `serializer()`, a subclass missing from a polymorphic scope) says why and the way
around.
"""

from __future__ import annotations

import re
import sys

from gradle_repl.environment import ReplEnvironment
from gradle_repl.errors import WorkerFailed
from gradle_repl.worker.artifacts.facade import build_class_phases_addon, first_compile_error
from gradle_repl.worker.artifacts.facade_jars import has_compiler_plugins
from gradle_repl.worker.java import JavaException, JavaObject, ReplDriver, addon_loader, java_class
from gradle_repl.worker.repl.plugin_hints import Hint

__all__ = ["class_phases"]

# What the compiler says of the generated companion's serializer() called through the class (kotlinx.serialization's is
# the companion users reach for; a hint on every unresolved name would mislead on each typo).
_UNRESOLVED = re.compile(r"Unresolved reference 'serializer'")
# What kotlinx.serialization says when it encodes or decodes through a sealed type that knows none of its subclasses.
_NOT_IN_SCOPE = re.compile(r"is not found in the polymorphic scope of")


def class_phases(
    environment: ReplEnvironment, driver: ReplDriver, facade_loader: JavaObject, facade_jar: str
) -> list[Hint]:
    """Registers the add-on in the session's compiler; when it can't, the hints for what a session with compiler
    plugins then meets (without plugins, a `when` is all it changes, and nothing there fails to point at)."""
    try:
        jar, _ = build_class_phases_addon(environment.kotlin_version, [*environment.repl_host_classpath, facade_jar])
        java_class("gradlerepl.classphases.ClassPhases", loader=addon_loader(jar, facade_loader))(driver)
        return []
    except WorkerFailed as error:
        why = f"its add-on did not compile on Kotlin {environment.kotlin_version}: {first_compile_error(str(error))}"
    except (JavaException, TypeError) as error:
        why = f"its add-on could not start on Kotlin {environment.kotlin_version}: {error}"
    print(f"[gradle-repl] snippet classes get no generated companions and no sealed inheritors: {why}", file=sys.stderr)
    if not has_compiler_plugins(environment):
        return []
    return [
        Hint(
            _UNRESOLVED,
            (
                "hint: in this session a companion object that a compiler plugin generates (kotlinx.serialization's, "
                f"with serializer()) is not its class's companion ({why}): call its members through `.Companion`, "
                "as in `Q.Companion.serializer()`."
            ),
        ),
        Hint(
            _NOT_IN_SCOPE,
            (
                "hint: in this session a sealed class or interface declared in a snippet knows none of its subclasses "
                f"({why}): declare the hierarchy in the project's sources, or name its subclasses in a "
                "SerializersModule (`polymorphic(Shape::class) { subclass(Square::class) }`)."
            ),
        ),
    ]
