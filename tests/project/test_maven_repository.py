"""Maven's local repository (project/maven_repository.py): the empty downloads a Maven run names, and a toolchain
resolve that finds one in its way removes it and fetches it again, with real Maven."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from gradle_repl.environment import ReplEnvironment
from gradle_repl.project.buildtools.maven import resolve_maven_environment
from gradle_repl.project.buildtools.maven_first_run import HELP_PLUGIN
from gradle_repl.project.dependency_support import dependency_resolver_request
from gradle_repl.project.maven_repository import empty_downloads, local_repository
from gradle_repl.project.toolchain import PINNED_KOTLIN_VERSION, Coordinate, resolve_jars
from kotlindaemons import daemons_apart
from support.paths import SAMPLE_PROJECT, copy_project

# What Maven 3.8 printed on a new machine after two of gradle-repl's Maven runs fetched one POM at once.
_NON_READABLE = (
    "[ERROR] [FATAL] Non-readable POM {path}: input contained no data @ {path}",
    "[ERROR] Plugin org.apache.maven.plugins:maven-dependency-plugin:2.8 or one of its dependencies could not be resolved",
)


def test_the_empty_poms_and_jars_an_error_names_inside_the_repository_are_found(tmp_path: Path) -> None:
    repository = tmp_path / "repository"
    empty = repository / "org/apache/maven/maven-parent/23/maven-parent-23.pom"
    whole = repository / "org/apache/apache/13/apache-13.pom"
    empty_jar = repository / "org/x/x/1/x-1.jar"
    outside = tmp_path / "project/lib/empty.jar"
    for path in (empty, whole, empty_jar, outside):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"" if path != whole else b"<project/>")
    lines = [
        *(line.format(path=empty) for line in _NON_READABLE),
        f"[ERROR] Failed to read artifact descriptor: {whole}: ParseError",
        f"[ERROR] error in opening zip file {empty_jar}",
        f"[ERROR] error in opening zip file {outside}",
        f"[ERROR] Could not read file:{empty_jar} (read twice: named once)",
        f"[ERROR] {repository}/org/gone/1/gone-1.pom: no such file",
        "[WARNING] The POM for org.jetbrains.kotlin:kotlin-stdlib:jar:2.3.21 is invalid, transitive dependencies (if any)",
        "[WARNING] The POM for org.whole:whole:jar:sources:1.0 is invalid, transitive dependencies (if any) will not be",
    ]
    stdlib = repository / "org/jetbrains/kotlin/kotlin-stdlib/2.3.21/kotlin-stdlib-2.3.21.pom"
    stdlib.parent.mkdir(parents=True)
    stdlib.write_bytes(b"")
    whole_by_coordinates = repository / "org/whole/whole/1.0/whole-1.0.pom"
    whole_by_coordinates.parent.mkdir(parents=True)
    whole_by_coordinates.write_bytes(b"<project/>")
    assert empty_downloads(lines, repository) == [empty, empty_jar, stdlib]


# Files Maven's resolver rewrites in place (its TrackingFileManager): each is copied, so a write through a link
# never reaches the machine's repository. Downloads (POMs, jars, checksums) are only ever replaced whole.
_REWRITTEN_IN_PLACE = ("_remote.repositories", "resolver-status.properties")


def test_a_repository_whose_path_holds_a_space_has_its_empty_downloads_found(tmp_path: Path) -> None:
    repository = tmp_path / "Jane Doe" / ".m2" / "repository"
    empty = repository / "org/apache/apache/13/apache-13.pom"
    empty.parent.mkdir(parents=True)
    empty.write_bytes(b"")
    assert empty_downloads([_NON_READABLE[0].format(path=empty)], repository) == [empty]


def _repository_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, first_run: bool = False) -> tuple[Path, Path]:
    """The machine's local repository and a copy of it that Maven then uses, with a cache of the test's own (one that
    has had its first Maven run: no fetch beside a build; with first_run, one that has not, and a copy without what
    a first run's fetch is the first to use, the help plugin). Downloads are linked — hard links where the two share a file
    system, else symbolic ones — and a file the test empties is unlinked first, so the machine's own stays whole; a
    file that goes while it is copied (the run's prefetch writes there) is left out."""
    source = local_repository(os.environ).resolve()
    copy = tmp_path / "repository"
    for directory, _, files in os.walk(source):
        target = copy / Path(directory).relative_to(source)
        target.mkdir(parents=True, exist_ok=True)
        for name in files:
            original = Path(directory) / name
            try:
                if name in _REWRITTEN_IN_PLACE or name.endswith(".lastUpdated"):
                    shutil.copyfile(original, target / name)
                    continue
                try:
                    os.link(original, target / name)
                except OSError:
                    (target / name).symlink_to(original)
            except FileNotFoundError:
                continue
    monkeypatch.setenv(
        "MAVEN_OPTS", f"{_without_repository(os.environ.get('MAVEN_OPTS', ''))} -Dmaven.repo.local={copy}"
    )
    # The run's warm daemon was started from the machine's repository; one from this copy's jars would be one more.
    daemons_apart(monkeypatch, tmp_path / "daemons")
    monkeypatch.setenv("MAVEN_ARGS", _without_repository(os.environ.get("MAVEN_ARGS", "")))
    cache = tmp_path / "cache"
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(cache))
    cache.mkdir()
    if first_run:
        shutil.rmtree(copy / HELP_PLUGIN, ignore_errors=True)
    else:
        (cache / "maven-first-run").touch()
    return source, copy


def _without_repository(options: str) -> str:
    return re.sub(r"-Dmaven\.repo\.local=\S+", "", options)


def _empty(files: list[Path]) -> None:
    for path in files:
        path.unlink()  # the link only: the machine's own file stays whole
        path.write_bytes(b"")


def test_a_toolchain_resolve_that_meets_an_empty_download_fetches_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dependency plugin's POMs empty, as a concurrent fetch leaves them: Maven alone fails on it; resolve_jars
    removes the one it names, says so, and resolves."""
    source, copy = _repository_copy(tmp_path, monkeypatch)
    request = {"annotations": [Coordinate("org.jetbrains", "annotations", "13.0")]}
    resolve_jars(request)  # whatever the copy lacks for it (on a machine that never ran the plugin) is fetched here
    poms = sorted(copy.glob("org/apache/maven/plugins/maven-dependency-plugin/*/maven-dependency-plugin-*.pom"))
    assert poms, "the resolve ran maven-dependency-plugin, so its POM is in the local repository"
    _empty(poms)
    shutil.rmtree(tmp_path / "cache" / "toolchain")

    progress: list[str] = []
    jars = resolve_jars(request, on_progress=progress.append).by_request["annotations"]

    assert [Path(jar).name for jar in jars] == ["annotations-13.0.jar"]
    removed = [line for line in progress if line.startswith("removed ") and "empty download" in line]
    assert len(removed) == 1, progress
    # The POM of the plugin version this Maven runs was named, removed and fetched whole; another version's stays.
    fetched_again = [pom for pom in poms if pom.stat().st_size > 0]
    assert fetched_again and removed[0].startswith(f"removed {len(fetched_again)} "), (removed, fetched_again)
    assert all(pom.name in removed[0] for pom in fetched_again), removed
    assert all((source / pom.relative_to(copy)).stat().st_size > 0 for pom in poms)


def test_a_build_that_meets_an_empty_download_fetches_it_again_and_resolves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project's own dependency's POM empty (kotlin-stdlib's, at sample-project's Kotlin): the resolve's build
    removes it, says so, builds again and reads the environment."""
    _, copy = _repository_copy(tmp_path, monkeypatch)
    stdlib = (
        copy / f"org/jetbrains/kotlin/kotlin-stdlib/{PINNED_KOTLIN_VERSION}/kotlin-stdlib-{PINNED_KOTLIN_VERSION}.pom"
    )
    if not stdlib.is_file():  # a machine whose repository never held it fetches it now, whole
        resolve_jars({"stdlib": [Coordinate("org.jetbrains.kotlin", "kotlin-stdlib", PINNED_KOTLIN_VERSION)]})
    _empty([stdlib])
    project = copy_project(SAMPLE_PROJECT, tmp_path / "sample")

    progress: list[str] = []
    environment = resolve_maven_environment(project, project_path=":", source_set="main", on_progress=progress.append)

    assert any(Path(jar).name == f"kotlin-stdlib-{PINNED_KOTLIN_VERSION}.jar" for jar in environment.classpath)
    assert [line for line in progress if line.startswith("removed 1 empty download(s)") and stdlib.name in line]
    assert stdlib.stat().st_size > 0


def test_a_toolchain_resolve_whose_dependency_has_an_empty_pom_fetches_it_and_gets_the_dependencies_it_brings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kotlin-stdlib's POM empty: a quiet Maven run prints nothing about it and builds a classpath without
    org.jetbrains:annotations (what that POM brings); resolve_jars sees the empty POM beside the jar, removes it and
    resolves again, with annotations."""
    _, copy = _repository_copy(tmp_path, monkeypatch)
    request = {"stdlib": [Coordinate("org.jetbrains.kotlin", "kotlin-stdlib", PINNED_KOTLIN_VERSION)]}
    stdlib = (
        copy / f"org/jetbrains/kotlin/kotlin-stdlib/{PINNED_KOTLIN_VERSION}/kotlin-stdlib-{PINNED_KOTLIN_VERSION}.pom"
    )
    if not stdlib.is_file():  # a machine whose repository never held it fetches it now, whole
        resolve_jars(request)
        shutil.rmtree(tmp_path / "cache" / "toolchain")
    _empty([stdlib])

    progress: list[str] = []
    jars = resolve_jars(request, on_progress=progress.append).by_request["stdlib"]

    assert sorted(Path(jar).name for jar in jars) == [
        "annotations-13.0.jar",
        f"kotlin-stdlib-{PINNED_KOTLIN_VERSION}.jar",
    ]
    assert [line for line in progress if line.startswith("removed 1 empty download(s)") and stdlib.name in line]
    assert stdlib.stat().st_size > 0


def test_a_first_resolve_hands_the_repl_jars_over_before_it_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine's first resolve fetches the REPL's jars beside its build and hands them over as they are in
    (environment.ReplJarsReady), for the host to compile the facade meanwhile: the JDK, the REPL's Kotlin and the same
    jars the environment it returns names."""
    _repository_copy(tmp_path, monkeypatch, first_run=True)
    project = copy_project(SAMPLE_PROJECT, tmp_path / "sample")
    handed: list[ReplEnvironment] = []

    environment = resolve_maven_environment(project, project_path=":", source_set="main", on_repl_jars=handed.append)

    assert len(handed) == 1, "the jars are handed over once"
    assert handed[0].model_dump(exclude_defaults=True) == {
        "build_tool": "maven",
        "project_root": str(project.resolve()),
        "java_home": environment.java_home,
        "java_executable": environment.java_executable,
        "kotlin_version": environment.kotlin_version,
        "repl_host_classpath": environment.repl_host_classpath,
        "compiler_plugin_classpath": environment.compiler_plugin_classpath,
        # What the resolve asks for after its build (resolve.py's add_dependency_resolver): found in the cache by now.
        "dependency_resolver_classpath": resolve_jars(
            dependency_resolver_request(environment.kotlin_version)
        ).by_request["resolver"],
    }
    assert any(
        Path(jar).name == f"kotlin-scripting-dependencies-maven-{PINNED_KOTLIN_VERSION}.jar"
        for jar in handed[0].dependency_resolver_classpath
    )
    assert any("serialization" in Path(jar).name for jar in handed[0].compiler_plugin_classpath)
