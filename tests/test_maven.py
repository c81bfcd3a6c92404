"""The Maven resolver produces a complete environment through a real `mvn` run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROJECTS, SAMPLE_PROJECT, SyncWorker, copy_project
from gradle_repl.errors import BuildFailed, GradleReplError
from gradle_repl.buildtools.maven import find_module
from gradle_repl.resolve import resolve_environment

MULTI = PROJECTS / "maven-multi"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gradle_repl", *args], capture_output=True, text=True, timeout=600)


def test_resolve_json_prints_a_complete_environment():
    done = cli("resolve", str(SAMPLE_PROJECT), "--build-tool", "maven", "--json")
    assert done.returncode == 0, done.stderr
    env = json.loads(done.stdout)
    assert env["build_tool"] == "maven" and env["kotlin_version"] == "2.3.21"
    assert env["classpath"][0].endswith("sample-project/target/classes")
    assert any("kotlinx-serialization-json-jvm-1.9.0.jar" in p for p in env["classpath"])
    assert any("kotlin-serialization-compiler-plugin-embeddable-2.3.21.jar" in p for p in env["compiler_plugin_classpath"])
    assert any("kotlin-compiler-embeddable-2.3.21.jar" in p for p in env["repl_host_classpath"])
    assert Path(env["java_executable"]).is_file()
    assert env["jvm_target"] == "17"
    assert env["compiler_args"] == ["-opt-in=kotlin.ExperimentalStdlibApi"]


def test_summary_names_build_tool_kotlin_jdk_and_plugins():
    done = cli("resolve", str(SAMPLE_PROJECT), "--build-tool", "maven")
    assert done.returncode == 0, done.stderr
    for expected in ("Build tool:        maven", "Kotlin version:    2.3.21", "JDK:", "kotlin-serialization-compiler-plugin"):
        assert expected in done.stdout


def test_test_source_set_adds_test_classes():
    env = resolve_environment(SAMPLE_PROJECT, source_set="test", build_tool="maven").environment
    assert env.classpath[:2] == [str(SAMPLE_PROJECT / "target/classes"), str(SAMPLE_PROJECT / "target/test-classes")]
    assert (SAMPLE_PROJECT / "target/test-classes/sample/Fixtures.class").is_file()


def test_module_is_found_by_directory_or_artifact_id():
    assert find_module(MULTI, ":app") == MULTI / "app"
    assert find_module(MULTI, "multi-core") == MULTI / "core"
    assert find_module(MULTI, ":") == MULTI
    with pytest.raises(GradleReplError, match="modules: app, core"):
        find_module(MULTI, ":nope")


@pytest.mark.jvm
def test_snippet_in_dependent_module_uses_classes_of_both(tmp_path: Path):
    project = copy_project(MULTI, tmp_path / "multi")
    env = resolve_environment(project, project_path=":app", source_set="test", build_tool="maven").environment
    assert str(project / "core/target/classes") in env.classpath
    worker = SyncWorker(env)
    try:
        assert worker.value("multi.app.Cart(listOf(multi.core.Money(199), multi.core.Money(1))).total()") == "2.00"
        assert worker.value("multi.app.CartFixtures.twoItems.total()") == "4.25"
    finally:
        worker.close()


def test_a_pom_that_does_not_compile_reports_the_compiler_messages(tmp_path: Path):
    project = copy_project(SAMPLE_PROJECT, tmp_path / "broken")
    (project / "src/main/kotlin/sample/Broken.kt").write_text("package sample\nval broken: Int = \"text\"\n")
    with pytest.raises(BuildFailed) as error:
        resolve_environment(project, build_tool="maven")
    message = str(error.value)
    assert message.startswith("Maven build failed:")
    assert "Broken.kt" in message and "mismatch" in message.lower()
    assert "Re-run Maven" not in message and "Traceback" not in message


def test_a_directory_without_a_build_is_one_clear_line(tmp_path: Path):
    done = cli("resolve", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0
    assert "no Gradle build" in done.stderr and "no Maven build (pom.xml)" in done.stderr


def test_unknown_source_set_is_rejected_clearly():
    with pytest.raises(GradleReplError, match="'main' and 'test'"):
        resolve_environment(SAMPLE_PROJECT, source_set="integration", build_tool="maven")
