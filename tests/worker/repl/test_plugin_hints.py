"""An error the session's setup explains says so: serializers snippets can't have (the serialization plugin isn't
applied, and why), a renderComposable the session lacks, a Skiko native library the project lacks."""

from __future__ import annotations

from gradle_repl.environment import ReplEnvironment
from gradle_repl.project.compose_support import compose_warnings, skiko_runtime_artifact
from gradle_repl.worker.repl.compose_addon import compose_addon
from gradle_repl.worker.repl.plugin_hints import compose_hints, serialization_hint, with_hints

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
    base = {
        "build_tool": "maven",
        "project_root": "/p",
        "java_executable": "/jdk/bin/java",
        "java_home": "/jdk",
        "kotlin_version": "2.3.21",
    }
    return ReplEnvironment.model_validate({**base, **fields})


def test_a_plugin_that_could_not_come_along_is_the_reason_given() -> None:
    """A Kotlin 1.9 project whose plugin couldn't be fetched at the REPL's Kotlin: the environment's own warning
    about that plugin says why, not the general one about the REPL's Kotlin."""
    hint = serialization_hint(
        environment(classpath=[RUNTIME], project_kotlin_version="1.9.24", warnings=[NO_K2_REPL, DROPPED])
    )
    assert hint is not None and hint.line == (
        "hint: the kotlinx.serialization compiler plugin is not applied to snippets, so classes they declare get no "
        f"serializer(): {DROPPED}."
    )
    assert with_hints(UNRESOLVED, [hint]) == f"{UNRESOLVED}\n{hint.line}"
    assert with_hints(NOT_FOUND, [hint]) == f"{NOT_FOUND.rstrip()}\n{hint.line}"


def test_a_build_without_the_plugin_is_told_how_to_apply_it() -> None:
    """Where the build itself doesn't apply the plugin, the hint says so and how builds apply it."""
    hint = serialization_hint(environment(classpath=[RUNTIME]))
    assert (
        hint is not None
        and "the build does not apply it" in hint.line
        and 'kotlin("plugin.serialization")' in hint.line
    )


def test_no_hint_where_snippets_have_serializers_or_none_are_wanted() -> None:
    """With the plugin applied, or without the serialization library at all, errors stay as they are."""
    assert serialization_hint(environment(classpath=[RUNTIME], compiler_plugin_classpath=[PLUGIN])) is None
    assert serialization_hint(environment(classpath=["/m2/sample.jar"])) is None
    hint = serialization_hint(environment(classpath=[RUNTIME]))
    assert hint is not None
    assert with_hints("error: Unresolved reference 'missing'.", [hint]) == "error: Unresolved reference 'missing'."


COMPOSE_UI = "/m2/org/jetbrains/compose/ui/ui-desktop/1.7.3/ui-desktop-1.7.3.jar"
SKIKO = "/m2/org/jetbrains/skiko/skiko-awt/0.8.18/skiko-awt-0.8.18.jar"
COMPOSE_PLUGIN = "/m2/org/jetbrains/kotlin/kotlin-compose-compiler-plugin-embeddable/2.3.21/kotlin-compose-compiler-plugin-embeddable-2.3.21.jar"
# Skiko's failure without its native library, as a snippet's error shows it (message, then stack with causes).
SKIKO_FAILURE = "java.lang.ExceptionInInitializerError"
SKIKO_STACK = (
    "    at androidx.compose.ui.ImageComposeScene.<init>(ImageComposeScene.skikoMain.kt:137)\n"
    "Caused by: org.jetbrains.skiko.LibraryLoadException: Cannot find libskiko-linux-x64.so.sha256, proper native "
    "dependency missing."
)


def compose_session(*classpath: str, plugins: tuple[str, ...] = ()) -> ReplEnvironment:
    """A Compose project's environment with the warnings the project side gives it."""
    env = environment(classpath=list(classpath), compiler_plugin_classpath=list(plugins))
    env.warnings = compose_warnings(env)
    return env


def test_a_missing_skiko_runtime_is_one_line_naming_the_artifact_at_start_and_on_the_error() -> None:
    """Without skiko-awt-runtime-<os>-<arch> Compose fails naming a .so file; the session says, once at its start and
    again with such an error, which artifact (at the project's Skiko version) to add."""
    env = compose_session("/p/target/classes", COMPOSE_UI, SKIKO, plugins=(COMPOSE_PLUGIN,))
    (line,) = env.warnings
    assert "\n" not in line and ":skiko-awt-runtime-" in line and "org.jetbrains.skiko:skiko-awt-runtime-" in line
    assert line.endswith("0.8.18 to the project's runtime dependencies (Gradle: compose.desktop.currentOs)")
    hints = compose_hints(env, None)
    assert with_hints(SKIKO_FAILURE, hints, stack=SKIKO_STACK) == f"{SKIKO_FAILURE}\nhint: {line}."
    assert (
        with_hints("java.lang.IllegalStateException: no", hints, stack="    at Snippet.main")
        == "java.lang.IllegalStateException: no"
    )
    runtime = "/m2/org/jetbrains/skiko/skiko-awt-runtime-linux-x64/0.8.18/skiko-awt-runtime-linux-x64-0.8.18.jar"
    assert compose_warnings(compose_session(COMPOSE_UI, SKIKO, runtime, plugins=(COMPOSE_PLUGIN,))) == []


def test_skiko_names_this_machine_as_skiko_does() -> None:
    assert skiko_runtime_artifact("Linux", "x86_64") == "skiko-awt-runtime-linux-x64"
    assert skiko_runtime_artifact("Darwin", "arm64") == "skiko-awt-runtime-macos-arm64"
    assert skiko_runtime_artifact("Windows", "AMD64") == "skiko-awt-runtime-windows-x64"


def test_without_the_compose_plugin_render_composable_is_missing_and_the_error_says_why() -> None:
    """Compose UI without the Compose compiler plugin: the session says at its start that snippets can't declare
    @Composable functions and how builds apply the plugin; an unresolved renderComposable repeats the reason."""
    runtime = "/m2/skiko-awt-runtime-linux-x64-0.8.18.jar"
    env = compose_session(COMPOSE_UI, SKIKO, runtime)
    (line,) = env.warnings
    assert (
        "@Composable" in line
        and 'kotlin("plugin.compose")' in line
        and "kotlin-compose-compiler-plugin-embeddable" in line
    )
    addon = compose_addon(env, compile_classpath=[])  # nothing to compile: no JVM is needed to say why
    assert (
        addon.jar is None
        and addon.imports == []
        and addon.unavailable == f"renderComposable is unavailable in this session: {line}"
    )
    unresolved = "error: Unresolved reference 'renderComposable'. (line 1, col 1)"
    assert with_hints(unresolved, compose_hints(env, addon.unavailable)) == f"{unresolved}\nhint: {addon.unavailable}."


def test_a_project_without_compose_ui_gets_no_compose_lines() -> None:
    assert compose_warnings(environment(classpath=["/m2/ui-desktop-helper.jar", SKIKO])) == []
    assert compose_addon(environment(classpath=[SKIKO]), compile_classpath=[]) == compose_addon(
        environment(), compile_classpath=[]
    )
    assert compose_addon(environment(), compile_classpath=[]).unavailable is None
    assert compose_hints(environment(classpath=[SKIKO]), None) == []
