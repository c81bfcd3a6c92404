"""Runs a project's Gradle with the shipped init script and parses the environment it reports."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from functools import cache
from pathlib import Path

from gradle_repl.environment import ReplEnvironment, ReplJarsReady, new_nonce, parse_markers
from gradle_repl.errors import BuildFailed, BuildToolNotFound
from gradle_repl.project.build_inputs import Inputs, walk_inputs
from gradle_repl.project.buildtools.base import BuildToolName, wrapper_command
from gradle_repl.project.process import ProgressCallback, failure_text, run_streaming
from gradle_repl.project.toolchain import kotlin_policy_properties
from gradle_repl.resources import init_script_path

__all__ = [
    "GRADLE",
    "GradleBuild",
    "build_root",
    "find_gradle",
    "gradle_command",
    "resolve_gradle_environment",
    "GRADLE_TIMEOUT_SECONDS",
]

# A cold Gradle start downloads a distribution and compiles build scripts; past this it's stuck.
GRADLE_TIMEOUT_SECONDS = 900.0
_SETTINGS_FILES = ("settings.gradle.kts", "settings.gradle")
_GRADLE_FILES = (*_SETTINGS_FILES, "build.gradle.kts", "build.gradle")
# kotlinc's `e: file:///…:1:5 …` and javac's `…/A.java:3: error: …`, printed in a task's output before FAILURE.
_COMPILER_ERROR = re.compile(r"^e: |^\S.*:\d+: error: ")
# A failure's own text runs from "* What went wrong:" to the next section ("* Try:" hints, a stack trace, help).
_FAILURE_START = "* What went wrong:"
_FAILURE_END = ("* Try:", "* Exception is:", "* Get more help")
# Headings and separators around the failures, and the closing line: none of them names a cause.
_GRADLE_BOILERPLATE = re.compile(
    r"^(FAILURE: Build (failed|completed) with |\* What went wrong:|\d+: Task failed with an exception\.|-{5,}$|={5,}$|BUILD FAILED)"
)
_INPUT_NAMES = {"gradle.properties", "gradle-wrapper.properties"}
_INPUT_SUFFIXES = (".gradle", ".gradle.kts", ".versions.toml")
_SOURCE_SUFFIXES = (".kt", ".java", ".kts")
# Environment variables that change what Gradle does, for the cache key.
_ENVIRONMENT = ("GRADLE_USER_HOME", "GRADLE_OPTS")
# Directories a build script names with a literal path: source dirs, included builds, project dirs.
# Computed paths can't be read without running Gradle; the init script may report them (inputDir).
_DIR_CALL = re.compile(r"\b(?:srcDirs?|setSrcDirs|includeBuild|projectDir)\b[^\n]*")
_STRING = re.compile(r"""["']([^"'$\n]+)["']""")


class GradleBuild:
    name: BuildToolName = "gradle"
    build_files = "settings.gradle(.kts), build.gradle(.kts)"

    def detect(self, root: Path) -> bool:
        return any((root / name).is_file() for name in _GRADLE_FILES)

    def check_runnable(self, root: Path) -> None:
        find_gradle(root)

    def is_build_input(self, path: Path, tree: Path) -> bool:
        name = path.name
        relative = path.relative_to(tree).parts
        # buildSrc is a build of its own: all of its sources shape the build.
        in_build_src = "buildSrc" in relative or "build-logic" in relative
        return (
            name in _INPUT_NAMES or name.endswith(_INPUT_SUFFIXES) or (in_build_src and name.endswith(_SOURCE_SUFFIXES))
        )

    def inputs(self, root: Path) -> Inputs:
        top = build_root(root)
        trees = [top] + [d for d in _named_dirs(top) if not d.is_relative_to(top)]
        trees = [t for t in dict.fromkeys(trees) if not any(t != o and t.is_relative_to(o) for o in trees)]
        home = _gradle_user_home()
        files = [home / "gradle.properties", home / "init.gradle", home / "init.gradle.kts", home / "init.d"]
        if (home / "init.d").is_dir():
            files += sorted((home / "init.d").iterdir())
        return Inputs(trees=tuple(trees), files=tuple(files), is_build_file=self.is_build_input)

    def project_key(self, root: Path, project_path: str) -> str:
        return ":" + project_path.strip().strip(":")

    def facts(self) -> dict[str, str]:
        return {"init script": _init_script_hash(), **{name: os.environ.get(name, "") for name in _ENVIRONMENT}}

    def resolve(
        self,
        root: Path,
        *,
        project_path: str,
        source_set: str,
        on_progress: ProgressCallback | None = None,
        on_repl_jars: ReplJarsReady | None = None,
    ) -> ReplEnvironment:
        # The init script resolves the REPL's jars inside the build and reports them with the rest at its end: there
        # is no earlier moment to hand them over.
        return resolve_gradle_environment(
            root, project_path=project_path, source_set=source_set, on_progress=on_progress
        )

    def recompile(
        self, root: Path, *, project_path: str, source_set: str, on_progress: ProgressCallback | None = None
    ) -> bool:
        # Gradle's own up-to-date checks already skip the resolve's unchanged work, and no Gradle launcher can be
        # tested here: a Gradle project resolves again after an edit, as before.
        return False


GRADLE = GradleBuild()


def _gradle_user_home() -> Path:
    return Path(os.environ.get("GRADLE_USER_HOME") or Path.home() / ".gradle")


@cache
def _init_script_hash() -> str:
    return hashlib.sha256(init_script_path().read_bytes()).hexdigest()[:16]


def _named_dirs(top: Path) -> list[Path]:
    """Existing directories the build's scripts name by a literal path (relative to the script)."""
    found: list[Path] = []
    for path, _ in walk_inputs(top):
        if not path.name.endswith((".gradle", ".gradle.kts")):
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for call in _DIR_CALL.finditer(text):
            for literal in _STRING.findall(call.group(0)):
                candidate = (path.parent / literal).resolve()
                if candidate.is_dir():
                    found.append(candidate)
    return found


