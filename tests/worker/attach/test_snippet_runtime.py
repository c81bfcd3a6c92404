"""Which Kotlin runtime an attached session lends its snippets (worker/attach/snippet_runtime.py): an app without a
kotlin-stdlib jar the REPL's stdlib and script runtime, an app with one of its own nothing."""

from __future__ import annotations

from gradle_repl.worker.attach.snippet_runtime import snippet_runtime_jars

_KOTLIN = "/m2/org/jetbrains/kotlin"
STDLIB = f"{_KOTLIN}/kotlin-stdlib/2.2.21/kotlin-stdlib-2.2.21.jar"
SCRIPT_RUNTIME = f"{_KOTLIN}/kotlin-script-runtime/2.2.21/kotlin-script-runtime-2.2.21.jar"
# The REPL host's class path, as a resolve hands it over: the compiler and scripting jars beside the two runtime ones.
HOST = [
    f"{_KOTLIN}/kotlin-compiler-embeddable/2.2.21/kotlin-compiler-embeddable-2.2.21.jar",
    STDLIB,
    f"{_KOTLIN}/kotlin-scripting-jvm/2.2.21/kotlin-scripting-jvm-2.2.21.jar",
    SCRIPT_RUNTIME,
    "/m2/org/jetbrains/annotations/13.0/annotations-13.0.jar",
]


def test_an_app_without_a_kotlin_stdlib_is_lent_the_repls_stdlib_and_script_runtime() -> None:
    """A Java app's class path (its classes, a Java library): every snippet links to kotlin.Unit, so it is lent the
    REPL's own stdlib and script runtime, and none of the compiler's jars."""
    assert snippet_runtime_jars(["/app/classes", "/app/lib/guava-33.4.0-jre.jar"], HOST) == [STDLIB, SCRIPT_RUNTIME]


def test_an_app_with_a_kotlin_stdlib_of_its_own_is_lent_nothing() -> None:
    """A Kotlin app keeps its own runtime: snippets compile for its Kotlin, and nothing is lent."""
    assert snippet_runtime_jars(["/app/classes", "/app/lib/kotlin-stdlib-2.1.0.jar"], HOST) == []
