"""Resolved environments are cached on disk and invalidated by any build input or newer source."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from conftest import SAMPLE_PROJECT, copy_project
from gradle_repl.build_inputs import hash_build_inputs
from gradle_repl.buildtools.gradle import GRADLE
from gradle_repl.errors import BuildToolNotFound
from gradle_repl.resolve import resolve_environment


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(SAMPLE_PROJECT, tmp_path / "sample")


@pytest.fixture
def no_build_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """PATH without mvn or gradle: any attempt to run a build tool fails loudly."""
    monkeypatch.setenv("PATH", "/nonexistent")


def test_a_hit_does_not_run_the_build_tool(project: Path, monkeypatch: pytest.MonkeyPatch):
    first = resolve_environment(project, build_tool="maven")
    assert not first.from_cache
    monkeypatch.setenv("PATH", "/nonexistent")
    second = resolve_environment(project, build_tool="maven")
    assert second.from_cache and second.environment == first.environment


def test_touching_a_build_file_invalidates(project: Path, monkeypatch: pytest.MonkeyPatch):
    resolve_environment(project, build_tool="maven")
    pom = project / "pom.xml"
    pom.write_text(pom.read_text().replace("<version>1.0</version>", "<version>1.1</version>", 1))
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(BuildToolNotFound):
        resolve_environment(project, build_tool="maven")


def test_a_newer_source_file_invalidates(project: Path, monkeypatch: pytest.MonkeyPatch):
    """Snippets must see the project's latest code, so a changed source means a new build."""
    resolve_environment(project, build_tool="maven")
    source = project / "src/main/kotlin/sample/Books.kt"
    later = time.time() + 5
    os.utime(source, (later, later))
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(BuildToolNotFound):
        resolve_environment(project, build_tool="maven")


def test_refresh_bypasses_the_cache(project: Path):
    resolve_environment(project, build_tool="maven")
    assert not resolve_environment(project, build_tool="maven", refresh=True).from_cache


def test_gradle_inputs_cover_catalogs_wrapper_buildsrc_and_nested_scripts(tmp_path: Path):
    root = tmp_path / "g"
    files = {
        "settings.gradle.kts": 'include("a")',
        "a/build.gradle.kts": "",
        "gradle/libs.versions.toml": '[versions]\nkotlin = "2.3.21"\n',
        "gradle/wrapper/gradle-wrapper.properties": "distributionUrl=x",
        "gradle.properties": "org.gradle.configuration-cache=true",
        "buildSrc/src/main/kotlin/Conventions.kt": "object C",
        "build/generated.gradle.kts": "",
        "src/main/kotlin/App.kt": "fun main() {}",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    base = hash_build_inputs(root, GRADLE)
    for name in ("gradle/libs.versions.toml", "gradle/wrapper/gradle-wrapper.properties", "gradle.properties",
                 "buildSrc/src/main/kotlin/Conventions.kt", "a/build.gradle.kts", "settings.gradle.kts"):
        path = root / name
        original = path.read_text()
        path.write_text(original + "\n// changed")
        assert hash_build_inputs(root, GRADLE) != base, name
        path.write_text(original)
    for name in ("build/generated.gradle.kts", "src/main/kotlin/App.kt"):
        (root / name).write_text("changed")
        assert hash_build_inputs(root, GRADLE) == base, f"{name} is not a build input"