def build_root(project_root: Path) -> Path:
    """The Gradle build project_root belongs to: the nearest directory at or above it with a settings
    file; project_root itself when there is none."""
    for directory in (project_root, *project_root.parents):
        if any((directory / name).is_file() for name in _SETTINGS_FILES):
            return directory
    return project_root


def find_gradle(project_root: Path) -> list[str]:
    """The command that runs this build's Gradle: its wrapper, searched from project_root up to the
    build root and never beyond it, else `gradle` on PATH. A wrapper without its executable bit (a
    zip download, a checkout on some file systems) runs through `sh`."""
    top = build_root(project_root)
    directories = [project_root, *project_root.parents]
    wrapper = wrapper_command(directories[: directories.index(top) + 1], "gradlew")
    if wrapper is not None:
        return wrapper
    found = shutil.which("gradle")
    if found:
        return [found]
    raise BuildToolNotFound(
        f"no Gradle wrapper (gradlew) in the build at {top}, and no `gradle` on PATH; "
        "add a wrapper (`gradle wrapper`) or install Gradle 7.6+ (https://gradle.org/install)"
    )


def gradle_command(gradle: list[str], project_path: str, source_set: str, nonce: str) -> list[str]:
    task = (
        "resolveReplEnvironment" if project_path in ("", ":") else f"{project_path.rstrip(':')}:resolveReplEnvironment"
    )
    if not task.startswith(":"):
        task = f":{task}"
    return [
        *gradle,
        "--init-script",
        str(init_script_path()),
        "--console=plain",
        # The task reads the project model at execution time, which the configuration cache forbids;
        # it is a one-off query, so the build's own setting is overridden for this run only.
        "--no-configuration-cache",
        f"-Pgradle-repl.sourceSet={source_set}",
        f"-Pgradle-repl.nonce={nonce}",
        *(f"-P{name}={value}" for name, value in kotlin_policy_properties().items()),
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
        # Until a task runs, Gradle itself (wrapper, distribution, settings) is what failed.
        started = any(line.startswith("> Task ") for line in outcome.lines)
        raise BuildFailed("Gradle build failed:\n" + gradle_errors(outcome.lines), started=started)
    return parse_markers(
        outcome.lines,
        nonce=nonce,
        build_tool="gradle",
        project_root=str(root),
        project_path=project_path,
        source_set=source_set,
    )


def gradle_errors(lines: list[str]) -> str:
    """Gradle's error text: the compiler errors a task printed, then each failure's "What went wrong" (the shared
    rule in process.failure_text puts them in the order printed, drops boilerplate and caps the length)."""
    errors: list[str] = []
    in_failure = False
    for line in lines:
        if line.startswith(_FAILURE_START):
            in_failure = True
        elif line.startswith(_FAILURE_END):
            in_failure = False
        elif in_failure or _COMPILER_ERROR.match(line):
            errors.append(line)
    return failure_text(errors, lines, boilerplate=_GRADLE_BOILERPLATE)
