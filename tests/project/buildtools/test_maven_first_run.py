"""A machine's first Maven resolve fetches the effective POM's plugin and the Kotlin REPL's jars beside the build
(maven_first_run.py); every later resolve runs nothing extra."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from gradle_repl.errors import BuildFailed
from gradle_repl.project import toolchain
from gradle_repl.project.buildtools.maven import first_run_jar_requests, reactor_command, repl_jar_requests
from gradle_repl.project.buildtools.maven_first_run import HELP_PLUGIN, FirstRunFetch, first_run_fetch
from gradle_repl.project.buildtools.pom import KotlinSettings, effective_project, kotlin_settings
from gradle_repl.project.dependency_support import dependency_resolver_request
from gradle_repl.project.maven_repository import local_repository
from gradle_repl.project.toolchain import PINNED_KOTLIN_VERSION, Coordinate, ResolvedJars, find_mvn, resolve_jars
from support.paths import SAMPLE_PROJECT

# The first line of `mvn -V`: the build's banner starts the fetch.
BANNER = "Apache Maven 3.8.7"


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
    # Maven's stock settings.xml names a repository inside a comment; a `${property}` is Maven's to expand.
    (tmp_path / ".m2" / "settings.xml").write_text(
        "<settings><!-- <localRepository>/path/to/local/repo</localRepository> --></settings>", encoding="utf-8"
    )
    assert local_repository({}) == tmp_path / ".m2" / "repository"
    (tmp_path / ".m2" / "settings.xml").write_text(
        "<settings><localRepository>${user.home}/repo</localRepository></settings>", encoding="utf-8"
    )
    assert local_repository({}) == tmp_path / ".m2" / "repository"


def test_a_repository_with_the_help_plugin_or_a_fetch_already_started_is_no_first_run(
    tmp_path: Path, own_cache: Path
) -> None:
    repository = tmp_path / "repository"
    environ = {**os.environ, "MAVEN_OPTS": f"-Dmaven.repo.local={repository}"}
    # A Maven that can't even read its POM: the fetch ends quietly (the resolve reports its own errors).
    broken = [find_mvn(), "-B", "-f", str(tmp_path / "no-such-pom.xml")]
    (repository / HELP_PLUGIN).mkdir(parents=True)
    assert first_run_fetch(tmp_path, broken, environ, lambda _: []) is None
    (repository / HELP_PLUGIN).rmdir()
    fetch = first_run_fetch(tmp_path, broken, environ, lambda _: [])
    assert fetch is not None
    fetch.on_line("[INFO] Scanning for projects...")
    assert not (own_cache / "maven-first-run").exists(), "only the build's banner starts the fetch"
    fetch.on_line(BANNER)
    fetch.wait(None)
    assert first_run_fetch(tmp_path, broken, environ, lambda _: []) is None, "a fetch is tried once"
    assert [p.name for p in own_cache.iterdir()] == ["maven-first-run"], "the fetch's work directory was left behind"


def sample_requests(
    seen: list[str], settings_seen: list[KotlinSettings] | None = None
) -> Callable[[Path], list[dict[str, list[Coordinate]]]]:
    """sample-project's REPL jars and @file:DependsOn's resolver as the resolve asks for them, from the effective POM
    the fetch's Maven wrote."""

    def requests(effective: Path) -> list[dict[str, list[Coordinate]]]:
        settings = kotlin_settings(effective_project(effective, SAMPLE_PROJECT), test=False)
        seen.append(settings.version)
        if settings_seen is not None:
            settings_seen.append(settings)
        return first_run_jar_requests(settings)

    return requests


