"""Resolved environments are cached on disk and never served stale: any input of the build, inside
the project or outside it, and anything the environment names, invalidates them."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from gradle_repl.errors import BuildToolNotFound
from gradle_repl.project import build_inputs, buildlock
from gradle_repl.project.build_inputs import Fingerprint
from gradle_repl.project.buildtools import gradle as gradle_tool
from gradle_repl.project.buildtools.gradle import GRADLE
from gradle_repl.project.buildtools.maven import MAVEN
from gradle_repl.project.cache import EnvironmentCache
from gradle_repl.project.freshness import stale_reason
from gradle_repl.project.resolve import Resolved, _cache_key, resolve_environment
from gradle_repl.resources import init_script_path
from support.paths import PROJECTS, SAMPLE_PROJECT, copy_project


@dataclass(frozen=True)
class Built:
    project: Path
    parent_pom: Path
    home: Path
    first: Resolved


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    """One real Maven build shared by the module: a sample-project copy whose inputs include every kind the
    tests below change — a parent POM outside its root, a user settings directory (HOME), resources, a
    package named `build`, and a dangling symlink among the sources. Each test changes an input, checks,
    and puts it back in place (same inode, same mtime), so the entry is valid again for the next."""
    root = tmp_path_factory.mktemp("cache")
    home = root / "home"
    (home / ".m2").mkdir(parents=True)
    parent_pom = root / "parent/pom.xml"
    project = copy_project(SAMPLE_PROJECT, parent_pom.parent / "child")
    parent_pom.write_text(
        "<project><modelVersion>4.0.0</modelVersion><groupId>example</groupId><artifactId>parent</artifactId>"
        "<version>1.0</version><packaging>pom</packaging><properties><x>1</x></properties></project>\n"
    )
    pom = project / "pom.xml"
    pom.write_text(
        pom.read_text().replace(
            "<modelVersion>4.0.0</modelVersion>",
            "<modelVersion>4.0.0</modelVersion><parent><groupId>example</groupId><artifactId>parent</artifactId>"
            "<version>1.0</version></parent>",
            1,
        )
    )
    write(
        project,
        {
            "src/main/resources/greeting.txt": "hello",
            "src/main/kotlin/sample/build/Steps.kt": "package sample.build\nfun step() = 1\n",
        },
    )
    (project / "src/main/kotlin/sample/Gone.kt").symlink_to(project / "nowhere.kt")
    assert parent_pom in MAVEN.inputs(project).files
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))  # what Python reads for ~/.m2/settings.xml; mvn keeps its own user.home
        yield Built(project, parent_pom, home, resolve_environment(project, build_tool="maven"))


def no_build_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """PATH without mvn or gradle: any attempt to run a build tool fails loudly."""
    monkeypatch.setenv("PATH", "/nonexistent")


def assert_rebuilds(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next resolve must run the build tool (which, with no tool on PATH, fails)."""
    with monkeypatch.context() as patch:
        no_build_tool(patch)
        with pytest.raises(BuildToolNotFound):
            resolve_environment(project, build_tool="maven")


def assert_hit(project: Path, monkeypatch: pytest.MonkeyPatch) -> Resolved:
    with monkeypatch.context() as patch:
        no_build_tool(patch)
        resolved = resolve_environment(project, build_tool="maven")
    assert resolved.from_cache
    return resolved


@contextmanager
def rewritten(path: Path, text: str) -> Iterator[None]:
    """path holds text for the body, then its old content and mtime again, in the same inode."""
    before, info = path.read_bytes(), path.stat()
    path.write_text(text)
    try:
        yield
    finally:
        path.write_bytes(before)
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


@contextmanager
def added(path: Path, text: str) -> Iterator[None]:
    path.write_text(text)
    try:
        yield
    finally:
        path.unlink()


@contextmanager
def renamed(path: Path, new_name: str) -> Iterator[None]:
    path.rename(path.with_name(new_name))
    try:
        yield
    finally:
        path.with_name(new_name).rename(path)


