"""Checking and completing code against a live session (worker/repl/analysis.py, the facade's CompilerMarks): the
compiler's own answers, and a session left exactly as it was."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import (
    CheckResult,
    CodeDiagnostic,
    CompletionResult,
    ErrorResult,
    SuccessResult,
    WorkerOptions,
)
from gradle_repl.host.manager import SessionLimits, SessionManager
from gradle_repl.target import SessionTarget
from gradle_repl.worker.artifacts import facade, facade_jars
from gradle_repl.worker.repl.analysis import code_diagnostics
from gradle_repl.worker.repl.completion import Candidate, SessionCompletion, prefix_start, rank, utf16_offset
from gradle_repl.worker.results.report import Diagnostic
from support.fakeworker import FakeResolved
from support.workerclaims import assert_completes_imports_and_packages, completion_item, completion_texts
from support.workers import SyncWorker, running_worker

jvm = pytest.mark.jvm


@pytest.fixture(scope="module")
def worker(sample_env: ReplEnvironment) -> Iterator[SyncWorker]:
    """A session of this module's own: these tests are about exactly what it holds."""
    with running_worker(sample_env) as started:
        yield started


def _snippet_number(worker: SyncWorker) -> int:
    """The number the session gives the snippet this runs, as its stack shows it."""
    result = worker.eval('error("where")').result
    assert isinstance(result, ErrorResult), result
    found = re.search(r"at snippet (\d+), line 1", result.stack)
    assert found is not None, result.stack
    return int(found[1])


def _errors(result: CheckResult) -> list[CodeDiagnostic]:
    return [d for d in result.diagnostics if d.severity == "error"]


def test_diagnostics_are_errors_first_then_by_position_each_rendered_as_a_run_shows_it() -> None:
    code = "val a = 1\nval b: String = 2"
    found = code_diagnostics(
        [
            Diagnostic("WARNING", "w", 1, 5),
            Diagnostic("INFO", "noise"),
            Diagnostic("ERROR", "f", 2, 17),
            Diagnostic("ERROR", "e", 1, 1),
        ],
        code,
    )
    assert [(d.severity, d.message) for d in found] == [("error", "e"), ("error", "f"), ("warning", "w")]
    assert found[1].text == "error: f (line 2, col 17)\n    val b: String = 2\n                    ^"
    assert found[2].text.startswith("warning: w (line 1, col 5)")


@jvm
def test_a_check_reports_errors_warnings_and_the_value_type_in_the_sessions_state(worker: SyncWorker) -> None:
    worker.eval("import sample.*\nval base = 40\nfun twice(x: Int) = 2 * x")
    typed = worker.check("classics.publishedBefore(twice(base) * 30)")
    assert typed.compiled and not typed.diagnostics and typed.value_type == "kotlin.collections.List<sample.Book>"
    wrong = worker.check('val n: Int = twice("x")\nnope')
    assert not wrong.compiled and wrong.value_type is None
    assert [(d.line, d.column) for d in _errors(wrong)] == [(1, 20), (2, 1)], wrong
    assert _errors(wrong)[1].text == "error: Unresolved reference 'nope'. (line 2, col 1)\n    nope\n    ^"
    warned = worker.check("val d = 1 / 0\nd")
    assert warned.compiled and warned.value_type == "kotlin.Int"
    assert [d.severity for d in warned.diagnostics] == ["warning"] and "Division by zero" in warned.diagnostics[
        0
    ].message
    assert worker.check("val unitOnly = 1").value_type is None


@jvm
def test_a_check_runs_nothing_and_changes_nothing(worker: SyncWorker) -> None:
    """After checks that declare, redefine, print and fail, the session's declarations, values and numbering are as
    before, and running the checked code afterwards behaves as if it had never been checked."""
    worker.eval("val kept = 1\nvar counter = 10\nclass Held(val v: Int)\nfun held() = Held(kept)")
    before = worker.describe()
    number = _snippet_number(worker)
    checked = [
        'val kept = "redefined"\nval fresh = 2\ncounter += 100\nprintln("ran!")\nfresh',
        "class Held(val w: String)\nfun held() = 3",
        'val broken: Int = "no"',
        'error("would throw")',
    ]
    for code in checked:
        worker.check(code)
    assert _snippet_number(worker) == number + 1
    assert worker.describe() == before
    assert worker.value("counter") == "10"
    assert worker.value("held().v") == "1"
    missing = worker.eval("fresh").result
    assert isinstance(missing, ErrorResult) and "Unresolved reference 'fresh'" in missing.message
    # The checked code, run now, behaves as code never checked: it prints, declares and redefines.
    ran = worker.eval(checked[0])
    assert isinstance(ran.result, SuccessResult) and ran.result.value is not None and ran.result.value.data == "2"
    assert any(f.data == "ran!\n" for f in ran.frames if hasattr(f, "data"))
    assert worker.value("kept") == "redefined" and worker.value("counter") == "110"
    assert worker.check("fresh + 1").value_type == "kotlin.Int"


