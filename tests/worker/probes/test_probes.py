"""Probes: a line's locals, `this` and expressions recorded while a snippet or the project's tests run through it, no
thread stopped. A real Maven build of tests/projects/maven-junit (a shop's Cart with private items; CartTest's
discountFromTenItems fails), one test session's JVM shared by the tests in file order, the real compiler compiling
each probe's `when` and `capture`, the session's agent retransforming the classes."""

from __future__ import annotations

import argparse
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gradle_repl.frames import (
    ErrorResult,
    Probe,
    ProbeHit,
    ProbeLocal,
    ProbesResult,
    SuccessResult,
    TestFailureDetail,
    TestRunResult,
)
from gradle_repl.front.probe_arguments import add_probe_arguments, probes_given
from gradle_repl.front.probe_tools import ProbeTools
from gradle_repl.worker.probes.hits import NO_LOCAL_NAMES
from gradle_repl.worker.probes.locations import locate, nearest_lines, source_package
from gradle_repl.worker.repl.failure_frames import explained_frames, frame_probes, rerun_selector
from gradle_repl.worker.runner import ProbeError
from support.paths import PROJECTS, copy_project
from support.projectsession import ProjectSession

SHOP = PROJECTS / "maven-junit"
CART = "src/main/kotlin/shop/Cart.kt"
jvm = pytest.mark.jvm


class ProbedShop(ProjectSession):
    """A private copy of the shop project and its test session."""

    def hits(self, code: str, *probes: Probe) -> list[ProbeHit]:
        reply = self.snippet(code, *probes)
        assert isinstance(reply.result, SuccessResult), reply.result
        return reply.result.probe_hits


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProbedShop]:
    project = ProbedShop(copy_project(SHOP, tmp_path_factory.mktemp("probes") / "shop"))
    yield project
    project.close()


def _line(shop: ProbedShop, text: str, path: str = CART) -> int:
    """The 1-based line of the project file holding `text`."""
    lines = (shop.root / path).read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def _local(hit: ProbeHit, name: str) -> str:
    return next(local.value for local in hit.locals if local.name == name)


# --- Without a JVM ------------------------------------------------------------------------------------------


def test_a_location_names_a_file_a_path_suffix_or_a_class(tmp_path: Path) -> None:
    (tmp_path / "a" / "shop").mkdir(parents=True)
    (tmp_path / "b" / "shop").mkdir(parents=True)
    (tmp_path / "a" / "shop" / "Cart.kt").write_text("package shop\n\nclass Cart\n")
    (tmp_path / "b" / "shop" / "Cart.kt").write_text("package shop\n\nclass Cart2\n")
    (tmp_path / "a" / "shop" / "Only.kt").write_text('// head\n@file:JvmName("O")\npackage shop.only\n\nfun f() = 1\n')
    roots = [tmp_path / "a", tmp_path / "b"]
    found = locate("Only.kt:5", roots)
    assert (found.file_name, found.package, found.last_line) == ("Only.kt", "shop.only", 5)
    assert locate("a/shop/Cart.kt:3", [tmp_path]).path == (tmp_path / "a" / "shop" / "Cart.kt").resolve()
    assert locate("shop.Cart:3", roots).class_name == "shop.Cart"
    with pytest.raises(ProbeError, match=r"2 source files end with shop/Cart.kt .*a/shop/Cart.kt.*b/shop/Cart.kt"):
        locate("shop/Cart.kt:3", roots)
    with pytest.raises(ProbeError, match=r"no source file Nope\.kt"):
        locate("Nope.kt:1", roots)
    with pytest.raises(ProbeError, match=r"Only\.kt has 5 lines"):
        locate("Only.kt:6", roots)
    with pytest.raises(ProbeError, match="not a probe location"):
        locate("Only.kt", roots)
    with pytest.raises(ProbeError, match="names neither"):
        locate("shop Cart:3", roots)


def test_the_nearest_lines_with_code_and_a_sources_package() -> None:
    assert nearest_lines(10, [3, 8, 12, 20]) == "the nearest lines with code are 8 and 12"
    assert nearest_lines(1, [3]) == "the nearest lines with code are 3"
    assert source_package("/* package no */\n// package nope\npackage `in`.shop;\n") == "in.shop"
    assert source_package("fun main() {}") == ""


