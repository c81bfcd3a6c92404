"""An edit of the session's own sources is compiled by the session's warm compiler, through the real
manager, real Maven builds, real JVMs and the real K2 compiler: no build-tool process runs for a body edit; what the
build tool would compile differently (an inline function, a constant's value, generated sources) goes to it with the
reason said; errors in the edited file are told while the session keeps its last good classes; restarts and other
sessions see the compiled classes until the build tool's next build, whose output wins."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from gradle_repl.frames import CheckResult, CompletionResult, ErrorResult, SuccessResult
from gradle_repl.host.handle import Reply
from gradle_repl.project.session_classes import output_dir
from gradle_repl.project.toolchain import PINNED_KOTLIN_VERSION
from suiteversions import OLDER_KOTLIN
from support.editedproject import EditedProject
from support.paths import SAMPLE_PROJECT, copy_project

pytestmark = pytest.mark.jvm

TUNED = "src/main/kotlin/sample/Tuned.kt"
TUNED_TEXT = """package sample

import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json

@Serializable
data class Setting(val name: String, val level: Int)

class Tuner(val base: Int) {
    fun tuned(n: Int): Int = base + n + 1
}

internal fun hidden(): Int = 40

fun encoded(): String = Json.encodeToString(Setting.serializer(), Setting("volume", 3))
"""
LIMITS = "src/main/kotlin/sample/Limits.kt"
LIMITS_TEXT = "package sample\n\nconst val LIMIT = 10\nfun limit(): Int = LIMIT\n"
INLINED = "src/main/kotlin/sample/Inlined.kt"
INLINED_TEXT = "package sample\n\ninline fun doubled(x: Int): Int = x * 2\nfun usesDoubled(x: Int): Int = doubled(x)\n"
GREETER = "src/main/kotlin/sample/Greeter.java"
GREETER_TEXT = 'package sample;\n\npublic class Greeter {\n    public static String greet(String who) { return "hello " + who; }\n}\n'


def _project(root: Path, kotlin: str = PINNED_KOTLIN_VERSION) -> EditedProject:
    copy_project(SAMPLE_PROJECT, root)
    pom = root / "pom.xml"
    # maven-compiler-plugin's default source level (5) no JDK compiles any more, and its 3.1 has no release: Greeter.java needs a level one does.
    pom.write_text(
        pom.read_text().replace(
            f"<kotlin.version>{PINNED_KOTLIN_VERSION}</kotlin.version>",
            f"<kotlin.version>{kotlin}</kotlin.version><maven.compiler.source>17</maven.compiler.source><maven.compiler.target>17</maven.compiler.target>",
        )
    )
    for path, text in ((TUNED, TUNED_TEXT), (LIMITS, LIMITS_TEXT), (INLINED, INLINED_TEXT), (GREETER, GREETER_TEXT)):
        (root / path).write_text(text)
    return EditedProject(root)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EditedProject]:
    edited = _project(tmp_path_factory.mktemp("session-compile") / "sample")
    yield edited
    edited.close()


class BuildProcesses:
    """Every process started under this one while it watches whose command line runs Maven or a Kotlin daemon, by pid."""

    def __init__(self) -> None:
        self.seen: dict[int, str] = {}
        # Already running before (the Kotlin daemon an earlier build left, idle until it times out): not started here.
        self._before = {child.pid for child in psutil.Process().children(recursive=True)}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> BuildProcesses:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        me = psutil.Process()
        while not self._done.wait(0.005):  # a poll of the process tree, not a wait for an outcome
            for child in me.children(recursive=True):
                if child.pid in self._before or child.pid in self.seen:
                    continue
                try:
                    line = " ".join(child.cmdline())
                except psutil.Error:
                    continue
                if "plexus-classworlds" in line or "org.codehaus.plexus" in line or "KotlinCompileDaemon" in line:
                    self.seen[child.pid] = line


def _notes(reply: Reply) -> str:
    return "\n".join(notice.text for notice in reply.notices)


def _classes_in(directory: Path) -> list[Path]:
    return sorted(directory.rglob("*.class"))


def _session_dir(project: EditedProject) -> Path:
    return output_dir("maven", str(project.root.resolve()), ":", "main")


def test_a_body_edit_compiles_in_the_session_without_a_build_tool_process(project: EditedProject) -> None:
    """A one-line body edit: no Maven or Kotlin daemon process starts, target/classes is untouched, the notice says
    the session compiled it, and the same JVM runs the new body through the object it kept."""
    project.ok("val tuner = sample.Tuner(5)")
    pid = project.pid()
    built = project.root / "target" / "classes" / "sample" / "Tuner.class"
    before = built.stat().st_mtime_ns
    project.write(TUNED, TUNED_TEXT.replace("base + n + 1", "base + n + 2"))
    with BuildProcesses() as processes:
        value, reply = project.value_and_reply("tuner.tuned(1)")
    assert value == "8", reply.notices
    assert processes.seen == {}, processes.seen
    assert built.stat().st_mtime_ns == before
    assert "compiled Tuned.kt in the session" in _notes(reply) and project.pid() == pid, reply.notices
    assert (_session_dir(project) / "sample" / "Tuner.class").is_file()


def test_the_serialization_plugin_and_internal_apply_to_the_sessions_compile(project: EditedProject) -> None:
    """The project's compiler plugin (kotlinx-serialization) and module name (`internal` across files) hold in the
    session's compile: a serializer compiled there encodes, and another file calls the internal function."""
    project.write(TUNED, TUNED_TEXT.replace('Setting("volume", 3)', 'Setting("volume", hidden())'))
    value, reply = project.value_and_reply("sample.encoded()")
    assert value == '{"name":"volume","level":40}' and "compiled Tuned.kt in the session" in _notes(reply), (
        reply.notices
    )


