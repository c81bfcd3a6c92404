"""JVM type names map to the Kotlin types users read on Kotlin 2.3, whatever REPL version reported them."""

from __future__ import annotations

import pytest

from gradle_repl.worker.results.kotlin_types import kotlin_type_name


@pytest.mark.parametrize(
    ("jvm", "kotlin"),
    [
        ("java.lang.String", "kotlin.String"),
        ("int", "kotlin.Int"),
        ("java.lang.Integer", "kotlin.Int"),
        ("java.util.List<java.lang.Integer>", "kotlin.collections.List<kotlin.Int>"),
        ("java.util.Map<java.lang.String, java.lang.Double>", "kotlin.collections.Map<kotlin.String, kotlin.Double>"),
        (
            "java.util.List<java.util.List<java.lang.Integer>>",
            "kotlin.collections.List<kotlin.collections.List<kotlin.Int>>",
        ),
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
        (
            "kotlin.collections.MutableList<kotlin.Pair<kotlin.Int, kotlin.String>>",
            "kotlin.collections.MutableList<kotlin.Pair<kotlin.Int, kotlin.String>>",
        ),
        ("(kotlin.Int) -> kotlin.Int", "(kotlin.Int) -> kotlin.Int"),
    ],
)
def test_kotlin_type_name(jvm: str, kotlin: str) -> None:
    assert kotlin_type_name(jvm) == kotlin


@pytest.mark.parametrize(
    ("reported", "written"),
    [
        ("_6_repl$K", "K"),
        ("_4_repl$Outer$Inner", "Outer.Inner"),
        ("java.util.List<_6_repl$K>", "kotlin.collections.List<K>"),
        ("java.util.Map<java.lang.String, _6_repl$K>", "kotlin.collections.Map<kotlin.String, K>"),
        ("[L_6_repl$K;", "kotlin.Array<K>"),
        ("_6_repl$K[]", "kotlin.Array<K>"),
        ("kotlin.jvm.functions.Function1<? super _6_repl$K, java.lang.Integer>", "(K) -> kotlin.Int"),
        ("(_6_repl.K) -> kotlin.Int", "(K) -> kotlin.Int"),
        ("<root>._4_repl.Outer.Inner", "Outer.Inner"),
        ("sample.Outer$Inner", "sample.Outer.Inner"),
        (
            "java.util.Map$Entry<java.lang.String, java.lang.Integer>",
            "kotlin.collections.Map.Entry<kotlin.String, kotlin.Int>",
        ),
    ],
)
def test_classes_read_as_the_user_wrote_them(reported: str, written: str) -> None:
    """A snippet's classes lose the REPL's class for the snippet (`_6_repl$`); nested classes read with dots."""
    assert kotlin_type_name(reported) == written
