"""Runs a project's Gradle with the shipped init script and parses the environment it reports."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..environment import ReplEnvironment, new_nonce, parse_markers
from ..errors import BuildFailed, BuildToolNotFound
from ..process import ProgressCallback, join_capped, run_streaming
from ..resources import init_script_path
from .base import BuildToolName

__all__ = ["GRADLE", "GradleBuild", "find_gradle", "gradle_command", "resolve_gradle_environment", "GRADLE_TIMEOUT_SECONDS"]

# A cold Gradle start downloads a distribution and compiles build scripts; past this it's stuck.
GRADLE_TIMEOUT_SECONDS = 900.0
_GRADLE_FILES = ("settings.gradle.kts", "settings.gradle", "build.gradle.kts", "build.gradle")
_ERROR_LINES = 40
_INPUT_NAMES = {"gradle.properties", "gradle-wrapper.properties"}
_INPUT_SUFFIXES = (".gradle", ".gradle.kts", ".versions.toml")
_SOURCE_SUFFIXES = (".kt", ".java", ".kts")


class GradleBuild:
    name: BuildToolName = "gradle"
    build_files = "settings.gradle(.kts), build.gradle(.kts)"

    def detect(self, root: Path) -> bool:
        return any((root / name).is_file() for name in _GRADLE_FILES)

    def check_runnable(self, root: Path) -> None:
        find_gradle(root)

    def is_build_input(self, path: Path, root: Path) -> bool:
        name = path.name
        relative = path.relative_to(root).parts
        # buildSrc is a build of its own: all of its sources shape the build.
        in_build_src = "buildSrc" in relative or "build-logic" in relative
        return name in _INPUT_NAMES or name.endswith(_INPUT_SUFFIXES) or (in_build_src and name.endswith(_SOURCE_SUFFIXES))

    def resolve(
        self, root: Path, *, project_path: str, source_set: str, on_progress: ProgressCallback | None = None
    ) -> ReplEnvironment:
        return resolve_gradle_environment(root, project_path=project_path, source_set=source_set, on_progress=on_progress)


GRADLE = GradleBuild()


def find_gradle(project_root: Path) -> str:
    """The wrapper in project_root or a parent directory, else `gradle` on PATH."""
    wrapper_name = "gradlew.bat" if os.name == "nt" else "gradlew"
    for directory in (project_root, *project_root.parents):
        wrapper = directory / wrapper_name
        if wrapper.is_file():
            return str(wrapper)
    found = shutil.which("gradle")
    if found:
        return found
    raise BuildToolNotFound(
        f"no Gradle wrapper (gradlew) in {project_root} or above, and no `gradle` on PATH; "
        "add a wrapper (`gradle wrapper`) or install Gradle 7.6+ (https://gradle.org/install)"
    )


def gradle_command(gradle: str, project_path: str, source_set: str, nonce: str) -> list[str]:
    task = "resolveReplEnvironment" if project_path in ("", ":") else f"{project_path.rstrip(':')}:resolveReplEnvironment"
    if not task.startswith(":"):
        task = f":{task}"
    return [
        gradle,
        "--init-script",
        str(init_script_path()),
        "--console=plain",
        # The task reads the project model at execution time, which the configuration cache forbids;
        # it is a one-off query, so the build's own setting is overridden for this run only.
        "--no-configuration-cache",
        f"-Pgradle-repl.sourceSet={source_set}",
        f"-Pgradle-repl.nonce={nonce}",
        task,
    ]


def resolve_gradle_environment(
    project_root: Path, *, project_path: str, source_set: str, on_progress: ProgressCallback | None = None
) -> ReplEnvironment:
    root = project_root.resolve()
    nonce = new_nonce()
    command = gradle_command(find_gradle(root), project_path, source_set, nonce)
    outcome = run_streaming(command, cwd=root, timeout_seconds=GRADLE_TIMEOUT_SECONDS, on_line=on_progress)
    if outcome.timed_out:
        raise BuildFailed(f"Gradle did not finish within {GRADLE_TIMEOUT_SECONDS:g} s")
    if outcome.returncode != 0:
        raise BuildFailed("Gradle build failed:\n" + gradle_errors(outcome.lines))
    return parse_markers(
        outcome.lines, nonce=nonce, build_tool="gradle", project_root=str(root), project_path=project_path, source_set=source_set
    )


def gradle_errors(lines: list[str]) -> str:
    """Gradle's own failure text: from 'FAILURE:' (or '* What went wrong:') up to '* Try:'."""
    start = next((i for i, line in enumerate(lines) if line.startswith(("FAILURE:", "* What went wrong:"))), None)
    if start is None:
        relevant = [line for line in lines if line.strip()][-_ERROR_LINES:]
    else:
        end = next((i for i in range(start, len(lines)) if lines[i].startswith(("* Try:", "* Get more help"))), len(lines))
        relevant = [line for line in lines[start:end] if line.strip()]
    return join_capped(relevant, _ERROR_LINES)