def test_a_failures_frames_become_probes_outermost_first_and_take_their_last_hit() -> None:
    failure = TestFailureDetail(
        test="shop.CheckoutTest.overBudget[1]",
        display_name="overBudget()",
        message="java.lang.IllegalArgumentException: over budget",
        stack=[
            "shop.CheckoutKt.charge(Checkout.kt:9)",
            "shop.CheckoutKt.checkout(Checkout.kt:5)",
            "shop.CheckoutTest$overBudget$1.invoke(CheckoutTest.kt:9)",
            "shop.CheckoutTest.overBudget(CheckoutTest.kt:9)",
            "Caused by: java.lang.IllegalStateException: inner",
            "shop.Inner.fail(Inner.kt:3)",
        ],
    )
    probes = frame_probes(failure)
    assert [p.at for p in probes] == [
        "shop.CheckoutTest:9",
        "shop.CheckoutTest$overBudget$1:9",
        "shop.CheckoutKt:5",
        "shop.CheckoutKt:9",
    ]
    assert rerun_selector(failure) == "shop.CheckoutTest.overBudget"

    def hit(probe: int, number: int, value: str) -> ProbeHit:
        local = ProbeLocal(name="n", type="kotlin.Int", value=value)
        return ProbeHit(at=f"frame {probe}", probe=probe, hit=number, thread="t", locals=[local])

    frames = explained_frames(probes, [hit(0, 1, "a"), hit(2, 1, "b"), hit(2, 2, "c")])
    assert [(f.at, f.locals[0].value) for f in frames] == [("frame 0", "a"), ("frame 2", "c")]


def test_the_command_lines_probes_take_the_options_after_each_probe() -> None:
    parser = argparse.ArgumentParser()
    add_probe_arguments(parser)
    args = parser.parse_args(
        [
            "--probe",
            "Cart.kt:18",
            "--capture",
            "size",
            "--capture",
            "items",
            "--probe",
            "shop.Cart:6",
            "--when",
            "x > 1",
            "--max-hits",
            "5",
        ]
    )
    assert probes_given(args) == [
        Probe(at="Cart.kt:18", capture=["size", "items"]),
        Probe(at="shop.Cart:6", when="x > 1", max_hits=5),
    ]
    with pytest.raises(SystemExit):
        parser.parse_args(["--capture", "size"])


# --- In the session ---------------------------------------------------------------------------------------


@jvm
def test_a_probe_records_locals_and_private_state_at_a_line(shop: ProbedShop) -> None:
    line = _line(shop, "return if (size > 10)")
    hits = shop.hits(
        'shop.Cart().add(shop.Item("cup", 100, quantity = 10)).totalCents()',
        Probe(at=f"Cart.kt:{line}", capture=["items.size", "size > 10", "subtotal / 10"]),
    )
    assert len(hits) == 1, hits
    hit = hits[0]
    assert hit.at == f"shop.Cart.totalCents(Cart.kt:{line})"
    assert (hit.probe, hit.hit) == (0, 1)
    assert [(local.name, local.type, local.value) for local in hit.locals] == [("subtotal", "kotlin.Long", "1000")]
    assert hit.this == "Cart(items=[Item(name=cup, priceCents=100, quantity=10)])"
    assert [(c.expression, c.value, c.type) for c in hit.captured] == [
        ("items.size", "1", "kotlin.Int"),
        ("size > 10", "false", "kotlin.Boolean"),
        ("subtotal / 10", "100", "kotlin.Long"),
    ]
    assert hit.stack[0] == hit.at and hit.stack[1].startswith("snippet "), hit.stack
    assert hit.stack[-1].endswith("more (REPL internals)"), hit.stack


