"""Which edits the session compiles itself and which go to the build tool, decided from the edit and the
POM alone — without compiling, without running kapt or KSP."""

from __future__ import annotations

import os
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gradle_repl.environment import EditSources, ReplEnvironment
from gradle_repl.project.build_inputs import Fingerprint, Inputs
from gradle_repl.project.buildtools.pom import edit_sources
from gradle_repl.project.edit_plan import EditPlan, declares_expect_or_actual, declares_inline, plan_edit

KOTLIN_PLUGIN = (
    """<plugin><groupId>org.jetbrains.kotlin</groupId><artifactId>kotlin-maven-plugin</artifactId>{body}</plugin>"""
)


def _project(plugins: str, module: Path) -> ET.Element:
    return ET.fromstring(
        f"<project><artifactId>shop</artifactId><build><sourceDirectory>{module}/src/main/kotlin</sourceDirectory>"
        f"<testSourceDirectory>{module}/src/test/kotlin</testSourceDirectory><plugins>{plugins}</plugins></build></project>"
    )


@pytest.mark.parametrize(
    ("plugins", "why"),
    [
        (KOTLIN_PLUGIN.format(body=""), None),
        (
            KOTLIN_PLUGIN.format(
                body="<executions><execution><id>kapt</id><goals><goal>kapt</goal></goals></execution></executions>"
            ),
            "kapt or KSP generates sources in this build",
        ),
        (
            KOTLIN_PLUGIN.format(
                body="<dependencies><dependency><groupId>com.dyescape</groupId><artifactId>kotlin-maven-symbol-processing</artifactId></dependency></dependencies>"
            ),
            "kapt or KSP generates sources in this build",
        ),
        (
            "<plugin><artifactId>maven-compiler-plugin</artifactId><configuration><annotationProcessorPaths><path/></annotationProcessorPaths></configuration></plugin>",
            "Java annotation processors generate sources in this build",
        ),
        (
            "<plugin><artifactId>maven-compiler-plugin</artifactId><configuration><annotationProcessorPaths><path/></annotationProcessorPaths><proc>none</proc></configuration></plugin>",
            None,
        ),
    ],
)
def test_generated_sources_send_every_edit_to_the_build_tool(tmp_path: Path, plugins: str, why: str | None) -> None:
    """kapt (a kotlin-maven-plugin goal), KSP (a plugin dependency) or Java annotation processors in the POM make the
    source set's edits the build tool's; without them the session may compile them."""
    sources = edit_sources(_project(plugins, tmp_path), tmp_path, [tmp_path / "target/classes"], test=False)
    assert sources.unavailable == why


def test_main_and_test_source_sets_get_the_kotlin_maven_plugins_module_names_and_friend_paths(tmp_path: Path) -> None:
    """main compiles as `${artifactId}`, test as `${artifactId}-test` seeing main's internals (friend paths), each
    from its own source roots."""
    project = _project(KOTLIN_PLUGIN.format(body=""), tmp_path)
    main = edit_sources(project, tmp_path, [tmp_path / "target/classes"], test=False)
    test = edit_sources(project, tmp_path, [tmp_path / "target/classes", tmp_path / "target/test-classes"], test=True)
    assert (main.module_name, test.module_name) == ("shop", "shop-test")
    assert f"{tmp_path}/src/main/kotlin" in main.roots and f"{tmp_path}/src/test/kotlin" in test.roots
    assert f"{tmp_path}/src/main/kotlin" not in test.roots and test.friend_dirs[0] == f"{tmp_path}/target/classes"


def _environment(root: Path, *, unavailable: str | None = None) -> ReplEnvironment:
    return ReplEnvironment(
        build_tool="maven",
        project_root=str(root),
        java_executable="java",
        java_home="/jdk",
        kotlin_version="2.3.21",
        edit_sources=EditSources(
            roots=[str(root / "src/main/kotlin")],
            module_name="shop",
            output_dir=str(root / "out"),
            unavailable=unavailable,
        ),
    )


def _edited(root: Path, change: dict[str, str | None]) -> tuple[Fingerprint, Fingerprint]:
    """The fingerprints before and after writing (or, with None, deleting) the files."""
    inputs = Inputs(trees=(root,), is_build_file=lambda path, tree: path.name == "pom.xml")
    before = Fingerprint.take(inputs)
    later = time.time() + 5
    for name, text in change.items():
        path = root / name
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (later, later))
    return before, Fingerprint.take(inputs)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for name, text in {
        "pom.xml": "<project/>",
        "src/main/kotlin/A.kt": "fun a() = 1\n",
        "src/main/resources/app.conf": "x=1",
        "src/test/kotlin/T.kt": "fun t() = 1\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"src/main/kotlin/A.kt": "fun a() = 2\n"}, ["src/main/kotlin/A.kt"]),
        (
            {"src/main/kotlin/B.kt": "fun b() = 2\n", "src/main/kotlin/p/C.java": "class C {}"},
            ["src/main/kotlin/B.kt", "src/main/kotlin/p/C.java"],
        ),
        ({"src/main/kotlin/A.kt": "inline fun a() = 2\n"}, "A.kt declares an inline function"),
        (
            {"src/main/kotlin/A.kt": "actual fun a() = 2\n"},
            "A.kt declares a multiplatform expect or actual declaration",
        ),
        ({"src/main/kotlin/A.kt": None}, "A.kt was deleted or renamed"),
        ({"src/main/resources/app.conf": "x=2"}, "app.conf is not a source file of this source set"),
        ({"src/test/kotlin/T.kt": "fun t() = 2\n"}, "T.kt is not a source file of this source set"),
    ],
)
def test_only_the_source_sets_own_source_files_compile_in_the_session(
    root: Path, change: dict[str, str | None], expected: list[str] | str
) -> None:
    """Edited .kt and .java files under the source set's roots compile in the session; an inline function, a deleted
    file, a resource or another source set's file go to the build tool, named."""
    plan = plan_edit(*_edited(root, change), _environment(root))
    if isinstance(expected, str):
        assert plan == expected
    else:
        assert isinstance(plan, EditPlan) and plan.files == [str(root / name) for name in expected]


