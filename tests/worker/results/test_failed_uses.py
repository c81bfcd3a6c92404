"""A use of a failed snippet's declaration is named from facts — the failed vals still null, the classes never
compiled, the line that threw — whatever the JDK or the REPL's layout made of the error's wording."""

from __future__ import annotations

import pytest

from gradle_repl.worker.results.failed_uses import FailedSnippet, FailedUse, explain_use_of_failed
from gradle_repl.worker.results.report import StackFrame, ThrowableInfo
from gradle_repl.worker.snippet_names import snippet_file

FAILED = {
    2: FailedSnippet('val ctx: String = error("boom")', compiled=True),
    3: FailedSnippet("val other: String = TODO()", compiled=True),
}
UNINITIALISED = {"ctx": 2, "other": 3}
REPL_TAIL = (
    StackFrame("org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplEvaluator", "eval", "K2ReplEvaluator.kt", 65),
)


def npe(message: str | None, *, number: int = 5, line: int = 1) -> list[ThrowableInfo]:
    frames = (StackFrame(f"_{number}_repl", "$$eval", snippet_file(number), line), *REPL_TAIL)
    return [ThrowableInfo("java.lang.NullPointerException", message, frames)]


def explain(chain: list[ThrowableInfo], code: str, number: int = 5) -> FailedUse | None:
    return explain_use_of_failed(chain, code=code, number=number, uninitialised=UNINITIALISED, failed=FAILED)


@pytest.mark.parametrize(
    "read_through", ["gradlerepl.repl.SnippetInstances.get(String)", "ReplState.get(Object)"], ids=["ours", "generated"]
)
def test_kotlin_2_2s_wording_names_the_field(read_through: str) -> None:
    """2.2 reads a val through the REPL's state object (the facade's, or one the REPL generates): the JDK names the
    field, which is a failed val."""
    use = explain(npe(f'Cannot invoke "String.length()" because "{read_through}.ctx" is null'), "ctx.length")
    assert use is not None and use.names == ("ctx",)
    assert use.message() == (
        "'ctx' was not initialised: the snippet that declared it failed (`val ctx: String = error(\"boom\")`). "
        "Declare it again in a snippet that succeeds."
    )


def test_kotlin_2_3s_wording_names_the_getter() -> None:
    """2.3 reads it through a getter of the failed snippet's class."""
    use = explain(
        npe('Cannot invoke "String.length()" because the return value of "_2_repl.getCtx()" is null'), "ctx.length"
    )
    assert use is not None and use.names == ("ctx",)


def test_without_a_helpful_message_the_line_that_threw_decides() -> None:
    """A JDK without helpful NPE messages says nothing: the failed vals on the line the snippet threw on are named."""
    code = 'println("start")\nval n = ctx.length + other.length'
    use = explain(npe(None, line=2), code)
    assert use is not None and use.names == ("ctx", "other")
    assert use.message().startswith(
        "'ctx', 'other' were not initialised: the snippets that declared them failed (`val ctx"
    )
    assert explain(npe(None, line=1), code) is None, "line 1 uses no failed val"


def test_kotlins_own_null_check_falls_back_to_the_lines_on_the_stack() -> None:
    """Passing a failed val to a non-null parameter throws from Kotlin's intrinsics, naming only the parameter:
    the call's line, below the function's own, names the val."""
    intrinsics = StackFrame("kotlin.jvm.internal.Intrinsics", "checkNotNullParameter", "Intrinsics.java", 130)
    in_f = StackFrame("_5_repl", "f", snippet_file(5), 1)
    frames = (intrinsics, in_f, *npe(None, line=2)[0].frames)
    chain = [
        ThrowableInfo(
            "java.lang.NullPointerException",
            "Parameter specified as non-null is null: method _5_repl.f, parameter s",
            frames,
        )
    ]
    use = explain(chain, "fun f(s: String) = s.length\nf(ctx)")
    assert use is not None and use.names == ("ctx",)


def test_a_null_the_jdk_names_elsewhere_is_left_alone() -> None:
    """An NPE the JDK pins on something else stays as it is, even on a line that mentions a failed val."""
    assert explain(npe('Cannot invoke "String.length()" because "<local1>" is null'), "ctx; local.length") is None
    assert explain_use_of_failed(npe(None), code="ctx.length", number=5, uninitialised={}, failed=FAILED) is None, (
        "a failed val that holds a value since (a var assigned again) is not blamed"
    )


