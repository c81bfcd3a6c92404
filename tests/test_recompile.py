"""After an edit to sources alone, only the compile runs again and the cached environment is kept
(project/recompile.py); any change to the build, a missing artifact or a failed compile resolves as before."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from gradle_repl.environment import ReplEnvironment
from gradle_repl.errors import BuildFailed
from gradle_repl.project.buildtools.maven import is_compile_failure, recompile_command
from gradle_repl.project.cache import EnvironmentCache
from gradle_repl.project.resolve import _resolve_locked
from test_compiler_args import _ScriptedTool


class _CountingTool(_ScriptedTool):
    """A build tool that records which of its builds ran: the full resolve or the compile alone."""

    name = "maven"

    def __init__(self, *, compiles: bool = True) -> None:
        self.calls: list[str] = []
        self.compiles = compiles

    def recompile(self, root: Path, *, project_path: str, source_set: str, on_progress=None) -> bool:
        self.calls.append("compile")
        return self.compiles

    def resolve(self, root: Path, *, project_path: str, source_set: str, on_progress=None) -> ReplEnvironment:
        self.calls.append("resolve")
        java = Path(sys.executable)
        return ReplEnvironment(
            build_tool="maven", project_root=str(root), java_executable=str(java), java_home=str(java.parent), kotlin_version="2.3.21",
        )


def _touch(path: Path, text: str) -> None:
    path.write_text(text)
    later = time.time() + 5
    os.utime(path, (later, later))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    (root / "build.txt").write_text("build")
    (root / "Source.kt").write_text("fun f() = 1")
    return root


def _resolve(root: Path, tool: _CountingTool, cache: EnvironmentCache) -> ReplEnvironment:
    return _resolve_locked(root, tool, ":", "main", False, None, cache, 0.0).environment  # type: ignore[arg-type]


def test_a_source_edit_compiles_only_and_keeps_the_environment_with_a_new_stamp(project: Path, tmp_path: Path):
    """The second resolve compiles without resolving; the environment is the first's but for the sources stamp, and
    the next question, with nothing changed, is a cache hit."""
    tool, cache = _CountingTool(), EnvironmentCache(tmp_path / "cache")
    first = _resolve(project, tool, cache)
    _touch(project / "Source.kt", "fun f() = 2")
    second = _resolve(project, tool, cache)
    assert tool.calls == ["resolve", "compile"]
    assert second.sources_stamp > first.sources_stamp
    assert second.model_copy(update={"sources_stamp": 0.0}) == first.model_copy(update={"sources_stamp": 0.0})
    assert _resolve(project, tool, cache) == second and tool.calls == ["resolve", "compile"]


@pytest.mark.parametrize("change", ["edited", "added", "removed"])
def test_a_change_to_the_build_resolves_in_full(project: Path, tmp_path: Path, change: str):
    """A build file edited (content, not time), another one added, or one removed: the environment may differ."""
    tool, cache = _CountingTool(), EnvironmentCache(tmp_path / "cache")
    _resolve(project, tool, cache)
    if change == "edited":
        _touch(project / "build.txt", "another build")
    elif change == "added":
        (project / "sub").mkdir()
        _touch(project / "sub" / "build.txt", "a module")
    else:
        (project / "build.txt").unlink()
        _touch(project / "Source.kt", "fun f() = 3")
    _resolve(project, tool, cache)
    assert tool.calls == ["resolve", "resolve"]


def test_a_build_file_touched_without_a_change_still_compiles_only(project: Path, tmp_path: Path):
    """Build files count by content: saved again unchanged, with a source edited, only the compile runs."""
    tool, cache = _CountingTool(), EnvironmentCache(tmp_path / "cache")
    _resolve(project, tool, cache)
    _touch(project / "build.txt", "build")
    _touch(project / "Source.kt", "fun f() = 4")
    _resolve(project, tool, cache)
    assert tool.calls == ["resolve", "compile"]


def test_a_compile_that_fails_for_another_reason_resolves_in_full(project: Path, tmp_path: Path):
    """A compile that fails other than on the sources (offline Maven missing an artifact) is not trusted: the full
    resolve runs and reports what it finds the usual way."""
    tool, cache = _CountingTool(compiles=False), EnvironmentCache(tmp_path / "cache")
    _resolve(project, tool, cache)
    _touch(project / "Source.kt", "fun f() = ")
    _resolve(project, tool, cache)
    assert tool.calls == ["resolve", "compile", "resolve"]


def test_maven_compiles_offline_with_the_resolves_own_flags(tmp_path: Path):
    """The compile alone is the resolve's compile (same module selection, no daemon, whole-module compile), offline,
    without the classpath and effective-POM goals."""
    command = recompile_command(["mvn"], tmp_path, tmp_path / "app", test=False)
    assert command[:2] == ["mvn", "-B"] and "-o" in command and "compile" in command
    assert ["-pl", "app", "-am"] == command[command.index("-pl") : command.index("-pl") + 3]
    assert "-Dkotlin.compiler.daemon=false" in command and "-Dkotlin.compiler.incremental=false" in command
    assert not any(goal in command for goal in ("dependency:build-classpath", "help:effective-pom"))


# What kotlin-maven-plugin 2.3.21 printed for a source that doesn't compile (mvn -B compile -o), and what offline
# Maven prints when an artifact is missing.
_COMPILE_ERROR = [
    "[ERROR] file:///p/src/main/kotlin/sample/Broken.kt:2:21 Return type mismatch: expected 'Int', actual 'String'.",
    "[ERROR] Failed to execute goal org.jetbrains.kotlin:kotlin-maven-plugin:2.3.21:compile (compile) on project "
    "sample-project: Compilation failure",
    "[ERROR] -> [Help 1]",
]
_OFFLINE = [
    "[ERROR] Failed to execute goal on project sample-project: Could not resolve dependencies for project "
    "org.example:sample-project:jar:1.0: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode",
]


def test_a_compile_error_is_told_from_an_artifact_missing_offline():
    """Sources that don't compile fail the full build the same way (reported at once); an artifact offline Maven
    lacks is not a compile failure (the full, online resolve runs)."""
    assert is_compile_failure(_COMPILE_ERROR) and not is_compile_failure(_OFFLINE)


class _FailingCompile(_CountingTool):
    def recompile(self, root: Path, *, project_path: str, source_set: str, on_progress=None) -> bool:
        self.calls.append("compile")
        raise BuildFailed("Maven build failed:\nReturn type mismatch", started=True)


def test_sources_that_dont_compile_are_reported_after_one_build(project: Path, tmp_path: Path):
    """An edit with a compile error costs one build, not the compile and then a full resolve failing the same way."""
    tool, cache = _FailingCompile(), EnvironmentCache(tmp_path / "cache")
    _resolve(project, tool, cache)
    _touch(project / "Source.kt", "fun f(): Int = \"x\"")
    with pytest.raises(BuildFailed, match="Return type mismatch"):
        _resolve(project, tool, cache)
    assert tool.calls == ["resolve", "compile"]