@jvm
def test_when_chooses_the_hits_and_max_hits_ends_the_probe(shop: ProbedShop) -> None:
    line = _line(shop, "return if (size > 10)")
    code = '(1..6).map { n -> shop.Cart().add(shop.Item("cup", 100, quantity = n)).totalCents() }'
    hits = shop.hits(code, Probe(at=f"shop.Cart:{line}", when="subtotal >= 300", max_hits=2, capture=["size"]))
    assert [(h.hit, _local(h, "subtotal"), h.captured[0].value) for h in hits] == [(1, "300", "3"), (2, "400", "4")]
    assert {h.at for h in hits} == {f"shop.Cart.totalCents(Cart.kt:{line})"}
    hits = shop.hits(code, Probe(at=f"Cart.kt:{line}", max_hits=1000))
    assert [_local(h, "subtotal") for h in hits] == ["100", "200", "300", "400", "500", "600"]
    # A `when` that calls the probed method reaches its own line again: there it isn't evaluated, so it doesn't
    # recurse (it counts its evaluations: one per call of the snippet's), and each call passes the line once.
    subtotal = _line(shop, "fun subtotalCents()")
    counted = "shop.Shop.cartsOpened++ >= 0 && subtotalCents() >= 300"
    hits = shop.hits(f"shop.Shop.cartsOpened = 0\n{code}", Probe(at=f"Cart.kt:{subtotal}", when=counted, max_hits=1000))
    assert [(h.hit, h.at) for h in hits] == [(n, f"shop.Cart.subtotalCents(Cart.kt:{subtotal})") for n in range(1, 5)]
    assert shop.value("shop.Shop.cartsOpened") == "6"
    # Nor does another probe's line record what a `when` reaches: the probe's own code is no pass of the program's.
    hits = shop.hits(
        code,
        Probe(at=f"Cart.kt:{line}", when="subtotalCents() > 0", max_hits=1000),
        Probe(at=f"Cart.kt:{subtotal}", max_hits=1000),
    )
    assert sorted(h.probe for h in hits) == [0] * 6 + [1] * 6, [(h.probe, h.stack[:3]) for h in hits]


@jvm
def test_a_when_reads_locals_of_every_primitive_type_as_the_line_holds_them(shop: ProbedShop) -> None:
    """The probed line's call passes primitives as they are (two slots for a Double): each reads as its Kotlin type."""
    (shop.root / "src/main/kotlin/shop/Scales.kt").write_text(
        "package shop\n\nfun weigh(grams: Double): String {\n    val heavy: Boolean = grams > 1000.0\n"
        "    val unit: Char = if (heavy) 'k' else 'g'\n    val small: Byte = 1\n    val mid: Short = 2\n"
        '    val ratio: Float = 0.5f\n    return "$grams $unit $small $mid $ratio $heavy"\n}\n'
    )
    when = "heavy && unit == 'k' && small == 1.toByte() && mid == 2.toShort() && ratio == 0.5f && grams > 1000.0"
    (hit,) = shop.hits("listOf(10.0, 2000.0).map { shop.weigh(it) }", Probe(at="Scales.kt:9", when=when))
    assert [(local.name, local.value) for local in hit.locals] == [
        ("grams", "2000.0"),
        ("heavy", "true"),
        ("unit", "k"),
        ("small", "1"),
        ("mid", "2"),
        ("ratio", "0.5"),
    ], hit.locals


@jvm
def test_two_probes_a_throwing_capture_and_a_failing_snippet_keep_their_hits(shop: ProbedShop) -> None:
    total = _line(shop, "return if (size > 10)")
    subtotal = _line(shop, "fun subtotalCents()")
    reply = shop.snippet(
        'val cart = shop.Cart().add(shop.Item("tea", 250))\ncart.totalCents()\nerror("after the cart")',
        Probe(at=f"Cart.kt:{total}", capture=["items.first().name", "items[5]", 'error("boom")']),
        # The line's inline `sumOf { … }` lambda is the line still running: one hit per call, not one per item too.
        Probe(at=f"Cart.kt:{subtotal}", max_hits=10),
        Probe(at=f"Cart.kt:{total}", when="items[5].quantity > 0"),
    )
    assert (
        isinstance(reply.result, ErrorResult)
        and reply.result.message == "java.lang.IllegalStateException: after the cart"
    )
    by_probe = {hit.probe: hit for hit in reply.result.probe_hits}
    assert by_probe[1].at == f"shop.Cart.subtotalCents(Cart.kt:{subtotal})"
    assert [hit.hit for hit in reply.result.probe_hits if hit.probe == 1] == [1]
    # A `when` that throws is recorded in the hit; the probed code went on.
    assert by_probe[2].notes[0].startswith("`when` threw java.lang.IndexOutOfBoundsException"), by_probe[2].notes
    assert by_probe[2].at == f"shop.Cart.totalCents(Cart.kt:{total})"
    captured = by_probe[0].captured
    assert (captured[0].value, captured[0].error) == ("tea", None)
    assert captured[1].error is not None and captured[1].error.startswith("java.lang.IndexOutOfBoundsException")
    assert captured[2].error == "java.lang.IllegalStateException: boom"
    # What the probed code computed is what it computes without a probe.
    again = shop.snippet("cart.totalCents()", Probe(at=f"Cart.kt:{total}", capture=['error("x")'])).result
    assert isinstance(again, SuccessResult) and again.value is not None and again.value.data == "250"


