"""The Gradle path: command line, failure text and wrapper discovery always; real builds where a Gradle 7.6+ exists."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from gradle_repl.environment import MARKER
from gradle_repl.errors import BuildFailed, BuildToolNotFound
from gradle_repl.project.buildtools.gradle import build_root, find_gradle, gradle_command, gradle_errors
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.project.toolchain import PINNED_KOTLIN_VERSION
from gradle_repl.resources import init_script_path
from support.paths import PROJECTS, SAMPLE_PROJECT, copy_project
from support.workers import SyncWorker


def test_command_runs_the_task_of_the_requested_project_with_the_init_script() -> None:
    command = gradle_command(["/w/gradlew"], ":app", "test", "n0")
    assert command[0] == "/w/gradlew"
    assert command[command.index("--init-script") + 1] == str(init_script_path())
    assert "--no-configuration-cache" in command and "--console=plain" in command
    assert command[-1] == ":app:resolveReplEnvironment"
    assert {
        "-Pgradle-repl.sourceSet=test",
        "-Pgradle-repl.nonce=n0",
        f"-Pgradle-repl.defaultKotlinVersion={PINNED_KOTLIN_VERSION}",
    } <= set(command)
    assert any(a.startswith("-Pgradle-repl.replHostArtifacts=") and "kotlin-compiler-embeddable" in a for a in command)
    assert gradle_command(["gradle"], ":", "main", "n")[-1] == ":resolveReplEnvironment"
    assert gradle_command(["gradle"], "app", "main", "n")[-1] == ":app:resolveReplEnvironment"


def test_failure_text_leads_with_the_compiler_errors_and_drops_gradles_headings_and_hints() -> None:
    """The first real error (kotlinc's `e:` or javac's `error:` line, printed before FAILURE) comes first, then what
    went wrong; Gradle's headings, its `* Try:` hints and BUILD FAILED are not shown."""
    lines = [
        "> Task :compileKotlin FAILED",
        "e: file:///p/src/A.kt:1:5 Unresolved reference 'x'.",
        "/p/src/main/java/B.java:3: error: cannot find symbol",
        "",
        "FAILURE: Build failed with an exception.",
        "",
        "* What went wrong:",
        "Execution failed for task ':compileKotlin'.",
        "> Compilation error. See log for more details",
        "",
        "* Try:",
        "> Run with --stacktrace option to get the stack trace.",
        "> Get more help at https://help.gradle.org.",
        "",
        "BUILD FAILED in 3s",
    ]
    assert gradle_errors(lines).splitlines() == [
        "e: file:///p/src/A.kt:1:5 Unresolved reference 'x'.",
        "/p/src/main/java/B.java:3: error: cannot find symbol",
        "Execution failed for task ':compileKotlin'.",
        "> Compilation error. See log for more details",
    ]


def test_every_failure_of_a_build_that_continued_is_shown_without_its_separators() -> None:
    """With several failures (--continue), each one's what-went-wrong text is kept, in order."""
    lines = [
        "FAILURE: Build completed with 2 failures.",
        "",
        "1: Task failed with an exception.",
        "-----------",
        "* What went wrong:",
        "Execution failed for task ':a:compileKotlin'.",
        "",
        "* Try:",
        "> Run with --stacktrace option to get the stack trace.",
        "==============================================================================",
        "",
        "2: Task failed with an exception.",
        "-----------",
        "* What went wrong:",
        "Could not resolve all files for configuration ':b:runtimeClasspath'.",
        "> Could not find org.example:missing:1.0.",
        "",
        "* Try:",
        "> Run with --info or --debug option to get more log output.",
        "==============================================================================",
        "BUILD FAILED in 1s",
    ]
    assert gradle_errors(lines).splitlines() == [
        "Execution failed for task ':a:compileKotlin'.",
        "Could not resolve all files for configuration ':b:runtimeClasspath'.",
        "> Could not find org.example:missing:1.0.",
    ]


def test_wrapper_is_found_up_to_the_build_root(tmp_path: Path) -> None:
    """A subproject named by its own directory runs the build's wrapper at the settings file's directory."""
    (tmp_path / "settings.gradle.kts").write_text('include("a:b")')
    (tmp_path / "gradlew").write_text("#!/bin/sh\n")
    (tmp_path / "gradlew").chmod(0o755)
    module = tmp_path / "a" / "b"
    module.mkdir(parents=True)
    (module / "build.gradle.kts").write_text("")
    assert build_root(module) == tmp_path
    assert find_gradle(module) == [str(tmp_path / "gradlew")]