@contextmanager
def touched(path: Path) -> Iterator[None]:
    """A newer mtime alone: snippets must see the project's latest code, so it means a new build."""
    info = path.stat()
    later = time.time() + 5
    os.utime(path, (later, later))
    try:
        yield
    finally:
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def _replaced(path: Path, old: str, new: str) -> AbstractContextManager[None]:
    return rewritten(path, path.read_text().replace(old, new, 1))


# Each: an input of the build that changes, and how (undone after the test).
CHANGES: dict[str, Callable[[Built], AbstractContextManager[None]]] = {
    "a build file": lambda b: _replaced(b.project / "pom.xml", "<version>1.0</version>", "<version>1.1</version>"),
    "a newer source file": lambda b: touched(b.project / "src/main/kotlin/sample/Books.kt"),
    # `build`, `target`, `out` are skipped only as a module's output, not as package directories.
    "a source in a package named build": lambda b: rewritten(
        b.project / "src/main/kotlin/sample/build/Steps.kt", "package sample.build\nfun step() = 2\n"
    ),
    "a renamed source": lambda b: renamed(b.project / "src/main/kotlin/sample/Stats.kt", "Statistics.kt"),
    "a new source": lambda b: added(b.project / "src/main/kotlin/sample/Extra.kt", "package sample\nval extra = 1\n"),
    # Resources are copied into the classes directory by the build: an edit needs one.
    "a resource": lambda b: rewritten(b.project / "src/main/resources/greeting.txt", "hello again"),
    # ~/.m2/settings.xml (mirrors, profiles, properties) changes what Maven resolves.
    "the user's Maven settings": lambda b: added(b.home / ".m2/settings.xml", "<settings/>"),
    "a parent POM outside the root": lambda b: _replaced(b.parent_pom, "<x>1</x>", "<x>2</x>"),
}