@jvm
def test_a_probe_on_a_class_not_loaded_yet_applies_when_it_loads(shop: ProbedShop) -> None:
    """A file the session compiles for this call, its classes never loaded before the snippet runs: the probes (no
    `capture`, so nothing loads a class while they are set) are in their bytes as the JVM loads them — two lines of
    one method, and a constructor whose default arguments build objects before its own this() call."""
    shop.edit(
        "src/main/kotlin/shop/Late.kt",
        "",
        "package shop\n\nfun late(n: Int): Int {\n    val twice = n * 2\n    return twice + 1\n}\n\n"
        "class Box(\n    val items: MutableList<String> = mutableListOf(),\n    val label: String = items.size.toString(),\n)\n",
    )
    reply = shop.snippet(
        "shop.late(20) + shop.Box().label.length",
        Probe(at="Late.kt:4"),
        Probe(at="Late.kt:5"),
        Probe(at="Late.kt:10", max_hits=5),
    )
    assert isinstance(reply.result, SuccessResult) and reply.result.value is not None, reply.result
    assert reply.result.value.data == "42"
    hits = reply.result.probe_hits
    assert [(h.at, [(local.name, local.value) for local in h.locals]) for h in hits[:2]] == [
        ("shop.LateKt.late(Late.kt:4)", [("n", "20")]),
        ("shop.LateKt.late(Late.kt:5)", [("n", "20"), ("twice", "40")]),
    ]
    # The default-arguments constructor, before its this(...) call (no `this` there yet), the constructor itself, then
    # the property's getter: each a method with code on the line.
    constructed = [h for h in hits if h.probe == 2]
    assert [h.at for h in constructed] == [
        "shop.Box.<init>(Late.kt:10)",
        "shop.Box.<init>(Late.kt:10)",
        "shop.Box.getLabel(Late.kt:10)",
    ], hits
    assert constructed[0].this is None and all(h.this is not None for h in constructed[1:])
    assert all(not h.notes for h in hits), hits


@jvm
def test_a_probe_sees_the_threads_that_reach_its_line(shop: ProbedShop) -> None:
    line = _line(shop, "return if (size > 10)")
    code = (
        'val threads = (1..3).map { n -> Thread({ shop.Cart().add(shop.Item("x", 10L * n)).totalCents() }, "worker-$n") }\n'
        "threads.forEach { it.start() }\nthreads.forEach { it.join() }"
    )
    hits = shop.hits(code, Probe(at=f"Cart.kt:{line}", max_hits=3))
    assert sorted((h.thread, _local(h, "subtotal")) for h in hits) == [
        ("worker-1", "10"),
        ("worker-2", "20"),
        ("worker-3", "30"),
    ]
    assert sorted(h.hit for h in hits) == [1, 2, 3]