@jvm
def test_many_checks_in_a_row_leave_the_session_answering(worker: SyncWorker) -> None:
    """Checks that fail and succeed alternate without the REPL's history growing: the next run still compiles
    against exactly the session's declarations."""
    for i in range(20):
        worker.check(f"val c{i} = {i}\nc{i}" if i % 2 else f"val c{i}: String = {i}")
    assert worker.eval("c1").result.type == "error"
    worker.eval("val afterChecks = 5")
    assert worker.value("afterChecks + 1") == "6"


def test_candidates_start_with_the_prefix_exact_case_first_best_rank_first_at_most_fifty() -> None:
    found = [
        Candidate("Map", "class", "kotlin.collections", 4),
        Candidate("map", "function", "fun map()", 3),
        Candidate("mapNotNull", "function", "fun mapNotNull()", 3),
        Candidate("max", "function", "", 2),
        Candidate("other", "function", "", 0),
        Candidate("map", "function", "fun map()", 5),
    ]
    assert [(c.text, c.kind) for c in rank(found, "ma")] == [
        ("max", "function"),
        ("map", "function"),
        ("mapNotNull", "function"),
        ("Map", "class"),
    ]
    assert len(rank([Candidate(f"n{i}", "variable", "", 1) for i in range(80)], "n")) == 50
    assert prefix_start("numbers.fi", 10) == 8 and prefix_start("a + ", 4) == 4


@jvm
def test_completion_knows_the_sessions_names_members_extensions_packages_and_imports(worker: SyncWorker) -> None:
    worker.eval(
        "import java.time.LocalDate\nval numbers = listOf(1, 2, 3)\nfun twice(x: Int) = 2 * x\ndata class Spot(val x: Int, val yy: Int)"
    )
    before = worker.describe()
    assert completion_texts(worker.complete("twi"))[0] == "twice"
    members = worker.complete("numbers.")
    # Members first, then extensions, at most 50; a prefix narrows to both.
    assert {"size", "get", "contains"} <= set(completion_texts(members)) and len(members.items) == 50
    assert {"filter", "first", "firstOrNull", "fill"} & set(completion_texts(worker.complete("numbers.fi"))) >= {
        "filter",
        "first",
        "firstOrNull",
    }
    assert completion_item(members, "size").kind == "property" and completion_item(members, "size").detail == "Int"
    extensions = completion_texts(worker.complete("listOf(1).ma"))
    assert {"map", "mapNotNull"} <= set(extensions) and all(t.startswith("ma") for t in extensions)
    spot = worker.complete("Spot(1, 2).")
    assert {"x", "yy", "copy"} <= set(completion_texts(spot)) and completion_item(
        spot, "copy"
    ).detail == "fun copy(x: Int, yy: Int): Spot"
    assert {"Book", "classics", "Shelf"} <= set(completion_texts(worker.complete("sample.")))
    assert "ArrayList" in completion_texts(worker.complete("java.util."))
    assert "now" in completion_texts(worker.complete("LocalDate."))  # imported by an earlier snippet
    inside = worker.complete("numbers.map { it.pl }", cursor=len("numbers.map { it.pl"))
    assert "plus" in completion_texts(inside) and inside.prefix_start == len("numbers.map { it.")
    local = worker.complete("val counted = numbers.size\nfun local(param: String) = par", cursor=None)
    assert completion_texts(local)[0] == "param"
    assert "while" in completion_texts(worker.complete("whi"))
    assert worker.complete('"not here numbers.').items == []
    assert worker.complete("undefinedThing.co").items == []  # nothing is known of an unresolved receiver
    assert worker.describe() == before
    assert worker.value("twice(numbers.size)") == "6"


def test_offsets_are_counted_as_the_jvm_counts_them() -> None:
    assert utf16_offset('"🎉"x', 4) == 5 and utf16_offset("é.", 2) == 2 and utf16_offset("abc", 0) == 0


@jvm
def test_completion_after_characters_beyond_the_basic_plane_completes_at_the_cursor(worker: SyncWorker) -> None:
    """An emoji is one character to the caller and two UTF-16 units to the compiler: the cursor still lands after
    `party.`, not one unit short of it."""
    worker.eval('data class Party(val guests: Int, val theme: String)\nval party = Party(3, "🎈")')
    members = worker.complete('println("🎉")\nparty.')
    assert {"guests", "theme", "copy"} <= set(completion_texts(members)) and members.prefix_start == len(
        'println("🎉")\nparty.'
    )
    narrowed = worker.complete('println("🎉🎉") ; party.gu + 1', cursor=len('println("🎉🎉") ; party.gu'))
    assert completion_texts(narrowed)[0] == "guests" and narrowed.prefix_start == len('println("🎉🎉") ; party.')


def test_only_the_compilers_verdict_on_the_sources_disables_the_add_on_for_good() -> None:
    """A compile that ran out of memory or crashed may pass next time: only COMPILATION_ERROR (of Kotlin's ExitCode)
    is remembered beside the jar."""
    assert facade.lasting_failure("COMPILATION_ERROR")
    assert not any(facade.lasting_failure(code) for code in ("INTERNAL_ERROR", "OOM_ERROR", "SCRIPT_EXECUTION_ERROR"))


