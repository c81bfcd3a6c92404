"""An error about serializers says when snippets can't have them: the serialization plugin isn't applied, and why."""

from __future__ import annotations

from gradle_repl.environment import ReplEnvironment
from gradle_repl.worker.plugin_hints import serialization_hint, with_hint

RUNTIME = "/m2/org/jetbrains/kotlinx/kotlinx-serialization-core-jvm/1.6.3/kotlinx-serialization-core-jvm-1.6.3.jar"
PLUGIN = "/m2/org/jetbrains/kotlin/kotlin-serialization-compiler-plugin-embeddable/2.3.21/kotlin-serialization-compiler-plugin-embeddable-2.3.21.jar"
NO_K2_REPL = (
    "Kotlin 1.9.24 has no K2 REPL; snippets compile with Kotlin 2.3.21, and with the build's JetBrains compiler "
    "plugins at 2.3.21 (the project's compiled classes work as usual)"
)
DROPPED = (
    "compiler plugin kotlin-serialization-compiler-plugin-embeddable could not be fetched at Kotlin 2.3.21 "
    "(Maven could not resolve …): snippets compile without it"
)
UNRESOLVED = "error: Unresolved reference 'serializer'. (line 1, col 3)\n    Q.serializer()\n      ^"
NOT_FOUND = "kotlinx.serialization.SerializationException: Serializer for class 'Q' is not found.\nPlease ensure …\n"


def environment(**fields: object) -> ReplEnvironment:
    base = {"build_tool": "maven", "project_root": "/p", "java_executable": "/jdk/bin/java", "java_home": "/jdk", "kotlin_version": "2.3.21"}
    return ReplEnvironment.model_validate({**base, **fields})


def test_a_plugin_that_could_not_come_along_is_the_reason_given():
    """A Kotlin 1.9 project whose plugin couldn't be fetched at the REPL's Kotlin: the environment's own warning
    about that plugin says why, not the general one about the REPL's Kotlin."""
    hint = serialization_hint(environment(classpath=[RUNTIME], project_kotlin_version="1.9.24", warnings=[NO_K2_REPL, DROPPED]))
    assert hint == (
        "hint: the kotlinx.serialization compiler plugin is not applied to snippets, so classes they declare get no "
        f"serializer(): {DROPPED}."
    )
    assert with_hint(UNRESOLVED, hint) == f"{UNRESOLVED}\n{hint}"
    assert with_hint(NOT_FOUND, hint) == f"{NOT_FOUND.rstrip()}\n{hint}"


def test_a_build_without_the_plugin_is_told_how_to_apply_it():
    """Where the build itself doesn't apply the plugin, the hint says so and how builds apply it."""
    hint = serialization_hint(environment(classpath=[RUNTIME]))
    assert hint is not None and "the build does not apply it" in hint and 'kotlin("plugin.serialization")' in hint


def test_no_hint_where_snippets_have_serializers_or_none_are_wanted():
    """With the plugin applied, or without the serialization library at all, errors stay as they are."""
    assert serialization_hint(environment(classpath=[RUNTIME], compiler_plugin_classpath=[PLUGIN])) is None
    assert serialization_hint(environment(classpath=["/m2/sample.jar"])) is None
    hint = serialization_hint(environment(classpath=[RUNTIME]))
    assert with_hint("error: Unresolved reference 'missing'.", hint) == "error: Unresolved reference 'missing'."