@jvm
def test_a_probe_that_cant_be_set_says_why_in_one_sentence_and_nothing_runs(shop: ProbedShop) -> None:
    before = shop.snippet("shop.Shop.cartsOpened").result
    blank = _line(shop, "/** 10 % off from ten items on. */") - 1
    code = "shop.Shop.cartsOpened++"
    cases = [
        (Probe(at="Nope.kt:3"), "`Nope.kt:3`: no source file Nope.kt in the project's sources"),
        (Probe(at="Cart.kt:999"), "`Cart.kt:999`: Cart.kt has "),
        (Probe(at=f"Cart.kt:{blank}"), f"`Cart.kt:{blank}`: line {blank} has no code a probe can stop at"),
        (Probe(at="Cart.kt"), "`Cart.kt` is not a probe location"),
        (Probe(at="Cart.kt:18", max_hits=1001), "probes[0].maxHits is 1001: it must be from 1 to 1000"),
        (Probe(at="Cart.kt:18", when="subtotl > 1"), "probes[0].when doesn't compile: unresolved reference 'subtotl'"),
        (Probe(at="Cart.kt:18", capture=["1", "items.sizee"]), "probes[0].capture[1] doesn't compile:"),
        (Probe(at="Cart.kt:18", when="subtotal"), "probes[0].when doesn't compile:"),
    ]
    for probe, said in cases:
        result = shop.snippet(code, probe).result
        assert isinstance(result, ErrorResult) and result.error_kind == "probe", (probe, result)
        assert said in result.message, (said, result.message)
    result = shop.snippet(code, *[Probe(at="Cart.kt:18")] * 21).result
    assert isinstance(result, ErrorResult) and result.message == "21 probes: a call may set at most 20"
    nearest = shop.snippet(code, Probe(at=f"Cart.kt:{blank}")).result
    assert isinstance(nearest, ErrorResult) and f"the nearest lines with code are {blank - 1} and" in nearest.message
    compile_error = shop.snippet(code, Probe(at="Cart.kt:18", when="true &&\n  subtotl > 1")).result
    assert isinstance(compile_error, ErrorResult) and compile_error.message.endswith("(line 2, col 3)")
    after = shop.snippet("shop.Shop.cartsOpened").result
    assert isinstance(before, SuccessResult) and isinstance(after, SuccessResult)
    assert before.value == after.value, "a call whose probe could not be set ran its snippet"


@jvm
def test_a_probe_in_a_test_run_records_the_failing_tests_state(shop: ProbedShop) -> None:
    line = _line(shop, "return if (size > 10)")
    test_line = _line(shop, "assertEquals(900, cart.totalCents()", "src/test/kotlin/shop/CartTest.kt")
    reply = shop.tests(
        "shop.CartTest.discountFromTenItems",
        probes=(
            Probe(at=f"Cart.kt:{line}", capture=["size"]),
            Probe(at=f"CartTest.kt:{test_line}", capture=["cart.size"]),
        ),
    )
    assert isinstance(reply.result, TestRunResult) and reply.result.failed == 1, reply.result
    hits = {hit.probe: hit for hit in reply.result.probe_hits}
    assert hits[1].at == f"shop.CartTest.discountFromTenItems(CartTest.kt:{test_line})"
    assert _local(hits[1], "cart") == "Cart(items=[Item(name=cup, priceCents=100, quantity=10)])"
    assert hits[0].captured[0].value == "10" and _local(hits[0], "subtotal") == "1000"
    assert hits[0].stack[1] == hits[1].at, hits[0].stack