def test_a_java_files_body_edit_compiles_in_the_session(project: EditedProject) -> None:
    """A Java file's body edit goes through the JDK's compiler in the session, no build tool."""
    assert project.value_and_reply('sample.Greeter.greet("x")')[0] == "hello x"
    project.write(GREETER, GREETER_TEXT.replace('"hello "', '"hi "'))
    value, reply = project.value_and_reply('sample.Greeter.greet("x")')
    assert value == "hi x" and "compiled Greeter.java in the session" in _notes(reply), reply.notices


def test_an_inline_function_edit_goes_to_the_build_tool(project: EditedProject) -> None:
    """Callers in other files hold an inline function's old body: Maven builds, and the notice says why."""
    project.write(INLINED, INLINED_TEXT.replace("x * 2", "x * 3"))
    value, reply = project.value_and_reply("sample.usesDoubled(2)")
    assert value == "6" and "built by Maven: Inlined.kt declares an inline function" in _notes(reply), reply.notices


def test_a_const_vals_new_value_goes_to_the_build_tool(project: EditedProject) -> None:
    """Other files hold a constant's value: a changed const val is compiled by Maven, and the notice says so."""
    project.write(LIMITS, LIMITS_TEXT.replace("= 10", "= 11"))
    value, reply = project.value_and_reply("sample.limit()")
    assert value == "11" and "built by Maven: a const val's value changed (sample.LimitsKt.LIMIT)" in _notes(reply), (
        reply.notices
    )


def test_a_syntax_error_is_told_with_its_line_and_the_session_runs_the_last_good_body(project: EditedProject) -> None:
    """A syntax error in the edited file comes back as file:line:column with the message; the snippet still runs,
    on the classes compiled last; fixing the file compiles it."""
    project.ok("val kept = sample.Tuner(1)")
    good = project.value_and_reply("kept.tuned(1)")[0]
    project.write(TUNED, TUNED_TEXT.replace("base + n + 1", "base + n + ("))
    value, reply = project.value_and_reply("kept.tuned(1)")
    assert value == good, reply.notices
    assert "not compiled in the session" in _notes(reply) and f"{Path(TUNED).name}:10:" in _notes(reply), reply.notices
    project.write(TUNED, TUNED_TEXT.replace("base + n + 1", "base + n + 5"))
    assert project.value_and_reply("kept.tuned(1)")[0] == "7"


def test_a_restart_and_a_second_session_run_the_session_compiled_classes(project: EditedProject) -> None:
    """While the sources match what a session compiled, a new JVM (a reset) and another session on the project run
    those classes, not the build's older ones."""
    project.write(TUNED, TUNED_TEXT.replace("base + n + 1", "base + n + 9"))
    assert project.value_and_reply("sample.Tuner(0).tuned(0)")[0] == "9"
    project.loop.run_until_complete(project.manager.reset(project.session))
    assert project.value_and_reply("sample.Tuner(0).tuned(0)")[0] == "9"
    other = EditedProject(project.root)
    other.session = "second"
    try:
        value, reply = other.value_and_reply("sample.Tuner(0).tuned(0)")
        assert value == "9", reply.notices
    finally:
        other.close()


def test_the_build_tools_next_build_drops_the_session_compiled_classes(project: EditedProject) -> None:
    """Once Maven builds (here for an inline function's edit), its output wins: gradle-repl's directory is emptied
    and the code still runs as edited."""
    project.write(TUNED, TUNED_TEXT.replace("base + n + 1", "base + n + 4"))
    assert project.value_and_reply("sample.Tuner(0).tuned(0)")[0] == "4"
    assert _classes_in(_session_dir(project))
    project.write(INLINED, INLINED_TEXT.replace("x * 2", "x * 4"))
    value, reply = project.value_and_reply("sample.usesDoubled(1) + sample.Tuner(0).tuned(0)")
    assert value == "8" and "built by Maven" in _notes(reply), reply.notices
    assert _classes_in(_session_dir(project)) == []