def test_a_wrapper_above_the_build_root_never_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A gradlew planted in a parent directory (say /tmp) is outside the project the user named."""
    (tmp_path / "gradlew").write_text("#!/bin/sh\necho planted\n")
    (tmp_path / "gradlew").chmod(0o755)
    project = tmp_path / "project"
    project.mkdir()
    (project / "build.gradle.kts").write_text("")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(BuildToolNotFound, match=f"build at {project}"):
        find_gradle(project)
    (project / "settings.gradle.kts").write_text("")
    with pytest.raises(BuildToolNotFound):
        find_gradle(project)


def test_a_wrapper_without_its_executable_bit_runs_through_sh(tmp_path: Path) -> None:
    """A non-executable gradlew is run as `sh gradlew`, not a PermissionError traceback."""
    (tmp_path / "settings.gradle.kts").write_text("")
    (tmp_path / "gradlew").write_text("#!/bin/sh\necho 'FAILURE: wrapper ran'; exit 3\n")
    (tmp_path / "gradlew").chmod(0o644)
    assert find_gradle(tmp_path) == ["sh", str(tmp_path / "gradlew")]
    with pytest.raises(BuildFailed, match="wrapper ran"):
        resolve_environment(tmp_path, build_tool="gradle")


def test_no_wrapper_and_no_gradle_says_how_to_get_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(BuildToolNotFound, match="gradle wrapper"):
        find_gradle(tmp_path)


def test_init_script_emits_every_marker_the_parser_requires() -> None:
    """The keys a resolve can't do without are printed by the script, under the names environment.py's table gives it."""
    script = init_script_path().read_text()
    for key in ("classpath", "javaExecutable", "javaHome", "kotlinVersion", "replHostClasspath", "end"):
        assert f"emit(MarkerKey.{key}," in script, key
    assert f'const val MARKER = "{MARKER}"' in script


# --- Real Gradle: runs wherever a Gradle 7.6+ is available. -------------------------------------------------


def _real_gradle() -> tuple[str | None, str]:
    candidate = os.environ.get("GRADLE_REPL_TEST_GRADLE") or shutil.which("gradle")
    if not candidate:
        return None, "no Gradle: set GRADLE_REPL_TEST_GRADLE or put gradle 7.6+ on PATH"
    try:
        out = subprocess.run([candidate, "--version"], capture_output=True, text=True, timeout=300).stdout
    except OSError as error:
        return None, f"{candidate} does not run: {error}"
    match = re.search(r"Gradle (\d+)\.(\d+)", out)
    if not match or (int(match[1]), int(match[2])) < (7, 6):
        return None, f"{candidate} is not Gradle 7.6+ ({match[0] if match else 'unknown version'})"
    return candidate, ""


GRADLE, WHY_NOT = _real_gradle()
needs_gradle = pytest.mark.skipif(GRADLE is None, reason=WHY_NOT)


@pytest.fixture
def gradle_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    assert GRADLE is not None
    monkeypatch.setenv("PATH", f"{Path(GRADLE).parent}{os.pathsep}{os.environ['PATH']}")


@needs_gradle
@pytest.mark.gradle
@pytest.mark.jvm
def test_sample_project_resolves_and_runs_through_gradle(tmp_path: Path, gradle_on_path: None) -> None:
    project = copy_project(SAMPLE_PROJECT, tmp_path / "sample")
    env = resolve_environment(project, build_tool="gradle").environment
    assert env.build_tool == "gradle" and env.kotlin_version == "2.3.21"
    assert any(p.endswith("build/classes/kotlin/main") for p in env.classpath)
    assert any("kotlin-serialization-compiler-plugin-embeddable" in p for p in env.compiler_plugin_classpath)
    assert "-opt-in=kotlin.ExperimentalStdlibApi" in env.compiler_args
    worker = SyncWorker(env)
    try:
        assert worker.value("sample.displayTitle(sample.classics.books[0].title)") == "The Trial"
        assert (
            worker.value(
                "import kotlinx.serialization.*\nimport kotlinx.serialization.json.*\n"
                "@Serializable data class P(val x: Int)\nJson.encodeToString(P(1))"
            )
            == '{"x":1}'
        )
    finally:
        worker.close()


@needs_gradle
@pytest.mark.gradle
@pytest.mark.jvm
def test_two_module_build_test_source_set_sees_both_modules(tmp_path: Path, gradle_on_path: None) -> None:
    shutil.copytree(PROJECTS / "maven-multi", tmp_path / "maven-multi")
    project = copy_project(PROJECTS / "gradle-multi", tmp_path / "gradle-multi")
    env = resolve_environment(project, project_path=":app", source_set="test", build_tool="gradle").environment
    worker = SyncWorker(env)
    try:
        assert worker.value("multi.app.CartFixtures.twoItems.total()") == "4.25"
    finally:
        worker.close()


@needs_gradle
@pytest.mark.gradle
def test_configuration_cache_and_warnings_as_errors_do_not_break_the_init_script(
    tmp_path: Path, gradle_on_path: None
) -> None:
    project = copy_project(SAMPLE_PROJECT, tmp_path / "sample")
    (project / "gradle.properties").write_text(
        "org.gradle.configuration-cache=true\norg.gradle.kotlin.dsl.allWarningsAsErrors=true\n"
    )
    env = resolve_environment(project, build_tool="gradle").environment
    assert env.repl_host_classpath and env.java_home


@needs_gradle
@pytest.mark.gradle
def test_an_edit_in_a_src_dir_outside_the_root_rebuilds(tmp_path: Path, gradle_on_path: None) -> None:
    """gradle-multi compiles ../maven-multi's sources: editing them must not leave a stale environment."""
    shutil.copytree(PROJECTS / "maven-multi", tmp_path / "maven-multi")
    project = copy_project(PROJECTS / "gradle-multi", tmp_path / "gradle-multi")
    resolve_environment(project, project_path=":app", build_tool="gradle")
    assert resolve_environment(project, project_path=":app", build_tool="gradle").from_cache
    cart = tmp_path / "maven-multi/app/src/main/kotlin/multi/app/Cart.kt"
    cart.write_text(cart.read_text() + "\nfun added() = 1\n")
    assert not resolve_environment(project, project_path=":app", build_tool="gradle").from_cache