def test_the_fetch_leaves_the_repl_jars_the_resolve_asks_for_in_the_toolchain_cache(own_cache: Path) -> None:
    """Against sample-project and the machine's local repository: what the resolve would fetch after its build is
    there once the fetch is done."""
    seen: list[str] = []
    settings: list[KotlinSettings] = []
    reactor = reactor_command([find_mvn()], SAMPLE_PROJECT, SAMPLE_PROJECT)
    handed: list[tuple[bool, list[ResolvedJars], list[str]]] = []

    def fetched(effective: Path, jars: list[ResolvedJars], banner: list[str]) -> None:
        handed.append((effective.is_file(), jars, banner))

    fetch = FirstRunFetch(SAMPLE_PROJECT, reactor, dict(os.environ), sample_requests(seen, settings), fetched)
    # `mvn -V`'s banner, to the JDK's line: the fetch hands it over with the jars (it names the build's JDK).
    banner = [BANNER, "Maven home: /usr/share/maven", "Java version: 17.0.15, vendor: Debian, runtime: /opt/jdk"]
    for line in [*banner, "Default locale: en_US", "[INFO] Scanning for projects..."]:
        fetch.on_line(line)
    progress: list[str] = []
    fetch.wait(progress.append)
    assert seen == [PINNED_KOTLIN_VERSION]
    assert progress == [
        "waiting for the Kotlin REPL's jars and @file:DependsOn's resolver, fetched beside the build (first run)"
    ]
    classpaths = {path.name: path for path in (own_cache / "toolchain").glob("*/*.classpath")}
    assert set(classpaths) == {
        "host.classpath",
        "kotlin-serialization-compiler-plugin-embeddable.classpath",
        "resolver.classpath",
    }
    host = classpaths["host.classpath"].read_text(encoding="utf-8").split(os.pathsep)
    assert any(Path(jar).name == f"kotlin-scripting-compiler-embeddable-{PINNED_KOTLIN_VERSION}.jar" for jar in host)
    assert all(Path(jar).is_file() for jar in host)
    resolver = classpaths["resolver.classpath"].read_text(encoding="utf-8").split(os.pathsep)
    assert any(Path(jar).name == f"kotlin-scripting-dependencies-maven-{PINNED_KOTLIN_VERSION}.jar" for jar in resolver)
    # Handed over once, with the effective POM still there, each request's jars in order, and the banner.
    assert [(pom, [sorted(group.by_request) for group in jars], lines) for pom, jars, lines in handed] == [
        (True, [["host", "kotlin-serialization-compiler-plugin-embeddable"], ["resolver"]], banner)
    ]
    assert handed[0][1][0].by_request["host"] == host and handed[0][1][1].by_request["resolver"] == resolver

    # The resolve's own requests after its build (maven.py's, then add_dependency_resolver's) come from this cache.
    def maven_again(command: list[str], **_: object) -> None:
        raise AssertionError(f"a request the fetch made ran Maven again: {command}")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(toolchain, "run_streaming", maven_again)
        assert resolve_jars(repl_jar_requests(settings[0])).by_request["host"] == host
        assert resolve_jars(dependency_resolver_request(PINNED_KOTLIN_VERSION)).by_request["resolver"] == resolver
    assert not list(own_cache.glob("first-run-*")), "the fetch's work directory was left behind"


def test_a_fetch_whose_build_failed_asks_for_no_jars(own_cache: Path) -> None:
    seen: list[str] = []
    reactor = reactor_command([find_mvn()], SAMPLE_PROJECT, SAMPLE_PROJECT)
    fetch = FirstRunFetch(SAMPLE_PROJECT, reactor, dict(os.environ), sample_requests(seen))
    fetch.cancel()  # before its Maven run ends, as a build that failed cancels it: here, before it starts
    fetch.on_line(BANNER)
    fetch.wait(None)
    assert seen == [] and not (own_cache / "toolchain").exists()


def test_a_repl_jar_group_that_cant_resolve_fails_the_call_with_mavens_reason(own_cache: Path) -> None:
    missing = Coordinate("org.jetbrains.kotlin", "no-such-gradle-repl-artifact", "0.0.1", transitive=False)
    stdlib = Coordinate("org.jetbrains.kotlin", "kotlin-stdlib", PINNED_KOTLIN_VERSION, transitive=False)
    with pytest.raises(BuildFailed, match="no-such-gradle-repl-artifact"):
        resolve_jars({"stdlib": [stdlib], "missing": [missing]})
    jars = resolve_jars({"stdlib": [stdlib]})
    assert [Path(jar).name for jar in jars.by_request["stdlib"]] == [f"kotlin-stdlib-{PINNED_KOTLIN_VERSION}.jar"]
