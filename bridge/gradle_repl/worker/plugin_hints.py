"""A line added to an error that the session's setup explains, not the snippet: a `@Serializable` class declared
in a snippet gets no `serializer()` when the kotlinx.serialization compiler plugin isn't applied to snippets.

Without the plugin the annotation still resolves (it is the runtime library's), so the class compiles and the
error comes later — "Unresolved reference 'serializer'" or the runtime's "Serializer for class 'Q' is not
found" — saying nothing of why the plugin is missing. Pure functions of the environment, tested without a JVM.
"""

from __future__ import annotations

import re
from pathlib import Path

from gradle_repl.environment import ReplEnvironment

__all__ = ["serialization_hint", "with_hint"]

# Every build names its plugin jar so: kotlin-serialization-compiler-plugin(-embeddable), kotlin-maven-serialization.
_SERIALIZATION_PLUGIN_JAR = re.compile(r"serialization")
# The runtime library; a project without it has no @Serializable to forget a plugin for.
_SERIALIZATION_RUNTIME_JAR = re.compile(r"^kotlinx-serialization-core")
# What such an error says: `serializer()` unresolved, or the runtime's plea to mark the class @Serializable.
_ABOUT_SERIALIZERS = re.compile(r"\bserializ(?:er|able)\b", re.IGNORECASE)
_MISSING_FROM_BUILD = (
    "the build does not apply it (Gradle: `kotlin(\"plugin.serialization\")`; Maven: the kotlin-maven-plugin's "
    "`kotlinx-serialization` compiler plugin)"
)


def serialization_hint(environment: ReplEnvironment) -> str | None:
    """The line for this session, when its snippets use kotlinx.serialization without the compiler plugin."""
    if _applies_serialization_plugin(environment) or not _has_serialization_runtime(environment):
        return None
    return (
        "hint: the kotlinx.serialization compiler plugin is not applied to snippets, so classes they declare get no "
        f"serializer(): {_why_not_applied(environment)}."
    )


def with_hint(message: str, hint: str | None) -> str:
    """The error message, with the hint as its last line when the message is about serializers."""
    if hint is None or not _ABOUT_SERIALIZERS.search(message):
        return message
    return f"{message.rstrip()}\n{hint}"


def _applies_serialization_plugin(environment: ReplEnvironment) -> bool:
    plugins = [option.removeprefix("-Xplugin=") for option in environment.compiler_options() if option.startswith("-Xplugin=")]
    return any(_SERIALIZATION_PLUGIN_JAR.search(Path(jar).name) for jar in plugins)


def _has_serialization_runtime(environment: ReplEnvironment) -> bool:
    return any(_SERIALIZATION_RUNTIME_JAR.match(Path(entry).name) for entry in environment.classpath)


def _why_not_applied(environment: ReplEnvironment) -> str:
    """The environment's own warning about the plugin where it has one (e.g. the plugin couldn't be fetched at the
    REPL's Kotlin version), else that the build doesn't apply it."""
    said = next((w for w in environment.warnings if _SERIALIZATION_PLUGIN_JAR.search(w)), None)
    return said or _MISSING_FROM_BUILD
