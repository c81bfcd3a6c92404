"""An edit to the project keeps the session, through the real manager, real Maven builds and real JVMs:
body edits are taken in place, changes the JVM can't take restart the session with the reason, and a replay runs
the session's successful snippets again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gradle_repl.host.handle import Reply
from support.editedproject import EditedProject
from support.paths import SAMPLE_PROJECT, copy_project

pytestmark = pytest.mark.jvm

EDITED = "src/main/kotlin/sample/Edited.kt"
FIRST = """package sample

class Counter(val start: Int) {
    fun next(n: Int): Int = start + n + 1
}

inline fun twice(x: Int): Int = x * 2
fun usesTwice(x: Int): Int = twice(x)

val greeting = "hello"
fun gone(): Int = 1
fun listed(): List<Int> = listOf(1, 2, 3)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EditedProject]:
    """A private copy of sample-project with EDITED, on its own (the pinned) Kotlin; the older Kotlin's in-place update
    is worker/classes/test_session_compile.py's."""
    root = copy_project(SAMPLE_PROJECT, tmp_path_factory.mktemp("hotswap") / "sample")
    (root / EDITED).write_text(FIRST)
    edited = EditedProject(root)
    yield edited
    edited.close()


def _kinds(reply: Reply) -> list[str]:
    return [notice.kind for notice in reply.notices]


def _text(reply: Reply, kind: str) -> str:
    return next(notice.text for notice in reply.notices if notice.kind == kind)


def test_a_body_edit_keeps_values_and_objects_and_runs_the_new_body_through_them(project: EditedProject) -> None:
    """After a one-line body edit, an inline function's edit and a new source file, one rebuild: the same JVM keeps a
    `val` and an object made before the edit, the object runs the new body, the inline function's caller runs the
    new inline body (all changed classes went in one redefinition), the new file's class is usable, and the reply
    names what was updated and that a changed top-level initialiser did not run again."""
    project.ok("val kept = 41\nval counter = sample.Counter(100)")
    assert project.value_and_reply("counter.next(1) + sample.usesTwice(3)")[0] == "108"
    pid = project.pid()
    project.write(
        EDITED, FIRST.replace("start + n + 1", "start + n + 1000").replace("x * 2", "x * 3").replace('"hello"', '"bye"')
    )
    project.write(
        "src/main/kotlin/sample/Fresh.kt", 'package sample\n\nclass Fresh { fun hi() = "fresh" }\nfun freshTop() = 7\n'
    )
    value, reply = project.value_and_reply("counter.next(1) + kept + sample.usesTwice(3)")
    assert value == str(100 + 1 + 1000 + 41 + 9), reply.notices
    assert project.pid() == pid and "restarted" not in _kinds(reply), reply.notices
    updated = _text(reply, "updated")
    assert "sample.Counter" in updated and "sample.EditedKt" in updated and "new: sample.Fresh" in updated, updated
    assert "static initialiser of sample.EditedKt changed and does not run again" in updated, updated
    assert project.value_and_reply("sample.greeting")[0] == "hello"  # the initialiser ran once, before the edit
    assert project.value_and_reply("sample.Fresh().hi() + sample.freshTop()")[0] == "fresh7"


def test_a_lambda_added_restarts_the_session_naming_the_reason_and_what_was_lost(project: EditedProject) -> None:
    """Kotlin 2 compiles a lambda to a synthetic method, which the JVM refuses to add: the session restarts, and the
    notice names the class, the reason and the names earlier snippets declared."""
    project.ok("val beforeLambda = 1")
    pid = project.pid()
    source = (project.root / EDITED).read_text()
    # Not inside an inline call (map's lambda would be inlined): a function value, compiled with invokedynamic.
    project.write(
        EDITED,
        source.replace(
            "= listOf(1, 2, 3)", "{ val times: (Int) -> Int = { it * 10 }; return listOf(1, 2, 3).map(times) }"
        ),
    )
    value, reply = project.value_and_reply("sample.listed()")
    assert value == "[10, 20, 30]"
    restarted = _text(reply, "restarted")
    assert project.pid() != pid
    assert "sample.EditedKt: a method was added: listed$lambda" in restarted, restarted
    assert "val beforeLambda" in restarted, restarted


def test_a_method_added_restarts_the_session_with_the_reason(project: EditedProject) -> None:
    """A method added to a class the session loaded is a schema change: restart, naming the class and the method."""
    project.value_and_reply("sample.Counter(1).next(1)")
    source = (project.root / EDITED).read_text()
    project.write(
        EDITED,
        source.replace("fun next(n: Int): Int", "fun previous(n: Int): Int = start - n\n    fun next(n: Int): Int"),
    )
    value, reply = project.value_and_reply("sample.Counter(10).previous(1)")
    assert value == "9"
    assert "sample.Counter: a method was added: previous(I)I" in _text(reply, "restarted"), reply.notices


def test_a_deleted_class_restarts_the_session(project: EditedProject) -> None:
    """A class file that disappeared (its source deleted) can't be taken back from a live JVM: restart, naming it.
    Maven's `compile` leaves a deleted source's class files in target/classes (Gradle's build removes them); the test
    removes them as Gradle would, so the rebuild's outputs are what a build that drops them gives. A new file is
    compiled in the session into gradle-repl's directory, which the build tool's next build empties: then
    target/classes never held it."""
    project.write("src/main/kotlin/sample/Doomed.kt", "package sample\n\nclass Doomed\n")
    project.value_and_reply("sample.Doomed().toString().length > 0")
    project.write("src/main/kotlin/sample/Doomed.kt", None)
    (project.root / "target/classes/sample/Doomed.class").unlink(missing_ok=True)
    reply = project.run("1 + 1")
    assert "sample.Doomed was deleted" in _text(reply, "restarted"), reply.notices
    assert project.run("sample.Doomed()").result.type == "error"


def test_replay_restores_declarations_and_stops_at_the_first_failing_snippet(project: EditedProject) -> None:
    """With replay on_restart, a restart the project forced runs the session's successful snippets again in order and
    stops at the first that fails (it used a function the edit removed), saying how many ran; reset with replay then
    runs the rest of the history again in a new JVM."""
    project.session = "replays"  # a history of its own
    project.ok("val a = 20", replay="on_restart")
    project.value_and_reply("val b = sample.gone() + a\nb")
    project.value_and_reply("val c = 3\nc")
    source = (project.root / EDITED).read_text()
    project.write(EDITED, source.replace("fun gone(): Int = 1\n", ""))
    value, reply = project.value_and_reply("a + 1")
    assert value == "21", reply.notices
    replayed = _text(reply, "replayed")
    assert replayed.startswith("[replayed 1 of 3 earlier snippet(s); snippet 2 failed"), replayed
    assert "restarted" in _kinds(reply) and "sample.EditedKt: a method was removed: gone()I" in _text(
        reply, "restarted"
    )
    assert project.run("c").result.type == "error"  # after the failing snippet: not run again
    pid = project.pid()
    notices = project.loop.run_until_complete(project.manager.reset_and_replay("replays"))
    assert [n.text for n in notices if n.kind == "replayed"] == ["[replayed 2 of 2 earlier snippet(s)]"], notices
    assert project.pid() != pid and project.value_and_reply("a + 1")[0] == "21"