@jvm
def test_explain_failures_gives_each_frame_of_a_failure_what_it_held(shop: ProbedShop) -> None:
    """A failing test whose exception is thrown two calls down in the project's code (files added to the session, as
    an agent would write them): each frame, from the test method to the throwing one, with its locals and `this`."""
    (shop.root / "src/main/kotlin/shop/Checkout.kt").write_text(
        "package shop\n\nfun checkout(cart: Cart, budget: Long): Long {\n    val total = cart.totalCents()\n"
        "    return charge(total, budget)\n}\n\nfun charge(amount: Long, budget: Long): Long {\n"
        '    require(amount <= budget) { "over budget: $amount > $budget" }\n    return amount\n}\n'
    )
    (shop.root / "src/test/kotlin/shop/CheckoutTest.kt").write_text(
        "package shop\n\nimport org.junit.jupiter.api.Test\n\nclass CheckoutTest {\n    @Test\n"
        '    fun overBudget() {\n        val cart = Cart().add(Item("lamp", 4000))\n'
        "        checkout(cart, budget = 3000)\n    }\n}\n"
    )
    reply = shop.tests("shop.CheckoutTest", explain_failures=True)
    assert isinstance(reply.result, TestRunResult) and reply.result.failed == 1, reply.result
    failure = reply.result.failures[0]
    assert [frame.at for frame in failure.frames] == [
        "shop.CheckoutTest.overBudget(CheckoutTest.kt:9)",
        "shop.CheckoutKt.checkout(Checkout.kt:5)",
        "shop.CheckoutKt.charge(Checkout.kt:9)",
    ]
    test, checkout, charge = failure.frames
    assert [(local.name, local.value) for local in test.locals] == [
        ("cart", "Cart(items=[Item(name=lamp, priceCents=4000, quantity=1)])")
    ]
    assert test.this is not None and test.this.startswith("CheckoutTest")
    assert [(local.name, local.value) for local in checkout.locals] == [
        ("cart", "Cart(items=[Item(name=lamp, priceCents=4000, quantity=1)])"),
        ("budget", "3000"),
        ("total", "4000"),
    ]
    assert [(local.name, local.value) for local in charge.locals] == [("amount", "4000"), ("budget", "3000")]
    assert charge.this is None


@jvm
def test_explain_reruns_the_test_afresh_unless_it_reaches_package_private(shop: ProbedShop) -> None:
    """A failed test's class loads afresh for its explained rerun (its probes go in as it loads): its statics start over
    as a test JVM's would, so its counter reads 1 again. A Java test that calls a package-private method of its package
    would fail to link from another loader: it runs again in the session's loader, and its counter goes on to 2."""
    (shop.root / "src/test/kotlin/shop/CountingTest.kt").write_text(
        "package shop\n\nimport org.junit.jupiter.api.Assertions.assertEquals\nimport org.junit.jupiter.api.Test\n\n"
        "class CountingTest {\n    companion object {\n        var runs = 0\n    }\n\n    @Test\n    fun counts() {\n"
        "        runs += 1\n        val seen = runs\n        assertEquals(0, seen)\n    }\n}\n"
    )
    # Java, compiled as the project's build would (its own sources are Kotlin): the main class into the main outputs.
    java = shop.root / "java-sources" / "shop"
    java.mkdir(parents=True)
    (java / "Ledger.java").write_text(
        "package shop;\n\nclass Ledger {\n    static int balance() {\n        return 5;\n    }\n}\n"
    )
    (java / "LedgerTest.java").write_text(
        "package shop;\n\nimport org.junit.jupiter.api.Assertions;\nimport org.junit.jupiter.api.Test;\n\n"
        "class LedgerTest {\n    static int runs = 0;\n\n    @Test\n    void balanced() {\n        runs += 1;\n"
        "        int seen = runs;\n        Assertions.assertEquals(100, Ledger.balance() + seen);\n    }\n}\n"
    )
    junit = shop.value("org.junit.jupiter.api.Test::class.java.protectionDomain.codeSource.location.path").strip('"')
    main, tests = shop.root / "target" / "classes", shop.root / "target" / "test-classes"
    subprocess.run(["javac", "-g", "-d", str(main), str(java / "Ledger.java")], check=True)
    classpath = os.pathsep.join([junit, str(main)])
    subprocess.run(["javac", "-g", "-cp", classpath, "-d", str(tests), str(java / "LedgerTest.java")], check=True)
    # A package-private method it inherits, called on itself: javac names the test class, not where the method is.
    (java / "AuditBase.java").write_text(
        "package shop;\n\npublic class AuditBase {\n    int base() {\n        return 1;\n    }\n}\n"
    )
    (java / "AuditTest.java").write_text(
        "package shop;\n\nimport org.junit.jupiter.api.Assertions;\nimport org.junit.jupiter.api.Test;\n\n"
        "public class AuditTest extends AuditBase {\n    static int runs = 0;\n\n    @Test\n    void audited() {\n"
        "        runs += 1;\n        int seen = runs;\n        Assertions.assertEquals(100, base() + seen);\n    }\n}\n"
    )
    subprocess.run(
        ["javac", "-g", "-cp", classpath, "-d", str(tests), str(java / "AuditBase.java"), str(java / "AuditTest.java")],
        check=True,
    )
    for test, at, seen in (
        ("shop.CountingTest", "shop.CountingTest.counts(CountingTest.kt:15)", "1"),
        ("shop.LedgerTest", "shop.LedgerTest.balanced(LedgerTest.java:13)", "2"),
        ("shop.AuditTest", "shop.AuditTest.audited(AuditTest.java:13)", "2"),
    ):
        reply = shop.tests(test, explain_failures=True)
        assert isinstance(reply.result, TestRunResult) and reply.result.failed == 1, reply.result
        (frame,) = reply.result.failures[0].frames
        assert frame.at == at and [(local.name, local.value) for local in frame.locals] == [("seen", seen)], frame


