"""What a worker session does on every Kotlin the suite runs: claims checked on the pinned Kotlin's session (test_analysis,
test_worker, test_worker_output) and on an older Kotlin's (test_kotlin_versions), and the completion lookups they use."""

from __future__ import annotations

from gradle_repl.frames import Completion, CompletionResult, ErrorResult, TextEdit
from support.workers import SyncWorker

__all__ = [
    "SLOW_TO_COMPILE",
    "STOPPED_SNIPPET",
    "assert_completes_imports_and_packages",
    "assert_serializers_through_the_class",
    "assert_the_stopped_snippet_never_ran_and_its_classes_are_kept",
    "completion_item",
    "completion_texts",
]


def completion_texts(result: CompletionResult) -> list[str]:
    assert result.unavailable is None, result.unavailable
    return [item.text for item in result.items]


def completion_item(result: CompletionResult, text: str) -> Completion:
    return next(item for item in result.items if item.text == text)


def assert_completes_imports_and_packages(worker: SyncWorker) -> None:
    """What test_completion_offers_classes_not_imported_yet_with_their_import_and_sub_packages proves, on any
    Kotlin the suite runs."""
    offered = worker.complete("val f = Fil")
    file = next(item for item in offered.items if item.text == "File" and item.detail == "java.io")
    assert [e.model_dump() for e in file.edits] == [{"start": 0, "end": 0, "text": "import java.io.File\n"}]
    assert all(not item.edits for item in offered.items if item.detail == "kotlin.io")  # default imports need none
    code = "import java.util.*\nval q = ConcurrentLinkedDe"
    deque = completion_item(worker.complete(code), "ConcurrentLinkedDeque")
    assert deque.edits == [
        TextEdit(
            start=len("import java.util.*\n"),
            end=len("import java.util.*\n"),
            text="import java.util.concurrent.ConcurrentLinkedDeque\n",
        )
    ]
    edited = (
        code[: deque.edits[0].start]
        + deque.edits[0].text
        + code[deque.edits[0].start :]
        + "que<Int>()\nq.add(3); q.size"
    )
    assert worker.value(edited) == "1"  # the edit, applied, makes code that runs
    assert (
        completion_item(worker.complete("val g = ConcurrentLinkedDe"), "ConcurrentLinkedDeque").edits == []
    )  # imported now
    assert {"serialization", "coroutines"} <= {i.text for i in worker.complete("kotlinx.").items if i.kind == "package"}
    util = worker.complete("java.util.")
    assert {"concurrent", "function"} <= {
        i.text for i in util.items if i.kind == "package"
    } and "ArrayList" in completion_texts(util)
    assert completion_item(worker.complete("java.util.st"), "stream").kind == "package"
    assert completion_item(worker.complete("import java.util.conc"), "concurrent").detail == "java.util.concurrent"
    duration = worker.complete("val d: Dura")
    assert {(i.detail, bool(i.edits)) for i in duration.items if i.text == "Duration"} >= {
        ("kotlin.time", True),
        ("java.time", True),
    }
    assert all(
        i.kind in {"class", "interface", "object", "enum", "typealias"} for i in duration.items
    )  # a type is written
    assert completion_item(worker.complete("val x: java.io.Fi"), "File").edits == []
    assert "File" in completion_texts(worker.complete("val files: List<Fi"))


# A @Serializable class declared in a snippet, its annotation written fully qualified and imported; each line uses
# the plugin's generated companion through the class, in the declaring snippet and in a later one.
SERIALIZABLE_BOTH_WAYS = (
    (
        (
            "@kotlinx.serialization.Serializable data class QualifiedNote(val text: String)\n"
            "QualifiedNote.serializer().descriptor.getElementName(0)"
        ),
        "QualifiedNote",
    ),
    (
        (
            "import kotlinx.serialization.Serializable\n@Serializable data class ImportedNote(val text: String)\n"
            "ImportedNote.serializer().descriptor.getElementName(0)"
        ),
        "ImportedNote",
    ),
)


def assert_serializers_through_the_class(worker: SyncWorker) -> None:
    """The generated companion's serializer() is reached through the class, in its snippet and in later ones; a class
    with a companion of its own keeps it (and gets serializer() in it, as the plugin adds it there)."""
    for declared, name in SERIALIZABLE_BOTH_WAYS:
        assert worker.value(declared) == "text"
        encoded = f'kotlinx.serialization.json.Json.encodeToString({name}.serializer(), {name}("hi"))'
        assert worker.value(encoded) == '{"text":"hi"}'
    own = "@kotlinx.serialization.Serializable class Owned(val n: Int) { companion object { fun one() = Owned(1) } }"
    assert worker.eval(own).result.type == "success"
    assert worker.value("kotlinx.serialization.json.Json.encodeToString(Owned.serializer(), Owned.one())") == '{"n":1}'