def test_a_kotlin_whose_fir_the_add_on_cannot_compile_gets_a_clear_unavailable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An add-on compile that failed for a Kotlin version is remembered beside where its jar would be: the session
    answers every completion with why, naming the version and the compiler's first error, and tries no compile."""
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(tmp_path))
    target = facade_jars.completion_addon_path("9.9.0")
    target.parent.mkdir(parents=True)
    target.with_name(f"{target.name}.failed").write_text(
        "could not compile the jvm-worker facade's completion add-on with Kotlin 9.9.0:\n"
        "Completer.kt:120:9: error: unresolved reference 'FirFileChecker'.\n"
    )
    # No JVM: the add-on's recorded failure is read before the driver or loader would be used.
    completion = SessionCompletion(
        driver=None,  # type: ignore[arg-type]
        facade_loader=None,
        kotlin_version="9.9.0",
        compile_classpath=[],
        index_classpath=[],
    )
    first = completion.complete("numbers.ma", 10, "_5.repl.kts", [])
    assert first.unavailable == (
        "completion is unavailable on Kotlin 9.9.0: its add-on did not compile "
        "(Completer.kt:120:9: error: unresolved reference 'FirFileChecker'.)"
    )
    assert first.items == [] and first.prefix_start == 8
    assert completion.complete("x", 1, "_5.repl.kts", []).unavailable == first.unavailable


@jvm
def test_a_check_or_completion_after_a_source_edit_keeps_the_sessions_jvm_and_state(
    sample_env: ReplEnvironment,
) -> None:
    """Through the real manager and a real worker: after an edit (the resolve reports sources compiled later), a check
    and a completion are answered by the same JVM, which still holds what the session declared."""
    edits = [0.0]

    def resolver(project_root: str, **_: object) -> FakeResolved:
        return FakeResolved(sample_env.model_copy(update={"sources_stamp": sample_env.sources_stamp + edits[0]}))

    async def scenario() -> None:
        manager = SessionManager(
            limits=SessionLimits(spare_worker=False, train_class_data=False),
            worker_options=WorkerOptions(heap_mb=512),
            resolver=resolver,
        )
        try:
            where = SessionTarget(sample_env.project_root, session_id="edited")
            ran = await manager.run_snippet(where, code="val keptAcrossEdits = 41")
            assert ran.result.type == "success", ran.result
            pid = manager.list()[0].worker_pid
            edits[0] += 1  # a project source was edited and rebuilt
            checked = await manager.check_snippet(
                dataclasses.replace(where, source_set="test"), code="keptAcrossEdits + 1"
            )
            assert isinstance(checked.result, CheckResult) and checked.result.compiled, checked.result
            assert checked.result.value_type == "kotlin.Int" and checked.notices == ()
            completed = await manager.complete_snippet(where, code="keptAcross")
            assert (
                isinstance(completed.result, CompletionResult)
                and completion_texts(completed.result)[0] == "keptAcrossEdits"
            )
            assert completed.notices == () and [s.worker_pid for s in manager.list()] == [pid]
        finally:
            await manager.close_all()

    asyncio.run(scenario())


def test_an_added_import_goes_after_the_codes_file_annotations_comments_and_imports() -> None:
    from gradle_repl.worker.repl.completion import import_edit

    assert import_edit("val f = Fil", "java.io.File").model_dump() == {
        "start": 0,
        "end": 0,
        "text": "import java.io.File\n",
    }
    header = '@file:DependsOn("a:b:1")\n// why\nimport java.util.*\n\n'
    assert import_edit(header + "val f = Fil", "java.io.File").start == len(header)
    assert import_edit("import java.util.*", "java.io.File").start == 0  # the line being typed is no header yet


def test_names_the_code_already_uses_rank_first_but_keywords_gain_nothing_from_it() -> None:
    from gradle_repl.worker.repl.completion import used_names

    found = [
        Candidate("Iterable", "interface", "kotlin.collections", 4),
        Candidate("Int", "class", "kotlin", 4),
        Candidate("if", "keyword", "", 6),
        Candidate("ImageBitmap", "class", "p", 4),
    ]
    code = "fun f(a: Int) { if (a > 0) g(a) }\nfun h(b: I"
    used = used_names(code, len(code) - 1, len(code))
    assert [c.text for c in rank(found, "I", used=used)] == ["Int", "ImageBitmap", "Iterable", "if"]


@jvm
def test_completion_offers_classes_not_imported_yet_with_their_import_and_sub_packages(worker: SyncWorker) -> None:
    """As IntelliJ's auto-import: a class from the JDK or the classpath not imported yet is offered with the import
    it needs, as an edit placed after the code's own imports (applied, the code runs); sub-packages follow a package
    name and an import; a written type offers types only."""
    assert_completes_imports_and_packages(worker)
    assert (
        completion_item(worker.complete("fun String.slug() = low"), "lowercase").kind == "function"
    )  # the receiver's members