@jvm
def test_hits_past_the_replys_limit_are_counted_not_lost_silently(shop: ProbedShop) -> None:
    line = _line(shop, "return if (size > 10)")
    reply = shop.snippet(
        'val big = shop.Cart().apply { repeat(50) { add(shop.Item("item-$it", 1)) } }\nrepeat(1000) { big.totalCents() }',
        Probe(at=f"Cart.kt:{line}", max_hits=1000),
    )
    assert isinstance(reply.result, SuccessResult), reply.result
    shown = len(reply.result.probe_hits)
    assert 0 < shown < 1000 and [h.hit for h in reply.result.probe_hits] == list(range(1, shown + 1))
    note = (
        f"{1000 - shown} more hits left out (the reply's 100000-character limit for hits): a `when` or a lower "
        "maxHits keeps the ones that matter"
    )
    assert reply.result.probe_notes == [note]


@jvm
def test_a_java_class_compiled_without_local_names_still_gives_this_and_captures(shop: ProbedShop) -> None:
    """javac without -g keeps line numbers but no local variable names: the hit says so, and `this` (a Java class's
    private field too) and the captures are still there."""
    source = shop.root / "legacy" / "shop" / "Legacy.java"
    source.parent.mkdir(parents=True)
    source.write_text(
        "package shop;\n\npublic class Legacy {\n    private final int base = 40;\n\n    public int plus(int n) {\n"
        "        int doubled = n * 2;\n        return base + doubled;\n    }\n}\n"
    )
    subprocess.run(
        ["javac", "-g:source,lines", "-d", str(shop.root / "target" / "test-classes"), str(source)], check=True
    )
    reply = shop.snippet("shop.Legacy().plus(1)", Probe(at="shop.Legacy:8", capture=["base + 2"]))
    assert isinstance(reply.result, SuccessResult) and reply.result.value is not None, reply.result
    assert reply.result.value.data == "42"
    (hit,) = reply.result.probe_hits
    assert hit.at == "shop.Legacy.plus(Legacy.java:8)"
    assert hit.locals == [] and hit.this == "Legacy(base=40)"
    assert hit.notes == [NO_LOCAL_NAMES]
    assert [c.value for c in hit.captured] == ["42"]


