"""The test toolchain fetcher returns the pinned Kotlin's jars, and the pin is the same everywhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gradle_repl.project.toolchain import PINNED_KOTLIN_VERSION
from support.paths import PROJECTS, REPO, SAMPLE_PROJECT
from support.testtoolchain import fetch_test_toolchain


def test_fetcher_returns_existing_jars_at_the_pinned_version() -> None:
    toolchain = fetch_test_toolchain()
    names = [Path(jar).name for jar in toolchain.repl_host]
    for artifact in (
        "kotlin-scripting-compiler-embeddable",
        "kotlin-compiler-embeddable",
        "kotlin-scripting-jvm",
        "kotlin-stdlib",
    ):
        assert f"{artifact}-{PINNED_KOTLIN_VERSION}.jar" in names, artifact
    assert (
        Path(toolchain.serialization_plugin).name
        == f"kotlin-serialization-compiler-plugin-embeddable-{PINNED_KOTLIN_VERSION}.jar"
    )
    assert any(Path(j).name.startswith("kotlinx-serialization-json-jvm-") for j in toolchain.serialization_runtime)
    assert all(
        Path(jar).is_file()
        for jar in [*toolchain.repl_host, toolchain.serialization_plugin, *toolchain.serialization_runtime]
    )


def test_second_fetch_comes_from_the_cache_without_maven(monkeypatch: pytest.MonkeyPatch) -> None:
    fetch_test_toolchain()
    monkeypatch.setenv("PATH", "/nonexistent")
    assert fetch_test_toolchain().kotlin_version == PINNED_KOTLIN_VERSION


def test_every_build_file_states_the_pinned_kotlin_version() -> None:
    """The version lives in one place in Python; the build files that must repeat it agree with it."""
    files = [
        SAMPLE_PROJECT / "pom.xml",
        SAMPLE_PROJECT / "build.gradle.kts",
        PROJECTS / "maven-multi/pom.xml",
        PROJECTS / "gradle-multi/build.gradle.kts",
    ]
    for path in files:
        versions = set(re.findall(r'(?:kotlin\.version>|version ")(\d+\.\d+\.\d+)', path.read_text()))
        assert versions == {PINNED_KOTLIN_VERSION}, f"{path}: {versions}"


def test_projects_older_than_the_k2_repl_get_the_pinned_repl_and_a_warning() -> None:
    from gradle_repl.project.toolchain import repl_kotlin_version

    assert repl_kotlin_version("2.2.21") == ("2.2.21", None)
    assert repl_kotlin_version("2.2.0-RC") == ("2.2.0-RC", None)
    assert repl_kotlin_version("2.1.20")[0] == PINNED_KOTLIN_VERSION  # 2.1's K2 REPL is not usable
    version, warning = repl_kotlin_version("1.9.24")
    assert version == PINNED_KOTLIN_VERSION and warning and "no K2 REPL" in warning and "compiler plugins" in warning


def test_the_init_script_holds_no_kotlin_version_policy_of_its_own() -> None:
    """The pinned and minimum Kotlin and the REPL host artifacts reach the init script as properties, from Python."""
    from gradle_repl.project.toolchain import MINIMUM_REPL_KOTLIN, REPL_HOST_ARTIFACTS, kotlin_policy_properties

    script = (REPO / "resources/repl-env.init.gradle.kts").read_text()
    assert PINNED_KOTLIN_VERSION not in script and "listOf(2, 2" not in script
    assert not any(f'"{artifact}"' in script for artifact in REPL_HOST_ARTIFACTS)
    properties = kotlin_policy_properties()
    assert properties["gradle-repl.minimumKotlinVersion"] == ".".join(map(str, MINIMUM_REPL_KOTLIN))
    assert all(f'replPolicy("{name.removeprefix("gradle-repl.")}")' in script for name in properties)