def test_a_build_generating_sources_sends_even_a_body_edit_to_the_build_tool(root: Path) -> None:
    plan = plan_edit(
        *_edited(root, {"src/main/kotlin/A.kt": "fun a() = 2\n"}), _environment(root, unavailable="kapt runs")
    )
    assert plan == "kapt runs"


@pytest.mark.parametrize(
    ("text", "inline"),
    [
        ("inline fun f() = 1", True),
        ("public inline fun <reified T> g() = 1", True),
        ("internal inline val x: Int get() = 1", True),
        ("@JvmInline value class V(val x: Int)", False),
        ("// inline fun f() = 1\nfun f() = 1", False),
        ('val s = "inline fun"', False),
        ("/* an inline fun\n here */ fun f() = 1", False),
    ],
)
def test_an_inline_declaration_is_found_outside_comments_and_strings(tmp_path: Path, text: str, inline: bool) -> None:
    path = tmp_path / "F.kt"
    path.write_text(text)
    assert declares_inline(path) is inline


@pytest.mark.parametrize(
    ("text", "declares"),
    [
        ("expect fun platform(): String", True),
        ('actual fun platform(): String = "JVM"', True),
        ("actual data class Point(val x: Int)", True),
        ("public actual typealias Lock = java.util.concurrent.locks.ReentrantLock", True),
        ("fun check(expected: Int, actual: Int) = expected == actual", False),
        ("val actual = 3", False),
        ("// expect fun f()\nfun f() = 1", False),
    ],
)
def test_a_multiplatform_expect_or_actual_declaration_is_found(tmp_path: Path, text: str, declares: bool) -> None:
    """KGP compiles a KMP compilation's expect and actual declarations together (-Xmulti-platform): compiled alone in
    the session they would fail, so a file declaring one goes to the build tool; a parameter named `actual` does not."""
    path = tmp_path / "F.kt"
    path.write_text(text)
    assert declares_expect_or_actual(path) is declares


def test_a_test_source_sets_sources_carry_main_compiled_as_main_without_the_test_outputs(tmp_path: Path) -> None:
    """A session of the tests compiles main sources too: with main's module name, main's roots, and a class path
    without the test outputs (as `mvn compile` has it)."""
    outputs = [tmp_path / "target/test-classes", tmp_path / "target/classes"]
    test = edit_sources(_project(KOTLIN_PLUGIN.format(body=""), tmp_path), tmp_path, outputs, test=True)
    main = test.main_sources
    assert main is not None and main.main_sources is None
    assert main.module_name == "shop" and f"{tmp_path}/src/main/kotlin" in main.roots
    assert main.hidden_dirs == [f"{tmp_path}/target/test-classes"]


def _test_environment(root: Path, *, main_unavailable: str | None = None) -> ReplEnvironment:
    main = EditSources(
        roots=[str(root / "src/main/kotlin")],
        module_name="shop",
        output_dir=str(root / "out-main"),
        hidden_dirs=[str(root / "out-test")],
        unavailable=main_unavailable,
    )
    test = EditSources(
        roots=[str(root / "src/test/kotlin")],
        module_name="shop-test",
        output_dir=str(root / "out-test"),
        main_sources=main,
    )
    return _environment(root).model_copy(update={"source_set": "test", "edit_sources": test})


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"src/test/kotlin/T.kt": "fun t() = 2\n"}, "shop-test"),
        ({"src/main/kotlin/A.kt": "fun a() = 2\n"}, "shop"),
        (
            {"src/main/kotlin/A.kt": "fun a() = 2\n", "src/test/kotlin/T.kt": "fun t() = 2\n"},
            "main and test sources changed together",
        ),
        ({"src/main/resources/app.conf": "x=2"}, "app.conf is not a source file of this source set"),
    ],
)
def test_a_test_session_compiles_a_main_or_a_test_edit_each_as_the_build_does(
    root: Path, change: dict[str, str | None], expected: str
) -> None:
    """A test session's edit of main sources compiles as main, into main's directory; one of both goes to the build."""
    plan = plan_edit(*_edited(root, change), _test_environment(root))
    if isinstance(plan, EditPlan):
        assert plan.sources.module_name == expected
        assert plan.sources.output_dir == str(root / ("out-main" if expected == "shop" else "out-test"))
    else:
        assert plan == expected


def test_a_test_sessions_main_edit_goes_to_the_build_tool_when_main_generates_sources(root: Path) -> None:
    plan = plan_edit(
        *_edited(root, {"src/main/kotlin/A.kt": "fun a() = 2\n"}), _test_environment(root, main_unavailable="kapt runs")
    )
    assert plan == "kapt runs"
