"""A machine's first Maven resolve fetches the effective POM's plugin and the Kotlin REPL's jars beside the build
(maven_first_run.py); every later resolve runs nothing extra."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import SAMPLE_PROJECT
from gradle_repl.project.buildtools.maven import reactor_command, repl_jar_requests
from gradle_repl.project.buildtools.maven_first_run import (
    is_first_maven_run,
    local_repository,
    start_first_run_fetch,
)
from gradle_repl.project.buildtools.pom import effective_project, kotlin_settings
from gradle_repl.project.toolchain import PINNED_KOTLIN_VERSION, Coordinate, find_mvn

HELP_PLUGIN = Path("org/apache/maven/plugins/maven-help-plugin")


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of the test's own: the run's holds the first-run mark of the run's own resolves."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(cache))
    return cache


def test_the_local_repository_is_maven_repo_local_then_the_user_settings_then_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert local_repository({}) == tmp_path / ".m2" / "repository"
    (tmp_path / ".m2").mkdir()
    (tmp_path / ".m2" / "settings.xml").write_text(
        "<settings><localRepository>\n  /srv/m2\n</localRepository></settings>", encoding="utf-8"
    )
    assert local_repository({}) == Path("/srv/m2")
    assert local_repository({"MAVEN_OPTS": "-Xmx1g -Dmaven.repo.local=/opt/repo"}) == Path("/opt/repo")
    both = {"MAVEN_OPTS": "-Dmaven.repo.local=/opt/repo", "MAVEN_ARGS": "-Dmaven.repo.local=/ci/repo -o"}
    assert local_repository(both) == Path("/ci/repo")


def test_a_repository_with_the_help_plugin_or_a_fetch_already_started_is_no_first_run(
    tmp_path: Path, own_cache: Path
) -> None:
    repository = tmp_path / "repository"
    environ = {"MAVEN_OPTS": f"-Dmaven.repo.local={repository}"}
    assert is_first_maven_run(environ)
    (repository / HELP_PLUGIN).mkdir(parents=True)
    assert not is_first_maven_run(environ)
    (repository / HELP_PLUGIN).rmdir()
    # A Maven that can't even read its POM: the fetch ends quietly (the resolve reports its own errors) and is not
    # tried again.
    broken = [find_mvn(), "-B", "-f", str(tmp_path / "no-such-pom.xml")]
    start_first_run_fetch(tmp_path, broken, {**os.environ, **environ}, lambda _: {}).wait()
    assert not is_first_maven_run(environ)
    assert [p.name for p in own_cache.iterdir()] == ["maven-first-run"], "the fetch's work directory was left behind"


def test_the_fetch_leaves_the_repl_jars_the_resolve_asks_for_in_the_toolchain_cache(own_cache: Path) -> None:
    """Against sample-project and the machine's local repository: what the resolve would fetch after its build is
    there once the fetch is done, read from the effective POM the fetch's own Maven run wrote."""
    mvn = [find_mvn()]
    seen: list[str] = []

    def requests(effective: Path) -> dict[str, list[Coordinate]]:
        settings = kotlin_settings(effective_project(effective, SAMPLE_PROJECT), test=False)
        seen.append(settings.version)
        return repl_jar_requests(settings)

    start_first_run_fetch(
        SAMPLE_PROJECT, reactor_command(mvn, SAMPLE_PROJECT, SAMPLE_PROJECT), dict(os.environ), requests
    ).wait()
    assert seen == [PINNED_KOTLIN_VERSION]
    classpaths = {path.name: path for path in (own_cache / "toolchain").glob("*/*.classpath")}
    assert set(classpaths) == {"host.classpath", "kotlin-serialization-compiler-plugin-embeddable.classpath"}
    host = classpaths["host.classpath"].read_text(encoding="utf-8").split(os.pathsep)
    assert any(Path(jar).name == f"kotlin-scripting-compiler-embeddable-{PINNED_KOTLIN_VERSION}.jar" for jar in host)
    assert all(Path(jar).is_file() for jar in host)
    assert not list(own_cache.glob("first-run-*")), "the fetch's work directory was left behind"
