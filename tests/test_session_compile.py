"""An edit of the session's own sources is compiled by the session's warm compiler (issue 42), through the real
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

from conftest import SAMPLE_PROJECT, copy_project
from gradle_repl.host.handle import Reply
from gradle_repl.project.session_classes import output_dir
from gradle_repl.project.toolchain import PINNED_KOTLIN_VERSION
from suiteversions import OLDER_KOTLIN
from test_hotswap import Project

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


def _project(root: Path, kotlin: str = PINNED_KOTLIN_VERSION) -> Project:
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
    return Project(root)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
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


def _session_dir(project: Project) -> Path:
    return output_dir("maven", str(project.root.resolve()), ":", "main")


def test_a_body_edit_compiles_in_the_session_without_a_build_tool_process(project: Project) -> None:
    """A one-line body edit: no Maven or Kotlin daemon process starts, target/classes is untouched, the notice says
    the session compiled it, and the same JVM runs the new body through the object it kept."""
    project.ok("val tuner = sample.Tuner(5)")
    pid = project.pid()
    built = project.root / "target" / "classes" / "sample" / "Tuner.class"
    before = built.stat().st_mtime_ns
    project.edit(TUNED, TUNED_TEXT.replace("base + n + 1", "base + n + 2"))
    with BuildProcesses() as processes:
        value, reply = project.value("tuner.tuned(1)")
    assert value == "8", reply.notices
    assert processes.seen == {}, processes.seen
    assert built.stat().st_mtime_ns == before
    assert "compiled Tuned.kt in the session" in _notes(reply) and project.pid() == pid, reply.notices
    assert (_session_dir(project) / "sample" / "Tuner.class").is_file()


def test_the_serialization_plugin_and_internal_apply_to_the_sessions_compile(project: Project) -> None:
    """The project's compiler plugin (kotlinx-serialization) and module name (`internal` across files) hold in the
    session's compile: a serializer compiled there encodes, and another file calls the internal function."""
    project.edit(TUNED, TUNED_TEXT.replace('Setting("volume", 3)', 'Setting("volume", hidden())'))
    value, reply = project.value("sample.encoded()")
    assert value == '{"name":"volume","level":40}' and "compiled Tuned.kt in the session" in _notes(reply), (
        reply.notices
    )


def test_a_java_files_body_edit_compiles_in_the_session(project: Project) -> None:
    """A Java file's body edit goes through the JDK's compiler in the session, no build tool."""
    assert project.value('sample.Greeter.greet("x")')[0] == "hello x"
    project.edit(GREETER, GREETER_TEXT.replace('"hello "', '"hi "'))
    value, reply = project.value('sample.Greeter.greet("x")')
    assert value == "hi x" and "compiled Greeter.java in the session" in _notes(reply), reply.notices


def test_an_inline_function_edit_goes_to_the_build_tool(project: Project) -> None:
    """Callers in other files hold an inline function's old body: Maven builds, and the notice says why."""
    project.edit(INLINED, INLINED_TEXT.replace("x * 2", "x * 3"))
    value, reply = project.value("sample.usesDoubled(2)")
    assert value == "6" and "built by Maven: Inlined.kt declares an inline function" in _notes(reply), reply.notices


def test_a_const_vals_new_value_goes_to_the_build_tool(project: Project) -> None:
    """Other files hold a constant's value: a changed const val is compiled by Maven, and the notice says so."""
    project.edit(LIMITS, LIMITS_TEXT.replace("= 10", "= 11"))
    value, reply = project.value("sample.limit()")
    assert value == "11" and "built by Maven: a const val's value changed (sample.LimitsKt.LIMIT)" in _notes(reply), (
        reply.notices
    )


def test_a_syntax_error_is_told_with_its_line_and_the_session_runs_the_last_good_body(project: Project) -> None:
    """A syntax error in the edited file comes back as file:line:column with the message; the snippet still runs,
    on the classes compiled last; fixing the file compiles it."""
    project.ok("val kept = sample.Tuner(1)")
    good = project.value("kept.tuned(1)")[0]
    project.edit(TUNED, TUNED_TEXT.replace("base + n + 1", "base + n + ("))
    value, reply = project.value("kept.tuned(1)")
    assert value == good, reply.notices
    assert "not compiled in the session" in _notes(reply) and f"{Path(TUNED).name}:10:" in _notes(reply), reply.notices
    project.edit(TUNED, TUNED_TEXT.replace("base + n + 1", "base + n + 5"))
    assert project.value("kept.tuned(1)")[0] == "7"


def test_a_restart_and_a_second_session_run_the_session_compiled_classes(project: Project) -> None:
    """While the sources match what a session compiled, a new JVM (a reset) and another session on the project run
    those classes, not the build's older ones."""
    project.edit(TUNED, TUNED_TEXT.replace("base + n + 1", "base + n + 9"))
    assert project.value("sample.Tuner(0).tuned(0)")[0] == "9"
    project.loop.run_until_complete(project.manager.reset(project.session))
    assert project.value("sample.Tuner(0).tuned(0)")[0] == "9"
    other = Project(project.root)
    other.session = "second"
    try:
        value, reply = other.value("sample.Tuner(0).tuned(0)")
        assert value == "9", reply.notices
    finally:
        other.close()


def test_the_build_tools_next_build_drops_the_session_compiled_classes(project: Project) -> None:
    """Once Maven builds (here for an inline function's edit), its output wins: gradle-repl's directory is emptied
    and the code still runs as edited."""
    project.edit(TUNED, TUNED_TEXT.replace("base + n + 1", "base + n + 4"))
    assert project.value("sample.Tuner(0).tuned(0)")[0] == "4"
    assert _classes_in(_session_dir(project))
    project.edit(INLINED, INLINED_TEXT.replace("x * 2", "x * 4"))
    value, reply = project.value("sample.usesDoubled(1) + sample.Tuner(0).tuned(0)")
    assert value == "8" and "built by Maven" in _notes(reply), reply.notices
    assert _classes_in(_session_dir(project)) == []


@pytest.mark.parametrize("kotlin", [OLDER_KOTLIN, PINNED_KOTLIN_VERSION])
def test_a_body_edit_compiles_in_the_session_on_each_kotlin(tmp_path: Path, kotlin: str) -> None:
    """The session's compile works on the project's Kotlin, older and current."""
    edited = _project(tmp_path / "sample", kotlin)
    try:
        edited.ok("val tuner = sample.Tuner(5)")
        edited.edit(TUNED, TUNED_TEXT.replace("base + n + 1", "base + n + 3"))
        value, reply = edited.value("tuner.tuned(1)")
        assert value == "9" and "compiled Tuned.kt in the session" in _notes(reply), reply.notices
    finally:
        edited.close()