def test_a_class_never_compiled_is_named_from_the_missing_class() -> None:
    """The JVM names the missing class: a nested class of a failed snippet is the class the user declared."""
    failed = {3: FailedSnippet("@Serializable class Point(val x: Int)", compiled=False)}
    chain = [ThrowableInfo("java.lang.NoClassDefFoundError", "_3_repl$Point", npe(None)[0].frames)]
    use = explain_use_of_failed(chain, code="Point(1).x", number=5, uninitialised={}, failed=failed)
    assert use is not None and use.names == ("Point",) and use.never_compiled
    assert use.message().startswith("'Point' was never compiled: the snippet that declared it failed")


def test_a_missing_snippet_class_names_what_the_line_uses() -> None:
    """When a failed snippet's whole class is missing, its declarations used on the throwing line are named."""
    failed = {3: FailedSnippet("fun failedFun(a: Int) { return a * 2 }\nval unused = 1", compiled=False)}
    chain = [ThrowableInfo("java.lang.NoClassDefFoundError", "_3_repl", npe(None)[0].frames)]
    use = explain_use_of_failed(chain, code="failedFun(1)", number=5, uninitialised={}, failed=failed)
    assert use is not None and use.names == ("failedFun",)


def test_a_refused_snippet_without_an_instance_is_named() -> None:
    """A snippet the compiler refused has no instance: Kotlin's cast of it fails naming its class, and the
    declaration the stack's lines use is named."""
    failed = {4: FailedSnippet("fun failedFun(a: Int) { return a * 2 }", compiled=False)}
    chain = npe("null cannot be cast to non-null type <root>._4_repl")
    use = explain_use_of_failed(chain, code="failedFun(1)", number=5, uninitialised={}, failed=failed)
    assert use is not None and use.names == ("failedFun",) and use.never_compiled
    ran = {4: FailedSnippet('fun failedFun(a: Int): Int = error("x")', compiled=True)}
    assert explain_use_of_failed(chain, code="failedFun(1)", number=5, uninitialised={}, failed=ran) is None, (
        "a snippet that compiled has its instance: the cast failed for another reason"
    )


def test_a_snippet_stopped_before_it_ran_has_no_instance_and_is_named_so() -> None:
    """A snippet stopped while it compiled is in the REPL's history with its classes but no instance: the failed cast
    of it names its declaration, as not initialised because it never ran."""
    chain = npe("null cannot be cast to non-null type <root>._4_repl")
    never_ran = {4: FailedSnippet('val neverSet = "set"', compiled=True, ran=False)}
    use = explain_use_of_failed(chain, code="neverSet.length", number=5, uninitialised={}, failed=never_ran)
    assert use is not None and use.names == ("neverSet",) and not use.never_compiled
    assert use.message() == (
        "'neverSet' was not initialised: the snippet that declared it was stopped while it compiled and never ran "
        '(`val neverSet = "set"`). Declare it again in a snippet that succeeds.'
    )


def test_other_errors_and_successful_snippets_classes_are_left_alone() -> None:
    """An initialiser that threw, a class of a snippet that succeeded, another exception: nothing to explain."""
    frames = npe(None)[0].frames
    for chain in (
        [ThrowableInfo("java.lang.NoClassDefFoundError", "Could not initialize class _3_repl$O", frames)],
        [ThrowableInfo("java.lang.NoClassDefFoundError", "_4_repl$Point", frames)],
        [ThrowableInfo("java.lang.IllegalStateException", "ctx", frames)],
    ):
        assert explain(chain, "ctx.length") is None, chain[0]


def test_a_long_failed_line_is_quoted_with_what_was_cut() -> None:
    """The quoted line of a failed snippet is cut at 120 characters, saying how many more there were."""
    failed = {2: FailedSnippet("val ctx: String = " + "x" * 200, compiled=True)}
    use = explain_use_of_failed(npe(None), code="ctx.length", number=5, uninitialised={"ctx": 2}, failed=failed)
    assert use is not None and "… (98 more characters)`" in use.message()


def test_a_failed_snippet_whose_code_is_unknown_is_not_quoted_empty() -> None:
    """The message quotes only what it knows: no empty parentheses when the failed snippet's code isn't at hand."""
    use = explain_use_of_failed(npe(None), code="ctx.length", number=5, uninitialised={"ctx": 2}, failed={})
    assert use is not None
    assert (
        use.message()
        == "'ctx' was not initialised: the snippet that declared it failed. Declare it again in a snippet that succeeds."
    )
