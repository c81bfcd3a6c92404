"""Lines added to an error that the session's setup explains, not the snippet.

A `@Serializable` class declared in a snippet gets no `serializer()` when the kotlinx.serialization compiler plugin
isn't applied to snippets. Without the plugin the annotation still resolves (it is the runtime library's), so the
class compiles and the error comes later — "Unresolved reference 'serializer'" or the runtime's "Serializer for
class 'Q' is not found" — saying nothing of why the plugin is missing.

In a Compose project, `renderComposable` is missing where the session can't have it ("Unresolved reference"), and
without Skiko's native library Compose fails naming a file (`libskiko-linux-x64.so`), not the artifact to add.

Pure functions of the environment, tested without a JVM.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from gradle_repl.environment import SKIKO_RUNTIME_MISSING, ReplEnvironment

__all__ = ["Hint", "compose_hints", "serialization_hint", "with_hints"]

# Every build names its plugin jar so: kotlin-serialization-compiler-plugin(-embeddable), kotlin-maven-serialization.
_SERIALIZATION_PLUGIN_JAR = re.compile(r"serialization")
# The runtime library; a project without it has no @Serializable to forget a plugin for.
_SERIALIZATION_RUNTIME_JAR = re.compile(r"^kotlinx-serialization-core")
# What such an error says: `serializer()` unresolved, or the runtime's plea to mark the class @Serializable.
_ABOUT_SERIALIZERS = re.compile(r"\bserializ(?:er|able)\b", re.IGNORECASE)
# Without its native library Skiko fails where it is first used: its loader's "Cannot find libskiko-linux-x64.so.sha256,
# proper native dependency missing" (often as the cause of an ExceptionInInitializerError), or an UnsatisfiedLinkError
# of a Skia class once that has been said. Read in the error's stack too, where causes are.
_ABOUT_SKIKO = re.compile(r"libskiko|org\.jetbrains\.skiko?\.|native dependency missing")
_ABOUT_RENDER_COMPOSABLE = re.compile(r"\brenderComposable\b")
_MISSING_FROM_BUILD = (
    'the build does not apply it (Gradle: `kotlin("plugin.serialization")`; Maven: the kotlin-maven-plugin\'s '
    "`kotlinx-serialization` compiler plugin)"
)


class Hint(NamedTuple):
    about: re.Pattern[str]  # what an error message says when this hint explains it
    line: str


def serialization_hint(environment: ReplEnvironment) -> Hint | None:
    """The hint for this session, when its snippets use kotlinx.serialization without the compiler plugin."""
    if _applies_serialization_plugin(environment) or not _has_serialization_runtime(environment):
        return None
    return Hint(
        _ABOUT_SERIALIZERS,
        (
            "hint: the kotlinx.serialization compiler plugin is not applied to snippets, so classes they declare get no "
            f"serializer(): {_why_not_applied(environment)}."
        ),
    )


def compose_hints(environment: ReplEnvironment, render_composable_unavailable: str | None) -> list[Hint]:
    """A Compose session's hints: why renderComposable is missing, and which Skiko artifact the project lacks."""
    hints = (
        [Hint(_ABOUT_RENDER_COMPOSABLE, f"hint: {render_composable_unavailable}.")]
        if render_composable_unavailable
        else []
    )
    skiko = next((w for w in environment.warnings if w.startswith(SKIKO_RUNTIME_MISSING)), None)
    return hints + ([Hint(_ABOUT_SKIKO, f"hint: {skiko}.")] if skiko else [])


def with_hints(message: str, hints: list[Hint], *, stack: str | None = None) -> str:
    """The error message, with the line of each hint that explains it (or its stack) added at its end."""
    said = f"{message}\n{stack or ''}"
    lines = [hint.line for hint in hints if hint.about.search(said)]
    return "\n".join([message.rstrip(), *lines]) if lines else message


def _applies_serialization_plugin(environment: ReplEnvironment) -> bool:
    plugins = [
        option.removeprefix("-Xplugin=") for option in environment.compiler_options() if option.startswith("-Xplugin=")
    ]
    return any(_SERIALIZATION_PLUGIN_JAR.search(Path(jar).name) for jar in plugins)


def _has_serialization_runtime(environment: ReplEnvironment) -> bool:
    return any(_SERIALIZATION_RUNTIME_JAR.match(Path(entry).name) for entry in environment.classpath)


def _why_not_applied(environment: ReplEnvironment) -> str:
    """The environment's own warning about the plugin where it has one (e.g. the plugin couldn't be fetched at the
    REPL's Kotlin version), else that the build doesn't apply it."""
    said = next((w for w in environment.warnings if _SERIALIZATION_PLUGIN_JAR.search(w)), None)
    return said or _MISSING_FROM_BUILD
