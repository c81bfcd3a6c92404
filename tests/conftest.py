"""The fixtures every test folder shares: isolated cache/log dirs, the sample project's real environment, real workers.
What tests share besides fixtures is the support package (support/); the suite's machinery (xdist's scheduling, the
prefetch, module times, the reliability ledger, required skips) is a plugin of its own, suiteplugin.py."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

# Before gradle_repl is imported (its settings read it once, settings.IDLE_WARM_UP_ENV), and inherited by every server
# and worker the suite starts: no idle worker compiles throwaway snippets to warm its JIT. Dozens of them at once would
# take the CPU the tests run on; tests/worker/repl/test_idle_warm_up.py turns it on for its own worker.
os.environ["GRADLE_REPL_IDLE_WARM_UP_COMPILES"] = "0"

# anyio imports its subprocess module lazily, and pytest rewrites it (anyio is a pytest plugin) at
# that moment; on CPython 3.11.7 a rewrite deep inside a running test can fail with "AST constructor
# recursion depth mismatch" (CPython gh-106905). Importing it here, at collection, avoids that.
import pytest

from gradle_repl.environment import ReplEnvironment
from gradle_repl.project.resolve import resolve_environment
from kotlindaemons import daemon_options
from support.mavenjvm import maven_opts
from support.paths import (
    COUNTER_APP,
    SAMPLE_PROJECT,
    kotlin_daemons_dir,
    persistent_test_cache,
    run_cache_dir,
    run_state_dir,
)
from support.runningapp import built_app
from support.workers import SyncWorker, running_worker

pytest_plugins = ["suiteplugin"]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Async tests (`@pytest.mark.anyio`) run on asyncio, the event loop the server and the host run on."""
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def isolated_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Environments and logs of a test run live in its own directories, so runs never see each other;
    content-addressed caches (compiled facades, fetched jars, class-data archives) are shared."""
    base = run_state_dir(tmp_path_factory)
    saved = {
        k: os.environ.get(k)
        for k in ("GRADLE_REPL_CACHE_DIR", "GRADLE_REPL_LOG_DIR", "GRADLE_REPL_CONFIG_DIR", "MAVEN_OPTS")
    }
    # The suite's Maven builds are short compiles of small projects (mavenjvm.py: a JVM that starts ~30%
    # faster). A MAVEN_OPTS of the user's own is left as it is.
    if "MAVEN_OPTS" not in os.environ:
        os.environ["MAVEN_OPTS"] = maven_opts(persistent_test_cache() / "maven-class-data", SAMPLE_PROJECT)
    # The Kotlin daemons the run's edit-loop compiles start live in a directory of the run's own (kotlindaemons.py).
    os.environ["MAVEN_OPTS"] += " " + daemon_options(kotlin_daemons_dir(base))
    os.environ["GRADLE_REPL_CACHE_DIR"] = str(run_cache_dir(base))
    os.environ["GRADLE_REPL_LOG_DIR"] = str(base / "logs")
    # The HTTP server's token of a test run is the run's own, never the user's.
    os.environ["GRADLE_REPL_CONFIG_DIR"] = str(base / "config")
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
def sample_env() -> ReplEnvironment:
    """sample-project resolved through real Maven (the build tool this machine can run)."""
    return resolve_environment(SAMPLE_PROJECT, build_tool="maven").environment


@pytest.fixture(scope="module")
def counter_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The counter app compiled by Maven (once per run): its class directory."""
    built_app(COUNTER_APP, "compile", run_state_dir(tmp_path_factory))
    return COUNTER_APP / "target" / "classes"


@pytest.fixture(scope="module")
def sample_worker(sample_env: ReplEnvironment) -> Iterator[SyncWorker]:
    """One worker shared by a module's tests where the session's state doesn't matter."""
    with running_worker(sample_env) as worker:
        yield worker
