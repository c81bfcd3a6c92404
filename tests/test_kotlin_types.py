"""JVM type names map to the Kotlin types users read on Kotlin 2.3, whatever REPL version reported them."""

from __future__ import annotations

import pytest

from gradle_repl.worker.kotlin_types import kotlin_type_name


@pytest.mark.parametrize(
    ("jvm", "kotlin"),
    [
        ("java.lang.String", "kotlin.String"),
        ("int", "kotlin.Int"),
        ("java.lang.Integer", "kotlin.Int"),
        ("java.util.List<java.lang.Integer>", "kotlin.collections.List<kotlin.Int>"),
        ("java.util.Map<java.lang.String, java.lang.Double>", "kotlin.collections.Map<kotlin.String, kotlin.Double>"),
        ("java.util.List<java.util.List<java.lang.Integer>>", "kotlin.collections.List<kotlin.collections.List<kotlin.Int>>"),
        ("java.util.List<? extends java.lang.Number>", "kotlin.collections.List<out kotlin.Number>"),
        ("java.util.Comparator<? super java.lang.String>", "java.util.Comparator<in kotlin.String>"),
        ("java.util.List<?>", "kotlin.collections.List<*>"),
        ("[I", "kotlin.IntArray"),
        ("[[J", "kotlin.Array<kotlin.LongArray>"),
        ("[Ljava.lang.String;", "kotlin.Array<kotlin.String>"),
        ("int[]", "kotlin.IntArray"),
        ("java.lang.Integer[]", "kotlin.Array<kotlin.Int>"),
        ("java.lang.String[][]", "kotlin.Array<kotlin.Array<kotlin.String>>"),
        ("kotlin.jvm.functions.Function1<? super java.lang.Integer, java.lang.Integer>", "(kotlin.Int) -> kotlin.Int"),
        ("kotlin.Pair<java.lang.Integer, java.lang.String>", "kotlin.Pair<kotlin.Int, kotlin.String>"),
        ("sample.Shelf", "sample.Shelf"),
        ("kotlin.collections.MutableList<kotlin.Pair<kotlin.Int, kotlin.String>>", "kotlin.collections.MutableList<kotlin.Pair<kotlin.Int, kotlin.String>>"),
        ("(kotlin.Int) -> kotlin.Int", "(kotlin.Int) -> kotlin.Int"),
    ],
)
def test_kotlin_type_name(jvm: str, kotlin: str):
    assert kotlin_type_name(jvm) == kotlin
