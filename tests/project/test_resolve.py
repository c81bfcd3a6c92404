"""Choosing the build tool: `auto` keeps what last worked for a project, falls back when a tool can't
run (saying so in one line), and a failure is one line plus the tool's own last error lines."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

import pytest

from gradle_repl.errors import BuildFailed
from gradle_repl.project.resolve import resolve_environment
from support.paths import SAMPLE_PROJECT, copy_project

# What a wrapper prints when it can't download its distribution (offline), stack and all.
OFFLINE_WRAPPER = (
    "\n".join(
        [
            "#!/bin/sh",
            'touch "$(dirname "$0")/../wrapper-ran"',  # outside the project: not one of its inputs
            "echo 'Downloading https://services.gradle.org/distributions/gradle-8.11.1-bin.zip'",
            """echo 'Exception in thread "main" java.net.UnknownHostException: services.gradle.org'""",
            *[f"printf '\\tat org.gradle.wrapper.Install.frame{i}(Install.java:{i})\\n'" for i in range(25)],
            "exit 1",
        ]
    )
    + "\n"
)
# A Gradle that ran the build and failed compiling: falling back would only fail the same way.
COMPILE_FAILURE = (
    "\n".join(
        [
            "#!/bin/sh",
            "echo '> Task :compileKotlin FAILED'",
            "echo \"e: file:///p/src/A.kt:1:5 Unresolved reference 'x'.\"",
            "echo 'FAILURE: Build failed with an exception.'",
            "echo '* What went wrong:'",
            "echo \"Execution failed for task ':compileKotlin'.\"",
            "echo '* Try:'",
            "exit 1",
        ]
    )
    + "\n"
)


def with_wrapper(project: Path, script: str) -> Path:
    wrapper = project / "gradlew"
    wrapper.write_text(script)
    wrapper.chmod(0o755)
    return project


@pytest.fixture
def dual(tmp_path: Path) -> Path:
    """sample-project has both builds; here its Gradle wrapper can't run (offline)."""
    return with_wrapper(copy_project(SAMPLE_PROJECT, tmp_path / "dual"), OFFLINE_WRAPPER)


def test_auto_falls_back_to_maven_says_so_once_and_keeps_it(dual: Path) -> None:
    resolved = resolve_environment(dual)
    assert resolved.environment.build_tool == "maven"
    assert resolved.notices == (
        (
            '[Gradle could not run: Exception in thread "main" java.net.UnknownHostException: services.gradle.org; '
            "used Maven instead]"
        ),
    )
    (dual.parent / "wrapper-ran").unlink()
    again = resolve_environment(dual)
    assert again.from_cache and again.notices == () and again.environment.build_tool == "maven"
    assert not resolve_environment(dual, refresh=True).notices
    assert not (dual.parent / "wrapper-ran").exists(), "auto tried Gradle again after Maven worked"


def test_a_build_that_ran_and_failed_is_not_retried_with_the_other_tool(tmp_path: Path) -> None:
    project = with_wrapper(copy_project(SAMPLE_PROJECT, tmp_path / "broken"), COMPILE_FAILURE)
    with pytest.raises(BuildFailed) as failure:
        resolve_environment(project)
    assert str(failure.value).splitlines()[:3] == [
        "Gradle build failed:",
        "e: file:///p/src/A.kt:1:5 Unresolved reference 'x'.",
        "Execution failed for task ':compileKotlin'.",
    ]


def test_a_failure_is_one_line_and_the_tools_last_error_lines_once(tmp_path: Path) -> None:
    project = tmp_path / "gradle-only"
    project.mkdir()
    (project / "settings.gradle.kts").write_text("")
    (project / "build.gradle.kts").write_text("")
    with_wrapper(project, OFFLINE_WRAPPER)
    done = subprocess.run(
        [sys.executable, "-m", "gradle_repl", "resolve", str(project)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    progress, failure = done.stderr.split("gradle-repl: Gradle build failed:\n")
    assert progress.startswith("resolving ") and progress.count("\n") == 1, "only gradle-repl's own progress line"
    assert done.stderr.count("UnknownHostException") == 1
    assert not any(line.lstrip().startswith("at ") for line in failure.splitlines()) and failure.count("\n") <= 20


def test_two_processes_resolving_one_project_build_it_once(tmp_path: Path) -> None:
    """A second process that asks while the first builds waits for it, says so, and takes its environment
    from the cache: two builds at once would clobber each other's outputs. The first's `mvn` is held at its
    start until the second says it waits, so the order never depends on how fast either process is."""
    project = copy_project(SAMPLE_PROJECT, tmp_path / "shared")
    go = tmp_path / "go"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    real_mvn = shutil.which("mvn")
    assert real_mvn is not None
    (bin_dir / "mvn").write_text(f'#!/bin/sh\nwhile [ ! -e "{go}" ]; do sleep 0.05; done\nexec "{real_mvn}" "$@"\n')
    (bin_dir / "mvn").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    command = [sys.executable, "-m", "gradle_repl", "resolve", str(project), "--build-tool", "maven"]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    second: subprocess.Popen[str] | None = None
    try:
        assert first.stderr is not None
        _read_until(first.stderr, "resolving ")  # said once it holds the build
        threading.Thread(target=first.stderr.read, daemon=True).start()  # it never blocks on a full pipe
        second = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert second.stderr is not None
        waited = _read_until(second.stderr, "waiting for another gradle-repl process")
        go.touch()
        out, _ = first.communicate(timeout=600)
        second_out, second_err = second.communicate(timeout=600)
    finally:
        go.touch()
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    assert first.returncode == 0 and "(resolved in" in out, out
    assert f"waiting for another gradle-repl process that is building {project}" in waited
    assert second.returncode == 0 and "(from cache)" in second_out, second_out + second_err


def _read_until(stream: IO[str], marker: str) -> str:
    """A child's lines up to the first holding marker, which is returned; the child ending first is a failure."""
    for line in stream:
        if marker in line:
            return line
    raise AssertionError(f"the process ended without saying {marker!r}")