@pytest.mark.parametrize("change", CHANGES)
def test_a_changed_input_invalidates_and_undoing_it_validates_again(
    built: Built, change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with CHANGES[change](built):
        assert_rebuilds(built.project, monkeypatch)
    assert_hit(built.project, monkeypatch)


def test_a_hit_does_not_run_the_build_tool_and_a_dangling_symlink_never_fails_a_resolve(
    built: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not built.first.from_cache
    assert assert_hit(built.project, monkeypatch).environment == built.first.environment


def test_a_hit_never_waits_for_another_process_building_the_project(
    built: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hit is checked before every snippet: another process holding the project's build slot (here
    this test, through a lock file of its own) must not hold it up, and a wait would fail within 1 s."""
    monkeypatch.setattr(buildlock, "BUILD_LOCK_TIMEOUT_SECONDS", 1.0)
    with buildlock.build_slot(built.project):
        assert assert_hit(built.project, monkeypatch).environment == built.first.environment


def test_refresh_bypasses_the_cache(built: Built, monkeypatch: pytest.MonkeyPatch) -> None:
    no_build_tool(monkeypatch)
    with pytest.raises(BuildToolNotFound):
        resolve_environment(built.project, build_tool="maven", refresh=True)


def test_a_hit_checks_that_the_jdk_and_compiler_jars_still_exist(built: Built, tmp_path: Path) -> None:
    environment, project = built.first.environment, built.project
    plugin = tmp_path / "plugin.jar"
    shutil.copy(environment.compiler_plugin_classpath[0], plugin)
    cache = EnvironmentCache(tmp_path / "cache")
    key = _cache_key(project, MAVEN, ":", "main")
    changed = environment.model_copy(update={"compiler_plugin_classpath": [str(plugin)]})
    entry = cache.put(key, changed, Fingerprint.take(MAVEN.inputs(project)))
    assert stale_reason(entry) is None
    plugin.unlink()
    assert stale_reason(entry) == f"{plugin} no longer exists"
    java = environment.model_copy(update={"java_executable": str(tmp_path / "jdk/bin/java")})
    assert "jdk/bin/java no longer exists" in (stale_reason(cache.put(key, java, entry.fingerprint)) or "")


def test_the_key_names_the_resolver_the_init_script_the_maven_extension_and_the_jdk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = copy_project(SAMPLE_PROJECT, tmp_path / "sample")
    gradle = _cache_key(project, GRADLE, ":", "main").facts
    assert gradle["resolver"] and gradle["init script"] and "GRADLE_USER_HOME" in gradle
    # A changed init script reports differently: a new key, so no environment it reported earlier is reused.
    edited = tmp_path / "repl-env.init.gradle.kts"
    edited.write_text(init_script_path().read_text() + "\n// changed\n")
    monkeypatch.setattr(gradle_tool, "init_script_path", lambda: edited)
    gradle_tool._init_script_hash.cache_clear()  # read once per process: the shipped script doesn't change under it
    try:
        assert _cache_key(project, GRADLE, ":", "main").facts["init script"] != gradle["init script"]
    finally:
        monkeypatch.undo()
        gradle_tool._init_script_hash.cache_clear()
    before = _cache_key(project, MAVEN, ":", "main")
    assert before.facts["maven extension"]
    monkeypatch.setenv("JAVA_HOME", "/opt/another-jdk")
    assert _cache_key(project, MAVEN, ":", "main") != before


# --- Inputs and fingerprints, without a build. --------------------------------------------------------------


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_gradle_build_files_are_hashed_and_outputs_skipped(tmp_path: Path) -> None:
    root = tmp_path / "g"
    write(
        root,
        {
            "settings.gradle.kts": 'include("a")',
            "a/build.gradle.kts": "",
            "gradle/libs.versions.toml": '[versions]\nkotlin = "2.3.21"\n',
            "gradle/wrapper/gradle-wrapper.properties": "distributionUrl=x",
            "gradle.properties": "org.gradle.configuration-cache=true",
            "buildSrc/src/main/kotlin/Conventions.kt": "object C",
            "build/generated.gradle.kts": "",
            "a/build/classes/A.class": "",
            "a/src/main/kotlin/App.kt": "fun main() {}",
            "a/src/main/kotlin/com/x/build/Steps.kt": "object S",
            ".gradle/8.11/fileHashes.bin": "",
            "a/src/main/kotlin/.App.kt.swp": "",
        },
    )
    fingerprint = Fingerprint.take(GRADLE.inputs(root))
    names = {Path(p).relative_to(root).as_posix() for p in fingerprint.stats}
    assert "a/src/main/kotlin/com/x/build/Steps.kt" in names and "a/src/main/kotlin/App.kt" in names
    assert not names & {
        "build/generated.gradle.kts",
        "a/build/classes/A.class",
        ".gradle/8.11/fileHashes.bin",
        "a/src/main/kotlin/.App.kt.swp",
    }
    base = fingerprint.build_hash()
    for name in (
        "gradle/libs.versions.toml",
        "gradle/wrapper/gradle-wrapper.properties",
        "gradle.properties",
        "buildSrc/src/main/kotlin/Conventions.kt",
        "a/build.gradle.kts",
        "settings.gradle.kts",
    ):
        path = root / name
        original = path.read_text()
        path.write_text(original + "\n// changed")
        assert Fingerprint.take(GRADLE.inputs(root)).build_hash() != base, name
        assert fingerprint.change() == f"{path} changed"
        path.write_text(original)
    (root / "a/src/main/kotlin/App.kt").write_text("fun main() { println() }")
    assert Fingerprint.take(GRADLE.inputs(root)).build_hash() == base, "a source is not a build file"
    assert fingerprint.change() == f"{root / 'a/src/main/kotlin/App.kt'} changed"


def test_a_build_file_touched_without_a_change_is_no_change(tmp_path: Path) -> None:
    write(tmp_path, {"pom.xml": "<project/>", "src/main/kotlin/A.kt": ""})
    fingerprint = Fingerprint.take(MAVEN.inputs(tmp_path))
    later = time.time() + 5
    os.utime(tmp_path / "pom.xml", (later, later))
    assert fingerprint.change() is None


def test_gradle_src_dirs_and_included_builds_outside_the_root_are_inputs(tmp_path: Path) -> None:
    """tests/projects/gradle-multi compiles sources from ../maven-multi: they are the build's inputs too."""
    shutil.copytree(PROJECTS / "maven-multi", tmp_path / "maven-multi")
    project = copy_project(PROJECTS / "gradle-multi", tmp_path / "gradle-multi")
    write(tmp_path, {"conventions/settings.gradle.kts": "", "conventions/src/main/kotlin/C.kt": "object C"})
    settings = project / "settings.gradle.kts"
    settings.write_text(settings.read_text() + '\nincludeBuild("../conventions")\n')
    inputs = GRADLE.inputs(project)
    shared = tmp_path / "maven-multi"
    assert {
        shared / "app/src/main/kotlin",
        shared / "app/src/test/kotlin",
        shared / "core/src/main/kotlin",
        tmp_path / "conventions",
    } <= set(inputs.trees)
    fingerprint = Fingerprint.take(inputs)
    cart = shared / "app/src/main/kotlin/multi/app/Cart.kt"
    cart.write_text(cart.read_text() + "\n")
    assert fingerprint.change() == f"{cart} changed"


def test_gradle_user_home_settings_are_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADLE_USER_HOME", str(tmp_path / "gradle-home"))
    write(tmp_path, {"p/settings.gradle.kts": ""})
    fingerprint = Fingerprint.take(GRADLE.inputs(tmp_path / "p"))
    write(tmp_path, {"gradle-home/gradle.properties": "kotlin.compiler.execution.strategy=in-process"})
    assert fingerprint.change() == f"{tmp_path / 'gradle-home/gradle.properties'} was added"


def test_dangling_links_and_link_cycles_are_walked_safely(tmp_path: Path) -> None:
    write(tmp_path, {"pom.xml": "<project/>", "src/main/kotlin/A.kt": ""})
    (tmp_path / "src/main/kotlin/Gone.kt").symlink_to(tmp_path / "missing.kt")
    (tmp_path / "src/main/kotlin/loop").symlink_to(tmp_path / "src")
    fingerprint = Fingerprint.take(MAVEN.inputs(tmp_path))
    assert str(tmp_path / "src/main/kotlin/A.kt") in fingerprint.stats
    assert fingerprint.change() is None


def test_a_warm_check_with_nothing_changed_does_not_walk_the_project(
    built: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once an entry was found unchanged, the watcher answers for its trees: no stat pass per snippet."""
    project = built.project
    assert resolve_environment(project, build_tool="maven").from_cache
    walks: list[Path] = []
    real_walk = build_inputs.walk_inputs

    def walk(tree: Path) -> Iterator[tuple[Path, os.stat_result]]:
        walks.append(tree)
        return real_walk(tree)

    monkeypatch.setattr(build_inputs, "walk_inputs", walk)
    for _ in range(5):
        assert resolve_environment(project, build_tool="maven").from_cache
    assert walks == []


def test_an_edit_just_before_a_check_is_always_seen(built: Built) -> None:
    """The watcher is exact: an edit made right before the question is part of the answer."""
    project = built.project
    cache = EnvironmentCache()
    entry = cache.get(_cache_key(project, MAVEN, ":", "main"))
    assert entry is not None and stale_reason(entry) is None
    source = project / "src/main/kotlin/sample/Books.kt"
    original = source.read_text()
    for i in range(30):
        source.write_text(original + f"\n// {i}\n")
        assert stale_reason(entry) == f"{source} changed", i
    source.write_text(original)
    os.utime(source, ns=(entry.fingerprint.stats[str(source)][0],) * 2)
    assert stale_reason(entry) is None
    (project / "target/classes/extra.txt").write_text("build output is no input")
    assert stale_reason(entry) is None