@needs_gradle
@pytest.mark.gradle
@pytest.mark.jvm
def test_a_multiplatform_project_runs_common_and_jvm_code_and_rebuilds_on_a_common_edit(
    tmp_path: Path, gradle_on_path: None
) -> None:
    """gradle-kmp (one jvm() target): `main` names its JVM compilation, expect/actual code runs, the build's Compose
    and serialization plugins reach snippets, `jvmTest` sees commonTest, and an edit in commonMain rebuilds."""
    project = copy_project(PROJECTS / "gradle-kmp", tmp_path / "gradle-kmp")
    env = resolve_environment(project, build_tool="gradle").environment
    assert any(p.endswith("build/classes/kotlin/jvm/main") for p in env.classpath), env.classpath[:3]
    assert any("kotlin-compose-compiler-plugin-embeddable" in p for p in env.compiler_plugin_classpath)
    worker = SyncWorker(env)
    try:
        assert worker.value('shop.describe(shop.Item("tea", 250))') == "tea at 2.5 on JVM 17"
        assert (
            worker.value(
                'import kotlinx.serialization.json.*\nJson.encodeToString(shop.Item.serializer(), shop.Item("a", 1))'
            )
            == '{"name":"a","cents":1}'
        )
    finally:
        worker.close()
    test_env = resolve_environment(project, source_set="jvmTest", build_tool="gradle").environment
    assert any(p.endswith("build/classes/kotlin/jvm/test") for p in test_env.classpath)
    assert resolve_environment(project, build_tool="gradle").from_cache
    catalog = project / "src/commonMain/kotlin/shop/Catalog.kt"
    catalog.write_text(catalog.read_text() + "\nfun added() = 1\n")
    assert not resolve_environment(project, build_tool="gradle").from_cache


TUNED = """package sample

class Tuner(val base: Int) {
    fun tuned(n: Int): Int = base + n + 1
}

internal fun hidden(): Int = 40
"""


@needs_gradle
@pytest.mark.gradle
@pytest.mark.jvm
def test_a_body_edit_compiles_in_the_session_on_gradle(tmp_path: Path, gradle_on_path: None) -> None:
    """The session's own compile of an edit, on Gradle: the init script reports the source set's roots and KGP's
    module name, so a body edit is compiled by the session (the notice says so) and the same JVM runs the new body
    through the object it kept."""
    import asyncio

    from gradle_repl.frames import SuccessResult, WorkerOptions
    from gradle_repl.host.manager import SessionLimits, SessionManager
    from gradle_repl.target import SessionTarget

    project = copy_project(SAMPLE_PROJECT, tmp_path / "sample")
    tuned = project / "src/main/kotlin/sample/Tuned.kt"
    tuned.write_text(TUNED)
    env = resolve_environment(project, build_tool="gradle").environment
    assert env.edit_sources is not None and env.edit_sources.unavailable is None, env.edit_sources
    assert env.edit_sources.module_name == "sample-project" and env.edit_sources.friend_dirs == []
    assert any(Path(root) == (project / "src/main/kotlin").resolve() for root in env.edit_sources.roots)
    manager = SessionManager(
        limits=SessionLimits(spare_worker=False, train_class_data=False),
        worker_options=WorkerOptions(heap_mb=512),
        resolver=resolve_environment,
    )
    loop = asyncio.new_event_loop()
    target = SessionTarget(str(project), build_tool="gradle", session_id="edits")

    def value(code: str) -> tuple[str, str]:
        reply = loop.run_until_complete(manager.run_snippet(target, code=code))
        assert isinstance(reply.result, SuccessResult) and reply.result.value is not None, (reply.result, reply.notices)
        return reply.result.value.data, "\n".join(notice.text for notice in reply.notices)

    try:
        assert value("val tuner = sample.Tuner(5)\ntuner.tuned(1)")[0] == "7"
        tuned.write_text(TUNED.replace("base + n + 1", "base + n + 2"))
        later = time.time() + 2
        os.utime(tuned, (later, later))
        result, notes = value("tuner.tuned(1)")
        assert result == "8" and "compiled Tuned.kt in the session" in notes, notes
    finally:
        loop.run_until_complete(manager.close_all())
        loop.close()
