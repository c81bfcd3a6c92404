"""What a test run downloads, fetched at its start and in parallel: on a new machine the tests that need a Kotlin
compiler of another version, the Gradle API jars or Spring Boot otherwise each wait for their own downloads, one after
another, behind minutes of other work. suiteplugin.py starts this as a process of its own in pytest-xdist's controller;
it takes what to fetch from where the tests define it (suiteversions.py, gradlemodels.PAIRS, the test projects' poms).

Nothing waits for it and nothing depends on it: a test fetches what it needs as before, and finds it in ~/.m2 (and
resolve_jars's cache) when the prefetch got there first. Two Maven processes fetching one artifact is safe: Maven's
resolver downloads into a `.part` file under a `.part.lock` file lock, and a second process waits on that lock and
then takes the finished file (maven-resolver-connector-basic, PartialFile); resolve_jars replaces its pom and classpath
files whole. A fetch that fails here fails again, with its message, in the test that needs it.

It also starts the run's warm Kotlin daemon (one edit-loop compile of sample-project), which the suite's full resolves
then compile in, as a user's do once an edit has started it (project/buildtools/kotlin_daemons.py): ~6 s less per resolve.

    python tests/prefetch.py LOG_DIR
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gradle_repl.project.buildtools.maven_speed import daemon_properties
from gradle_repl.project.maven_repository import local_repository
from gradle_repl.project.toolchain import (
    PINNED_KOTLIN_VERSION,
    find_mvn,
    has_usable_repl,
    repl_host_coordinates,
    resolve_jars,
)
from suiteversions import SUITE_KOTLIN_VERSIONS
from support.gradlemodels import PAIRS, pair_jars
from support.paths import PROJECTS, SAMPLE_PROJECT, copy_project, persistent_test_cache
from support.testtoolchain import fetch_test_toolchain

# Downloads wait on the network, not the CPU: more at once than the machine has cores, few enough not to crowd the tests.
PARALLEL_FETCHES = 3
MVN_TIMEOUT_SECONDS = 1200


def _maven_plugins_and_dependencies(project: Path, kotlin: str | None) -> str:
    """The project's plugins (kotlin-maven-plugin brings its version's compiler, spring-boot-maven-plugin its loader)
    and dependencies, as the tests' builds of it resolve them; at another Kotlin version when `kotlin` is given.
    Once per local repository: a warm machine's run starts no Maven for it."""
    with tempfile.TemporaryDirectory(prefix="prefetch-") as scratch:
        copy = Path(scratch) / project.name
        shutil.copytree(project, copy, ignore=shutil.ignore_patterns("target", "build", ".gradle", "src"))
        if kotlin is not None:
            pom = copy / "pom.xml"
            pom.write_text(
                pom.read_text().replace(f"<kotlin.version>{PINNED_KOTLIN_VERSION}<", f"<kotlin.version>{kotlin}<")
            )
        repository = local_repository(os.environ)
        # The repository's inode: a ~/.m2 moved aside or deleted and made again is a new one.
        identity = f"{repository.resolve()}\0{repository.stat().st_ino if repository.is_dir() else 'none'}"
        digest = hashlib.sha256(identity.encode())
        for pom in sorted(copy.rglob("pom.xml")):
            digest.update(pom.read_bytes())
        stamp = persistent_test_cache() / "prefetched" / digest.hexdigest()[:24]
        if stamp.is_file():
            return "already fetched"
        # A module's dependency on a sibling resolves only in a build of both (the tests' builds compile them), so a
        # multi-module project gets its plugins here, its few libraries in that build.
        goals = ["dependency:resolve-plugins"] + (
            [] if "<modules>" in (copy / "pom.xml").read_text() else ["dependency:resolve"]
        )
        _maven(copy, "-fae", *goals)
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()
        return "done"


def _warm_kotlin_daemon() -> str:
    """The run's Kotlin daemon for sample-project's compiler, started and warmed by one edit-loop compile: the suite's
    full resolves of projects on that Kotlin then compile in it, as a user's do after a first edit (kotlin_daemons.py).
    It lives in the run's own daemon directory (MAVEN_OPTS, kotlindaemons.py), which the run's end clears."""
    with tempfile.TemporaryDirectory(prefix="prefetch-daemon-") as scratch:
        copy = copy_project(SAMPLE_PROJECT, Path(scratch) / SAMPLE_PROJECT.name)
        _maven(copy, "compile", "-Dkotlin.compiler.incremental=false", *daemon_properties())
    return "warm"


def _maven(project: Path, *arguments: str) -> None:
    """A quiet Maven run in project; its last output in the error when it fails."""
    done = subprocess.run(
        [find_mvn(), "-B", "-q", *arguments],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=MVN_TIMEOUT_SECONDS,
    )
    if done.returncode != 0:
        raise RuntimeError((done.stdout + done.stderr).strip()[-2000:])


def _repl_host_jars(kotlin: str) -> object:
    return resolve_jars({"host": repl_host_coordinates(kotlin)})


def fetches() -> list[tuple[str, Callable[[], object]]]:
    """Each fetch with its name, the daemon's warm-up and then the largest first (each Kotlin version's compiler, the Gradle API jars)."""
    # First: the daemon serves the run's full resolves from its first minutes on.
    jobs: list[tuple[str, Callable[[], object]]] = [("the run's Kotlin daemon", _warm_kotlin_daemon)]
    for kotlin in SUITE_KOTLIN_VERSIONS:
        jobs.append(
            (f"sample-project at Kotlin {kotlin}", partial(_maven_plugins_and_dependencies, SAMPLE_PROJECT, kotlin))
        )
    for pair in PAIRS:
        jobs.append((f"Gradle {pair.gradle} API, KGP {pair.kgp}", partial(pair_jars, pair)))
    jobs.append((f"the REPL host at Kotlin {PINNED_KOTLIN_VERSION}", fetch_test_toolchain))
    for kotlin in SUITE_KOTLIN_VERSIONS:
        if has_usable_repl(kotlin):
            jobs.append((f"the REPL host at Kotlin {kotlin}", partial(_repl_host_jars, kotlin)))
    for project in sorted(PROJECTS.iterdir()):
        if (project / "pom.xml").is_file():
            jobs.append((f"tests/projects/{project.name}", partial(_maven_plugins_and_dependencies, project, None)))
    jobs.append(("sample-project", lambda: _maven_plugins_and_dependencies(SAMPLE_PROJECT, None)))
    return jobs


def _timed(name: str, fetch: Callable[[], object], run_started: float) -> str:
    started = time.monotonic()
    try:
        said = fetch()
        outcome = said if isinstance(said, str) else "done"
    except Exception as error:  # noqa: BLE001 - reported here; the test that needs it fails with its own message
        outcome = f"failed: {error}"
    ended = time.monotonic()
    return f"{ended - started:7.1f} s, done {ended - run_started:7.1f} s into the run  {name}: {outcome}"


def main() -> None:
    started = time.monotonic()
    # Each line when its fetch ends: when a download was there for the tests that wait on it.
    with ThreadPoolExecutor(PARALLEL_FETCHES) as pool:
        for done in as_completed([pool.submit(_timed, *job, started) for job in fetches()]):
            print(done.result(), flush=True)
    print(f"{time.monotonic() - started:7.1f} s  all fetched", flush=True)


if __name__ == "__main__":
    main()
