"""Diagnostics and stack traces are rendered for a Kotlin developer: snippet lines, no REPL internals."""

from gradle_repl.worker.results.report import Diagnostic, StackFrame, ThrowableInfo, format_diagnostic, format_throwable

SNIPPET = "val a = 1\nval b = a +\tundefinedName\n"


def test_diagnostic_shows_position_line_and_caret() -> None:
    text = format_diagnostic(Diagnostic("ERROR", "Unresolved reference 'undefinedName'.", 2, 13), SNIPPET)
    assert text.splitlines() == [
        "error: Unresolved reference 'undefinedName'. (line 2, col 13)",
        "    val b = a +\tundefinedName",
        "               \t^",
    ]


def test_diagnostic_without_location_is_one_line() -> None:
    assert format_diagnostic(Diagnostic("ERROR", "Incomplete code"), SNIPPET) == "error: Incomplete code"


def frame(cls: str, method: str, file: str | None, line: int = 1) -> StackFrame:
    return StackFrame(cls, method, file, line)


REPL_TAIL = (
    frame("jdk.internal.reflect.NativeMethodAccessorImpl", "invoke0", None, -2),
    frame("java.lang.reflect.Method", "invoke", "Method.java", 568),
    frame(
        "org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplEvaluator", "evalSnippet", "K2ReplEvaluator.kt", 65
    ),
    frame("gradlerepl.repl.ReplDriver", "evaluate", "ReplDriver.kt", 80),
    frame("java.lang.Thread", "run", "Thread.java", 840),
)


def test_stack_is_trimmed_below_the_last_snippet_frame() -> None:
    """Project code called from the snippet stays; reflection and REPL frames below it go."""
    info = ThrowableInfo(
        "java.lang.IllegalStateException",
        "boom",
        (
            frame("sample.BooksKt", "parseShelf", "Books.kt", 19),
            frame("_3_repl", "helper", "_3.repl.kts", 2),
            frame("_4_repl", "$$eval", "_4.repl.kts", 1),
            *REPL_TAIL,
        ),
    )
    headline, stack = format_throwable([info])
    assert headline == "java.lang.IllegalStateException: boom"
    assert stack.splitlines() == [
        "    at sample.BooksKt.parseShelf(Books.kt:19)",
        "    at helper (snippet 2, line 2)",
        "    at snippet 3, line 1",
        "    ... 5 more (REPL internals)",
    ]


def test_causes_are_included_and_trimmed_too() -> None:
    outer = ThrowableInfo(
        "java.lang.RuntimeException", "wrapper", (frame("_2_repl", "$$eval", "_2.repl.kts", 3), *REPL_TAIL)
    )
    cause = ThrowableInfo(
        "java.io.IOException",
        None,
        (frame("java.io.File", "open", "File.java", 9), frame("_2_repl", "f", "_2.repl.kts", 1)),
    )
    _, stack = format_throwable([outer, cause])
    lines = stack.splitlines()
    assert "Caused by: java.io.IOException" in lines
    assert lines[-2:] == ["    at java.io.File.open(File.java:9)", "    at f (snippet 1, line 1)"]


def test_exception_from_a_thread_without_snippet_frames_stops_at_repl_machinery() -> None:
    info = ThrowableInfo("java.lang.Error", "x", (frame("a.B", "c", "B.kt", 1), *REPL_TAIL))
    _, stack = format_throwable([info])
    assert stack.splitlines() == ["    at a.B.c(B.kt:1)", "    ... 5 more (REPL internals)"]


def test_snippet_frames_read_as_users_number_and_name_them() -> None:
    """The REPL's class and file names (`_4_repl`, `_4.repl.kts`, `$$eval`) are its own: a frame says which of the
    user's snippets, which line, and the function or class as written; other frames stay Java's."""
    assert frame("_4_repl", "$$eval", "_4.repl.kts", 2).render() == "    at snippet 3, line 2"
    assert frame("_2_repl", "total", "_2.repl.kts", 5).render() == "    at total (snippet 1, line 5)"
    assert (
        frame("_6_repl$Cart$Line", "price", "_6.repl.kts", 1).render() == "    at Cart.Line.price (snippet 5, line 1)"
    )
    assert frame("sample.BooksKt", "parse", "Books.kt", 19).render() == "    at sample.BooksKt.parse(Books.kt:19)"
    assert frame("_4_repl", "f", "Other.kt", 1).render() == "    at _4_repl.f(Other.kt:1)"


def test_snippet_classes_in_an_error_read_as_the_user_wrote_them() -> None:
    """A toString() of Any's or a ClassCastException names `K`, never the REPL's `_9_repl$K`; the snippet's own
    exception class too."""
    cast = ThrowableInfo(
        "java.lang.ClassCastException",
        "class _9_repl$K cannot be cast to class java.lang.String (_9_repl$K is in unnamed module of loader X @16be413a)",
        (),
    )
    thrown = ThrowableInfo("_5_repl$Boom", "bad _9_repl$K@244f54f7", ())
    assert format_throwable([cast])[0] == (
        "java.lang.ClassCastException: class K cannot be cast to class java.lang.String (K is in unnamed module of loader X @16be413a)"
    )
    headline, stack = format_throwable([thrown, cast])
    assert headline == "Boom: bad K@244f54f7"
    assert "Caused by: java.lang.ClassCastException: class K cannot" in stack


def test_a_snippet_body_mangled_for_a_value_class_reads_as_the_snippet() -> None:
    """Kotlin mangles the body of a snippet whose value is a value class (`$$eval-UwyO8pc`); its frame still reads
    `at snippet N, line L`."""
    frame = StackFrame("_7_repl", "$$eval-UwyO8pc", "_7.repl.kts", 1)
    assert frame.render() == "    at snippet 6, line 1"