def test_a_body_edit_compiles_in_the_session_and_is_taken_in_place_on_an_older_kotlin(tmp_path: Path) -> None:
    """Neither the session's compile nor the in-place update depends on the REPL's Kotlin: on the older one (the module's
    project is on the pinned one) a body edit is compiled in the session and the same object runs the new body, no
    restart; a new file's declarations compile in the session and resolve in a snippet."""
    edited = _project(tmp_path / "sample", OLDER_KOTLIN)
    try:
        edited.ok("val tuner = sample.Tuner(5)")
        edited.write(TUNED, TUNED_TEXT.replace("base + n + 1", "base + n + 3"))
        value, reply = edited.value_and_reply("tuner.tuned(1)")
        assert value == "9" and "compiled Tuned.kt in the session" in _notes(reply), reply.notices
        kinds = [notice.kind for notice in reply.notices]
        assert "updated" in kinds and "restarted" not in kinds, reply.notices
        edited.write(EXTRA, EXTRA_TEXT)
        value, reply = edited.value_and_reply("sample.extra() + tuner.tuned(1) + sample.ExtraBox(2).n")
        assert value == "new92" and "compiled Extra.kt in the session" in _notes(reply), reply.notices
    finally:
        edited.close()


EXTRA = "src/main/kotlin/sample/Extra.kt"
EXTRA_TEXT = 'package sample\n\nfun extra(): String = "new"\nval extraLevel: Int = 2\nclass ExtraBox(val n: Int)\n'
DEEPER = "src/main/kotlin/sample/deeper/Deeper.kt"
DEEPER_TEXT = "package sample.deeper\n\nfun deeper(): Int = 7\n"
LEAVING = "src/main/kotlin/sample/Leaving.kt"
# An inline function sends a file's edit to Maven (edit_plan): a file its build wrote into target/classes.
LEAVING_TEXT = "package sample\n\ninline fun leavingTwice(x: Int): Int = x * 2\nfun leaving(): Int = 3\n"


def _complete(project: EditedProject, code: str) -> list[str]:
    analysis = project.loop.run_until_complete(project.manager.complete_snippet(project.target, code=code))
    assert isinstance(analysis.result, CompletionResult), analysis.result
    return [item.text for item in analysis.result.items]


def _check(project: EditedProject, code: str) -> CheckResult:
    analysis = project.loop.run_until_complete(project.manager.check_snippet(project.target, code=code))
    assert isinstance(analysis.result, CheckResult), analysis.result
    return analysis.result


def test_a_new_files_declarations_resolve_after_the_sessions_compile(project: EditedProject) -> None:
    """A new file (a top-level function and property, a class), a new file in a new package and a class added to an
    existing file are compiled in the session, keep its state, and resolve in the next snippet, in a check and in
    completion. Failed on main before: the compiler's copy of the new classes held the build's Kotlin module file in
    place of the session's, so a new file's top-level functions were unresolved."""
    project.ok("val kept = 41")
    pid = project.pid()
    project.write(EXTRA, EXTRA_TEXT)
    value, reply = project.value_and_reply("sample.extra() + (kept + sample.extraLevel) + sample.ExtraBox(1).n")
    assert value == "new431", reply.notices
    assert "compiled Extra.kt in the session" in _notes(reply) and "kept its state" in _notes(reply), reply.notices
    project.write(DEEPER, DEEPER_TEXT)
    value, reply = project.value_and_reply("sample.deeper.deeper() + kept")
    assert value == "48" and "compiled Deeper.kt in the session" in _notes(reply), reply.notices
    project.write(TUNED, TUNED_TEXT + "\nclass Added(val x: Int = 5)\n")
    value, reply = project.value_and_reply("sample.Added().x + kept")
    assert value == "46" and "compiled Tuned.kt in the session" in _notes(reply), reply.notices
    assert project.pid() == pid
    checked = _check(project, "sample.extra() + sample.deeper.deeper() + sample.Added().x")
    assert checked.compiled and checked.value_type == "kotlin.String", checked
    assert "extra" in _complete(project, "sample.ext"), _complete(project, "sample.ext")
    assert "deeper" in _complete(project, "sample.deeper.de")
    assert "ExtraBox" in _complete(project, "ExtraB")


def test_a_deleted_files_declarations_stop_resolving(project: EditedProject) -> None:
    """A deleted file's function is a compile error naming it, whether the session compiled the file (Extra.kt, from
    the test before) or Maven did (Leaving.kt, which declares an inline function): never a class that runs on."""
    project.ok("0")
    if not (project.root / EXTRA).exists():
        project.write(EXTRA, EXTRA_TEXT)
        assert project.value_and_reply("sample.extra()")[0] == "new"
    project.write(LEAVING, LEAVING_TEXT)
    reply = project.run("sample.leaving() + sample.leavingTwice(1)")
    assert isinstance(reply.result, SuccessResult) and reply.result.value is not None, (
        reply.result.diagnostics if isinstance(reply.result, ErrorResult) else None,
        reply.notices,
    )
    value = reply.result.value.data
    assert value == "5" and "built by Maven" in _notes(reply), reply.notices
    for path, call in ((EXTRA, "sample.extra()"), (LEAVING, "sample.leaving()")):
        project.write(path, None)
        reply = project.run(call)
        assert isinstance(reply.result, ErrorResult) and reply.result.error_kind == "compile", (
            reply.result,
            reply.notices,
        )
        assert f"Unresolved reference '{call.removeprefix('sample.').removesuffix('()')}'" in reply.result.message, (
            reply.result
        )
        assert "NoClassDefFoundError" not in reply.result.message
        checked = _check(project, call)
        assert not checked.compiled, checked