def assert_sealed_types_know_their_inheritors(worker: SyncWorker) -> None:
    """A sealed class or interface declared in a snippet knows the snippet's classes that inherit it (the compiler's
    pass that collects them walks a file's classes, never a snippet's): a `when` over it must name each one,
    `sealedSubclasses` lists them, and kotlinx.serialization encodes and decodes through the sealed type."""
    declared = (
        "import kotlinx.serialization.*\nimport kotlinx.serialization.json.*\n"
        '@Serializable sealed class Shape\n@Serializable @SerialName("sq") data class Square(val side: Int) : Shape()\n'
        '@Serializable @SerialName("dot") object Dot : Shape()\n'
        "sealed interface Reply { data class Ok(val n: Int) : Reply; sealed interface Failed : Reply; "
        "data class Refused(val why: String) : Failed }"
    )
    assert (result := worker.eval(declared).result).type == "success", result
    missing = worker.eval("fun area(s: Shape) = when (s) { is Square -> s.side * s.side }").result
    assert isinstance(missing, ErrorResult) and missing.error_kind == "compile", missing
    assert "'when' expression must be exhaustive" in missing.message and "Dot" in missing.message, missing.message
    exhaustive = "fun code(r: Reply) = when (r) { is Reply.Ok -> r.n; is Reply.Refused -> -1 }\ncode(Reply.Ok(7))"
    assert worker.value(exhaustive) == "7"
    # Reply.Failed's own inheritor counts too: without it this `when` would be complete.
    short = worker.eval("fun okOnly(r: Reply) = when (r) { is Reply.Ok -> r.n }").result
    assert isinstance(short, ErrorResult) and "'when' expression must be exhaustive" in short.message, short
    assert worker.value("Shape::class.sealedSubclasses.mapNotNull { it.simpleName }.sorted()") == "[Dot, Square]"
    assert worker.value("Reply::class.sealedSubclasses.mapNotNull { it.simpleName }.sorted()") == "[Failed, Ok]"
    encoded = "Json.encodeToString<List<Shape>>(listOf(Square(2), Dot))"
    assert worker.value(encoded) == '[{"type":"sq","side":2},{"type":"dot"}]'
    assert worker.value(f"Json.decodeFromString<List<Shape>>({encoded}).first()") == "Square(side=2)"
    # The same names again in a later snippet: that snippet's hierarchy, with its own inheritors.
    again = "sealed class Shape\nclass Ring(val r: Int) : Shape()\nfun ringOnly(s: Shape) = when (s) { is Ring -> s.r }"
    assert worker.value(f"{again}\nringOnly(Ring(4)) + Shape::class.sealedSubclasses.size") == "5"


# Thirty functions take a third of a second or more to compile even on a fast machine: long enough for a 0.1 s timeout
# or a cancel to arrive mid-compile, short enough to end within the host's wait for a stopped compile under heavy load.
SLOW_TO_COMPILE = "\n".join(f"fun generated{n}(x: Int) = listOf(x, {n}).map {{ it * 2 }}.sum()" for n in range(30))
# Declares a class, a val of it and a plain val, and marks the JVM if it ever runs.
STOPPED_SNIPPET = (
    'data class Kept(val n: Int)\nval kept = Kept(1)\nval stoppedVal = "set"\nfun stoppedFun() = stoppedVal.length\n'
    'System.setProperty("gradle-repl.ran", "yes")'
)


def assert_the_stopped_snippet_never_ran_and_its_classes_are_kept(worker: SyncWorker) -> None:
    """What a session says after STOPPED_SNIPPET was stopped while it compiled: the same on every Kotlin. Nothing of it
    runs, not even when a later snippet uses its class, vals and functions."""
    assert worker.value("Kept(2).n") == "2"
    for use, name in (("stoppedVal.length", "stoppedVal"), ("kept.n", "kept"), ("stoppedFun()", "stoppedFun")):
        used = worker.eval(use).result
        assert isinstance(used, ErrorResult), used
        assert used.error_kind == "runtime", used
        assert used.message.startswith(
            f"'{name}' was not initialised: the snippet that declared it was stopped while it compiled and never ran"
        ), used.message
    worker.eval("val keptLater = Kept(5)")
    (declared,) = [d for d in worker.describe().declarations if d.name == "keptLater"]
    assert declared.signature == "val keptLater: Kept" and declared.value == "Kept(n=5)", declared
    assert worker.value('System.getProperty("gradle-repl.ran") ?: "never"') == "never"