@jvm
def test_a_probe_that_outlives_its_call_records_a_thread_a_snippet_started(shop: ProbedShop) -> None:
    """add_kotlin_probe, then code that runs when no call does (a thread a snippet started, released by a later
    call): read_kotlin_probe_hits returns as soon as a hit is there, then the rest; describe lists the probe; removed,
    it is gone."""
    line = _line(shop, "return if (size > 10)")
    tools = ProbeTools(shop.manager, lambda root, path, source_set, build_tool, session_id: shop.target)
    shop.value(
        "val gate = java.util.concurrent.CountDownLatch(1)\n"
        'val later = Thread({ gate.await(); repeat(3) { shop.Cart().add(shop.Item("x", 10L * (it + 1))).totalCents() } }'
        ', "later").apply { start() }\n1'
    )
    added = shop.loop.run_until_complete(tools.add_kotlin_probe(f"Cart.kt:{line}", capture=["size"], maxHits=3))
    data = added.structured_content or {}
    assert not added.is_error and data["probeId"] == 1, added
    assert data["probes"] == [{"probeId": 1, "at": f"Cart.kt:{line}", "hits": 0, "active": True}]
    shop.value("gate.countDown()\n1")  # the call ends at once; the thread runs on
    first = shop.loop.run_until_complete(shop.manager.read_probes("tests", 1, wait_seconds=60))
    assert isinstance(first, ProbesResult) and first.hits, first
    shop.value("later.join()\n1")
    rest = shop.loop.run_until_complete(shop.manager.read_probes("tests", None))
    assert isinstance(rest, ProbesResult)
    hits = [*first.hits, *rest.hits]
    assert [(h.probe, h.hit, h.thread, _local(h, "subtotal")) for h in hits] == [
        (1, 1, "later", "10"),
        (1, 2, "later", "20"),
        (1, 3, "later", "30"),
    ]
    assert rest.probes[0].hits == 3 and not rest.probes[0].active  # past its maxHits: out of the code
    described = shop.loop.run_until_complete(shop.manager.describe("tests"))
    assert [(p.probe_id, p.hits, p.active) for p in described.probes] == [(1, 3, False)]
    removed = shop.loop.run_until_complete(tools.remove_kotlin_probe(1, sessionId="tests"))
    assert not removed.is_error and (removed.structured_content or {})["probes"] == []
    again = shop.loop.run_until_complete(tools.read_kotlin_probe_hits("tests", probeId=1))
    assert again.is_error and "the session has no probe 1 (its probes: none)" in str(again.content[0])
    bad = shop.loop.run_until_complete(tools.add_kotlin_probe("Cart.kt:2"))
    assert bad.is_error and "line 2 has no code a probe can stop at" in str(bad.content[0])


@jvm
def test_a_session_probe_stays_through_an_edit_of_its_method_until_its_locals_change(shop: ProbedShop) -> None:
    """An edit updated in place keeps the probe on the new code; one that changes the line's locals takes it out, and
    the next read says why."""
    line = _line(shop, "return if (size > 10)")
    added = shop.loop.run_until_complete(
        shop.manager.add_probe(shop.target, Probe(at=f"Cart.kt:{line}", max_hits=10), expires_seconds=600)
    )
    assert isinstance(added.result, ProbesResult) and added.result.probe_id is not None, added.result
    probe_id = added.result.probe_id
    shop.edit(CART, "return if (size > 10)", "return if (size >= 10)")
    ten_cups = 'shop.Cart().add(shop.Item("cup", 100, quantity = 10)).totalCents()'
    assert shop.value(ten_cups) == "900"  # the new body runs
    read = shop.loop.run_until_complete(shop.manager.read_probes("tests", probe_id))
    assert isinstance(read, ProbesResult) and [_local(h, "subtotal") for h in read.hits] == ["1000"], read
    shop.edit(CART, "val subtotal = subtotalCents()", "val subtotal = subtotalCents(); val spare = 0")
    assert shop.value(ten_cups) == "900"
    read = shop.loop.run_until_complete(shop.manager.read_probes("tests", probe_id))
    assert isinstance(read, ProbesResult) and read.hits == [], read
    said = (
        f"probe {probe_id} was taken out of shop.Cart.totalCents: an edit changed the method's locals at line {line}, "
        "which its `when` and `capture` were compiled for"
    )
    assert read.notes == [said]
    shop.loop.run_until_complete(shop.manager.remove_probe("tests", probe_id))
    # A change the JVM can't take in place restarts the session: its probes go with the JVM, and the notice says so.
    again = shop.loop.run_until_complete(
        shop.manager.add_probe(shop.target, Probe(at=f"Cart.kt:{line}"), expires_seconds=600)
    )
    assert isinstance(again.result, ProbesResult) and again.result.probe_id is not None, again.result
    # Below the probe's line, so that line keeps its number.
    shop.edit(CART, "\n}\n\nobject Shop", "\n\n    fun isEmpty(): Boolean = items.isEmpty()\n}\n\nobject Shop")
    restarted = shop.snippet("1")
    (notice,) = [n for n in restarted.notices if n.kind == "restarted"]
    assert f"probe {again.result.probe_id} at Cart.kt:{line}" in notice.text, notice.text
