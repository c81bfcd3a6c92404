"""Shared fixtures: isolated cache/log dirs, the sample project's real environment, real workers. The suite's machinery
(xdist's scheduling, the prefetch, module times, the reliability ledger, required skips) is a plugin of its own,
suiteplugin.py."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

# anyio imports its subprocess module lazily, and pytest rewrites it (anyio is a pytest plugin) at
# that moment; on CPython 3.11.7 a rewrite deep inside a running test can fail with "AST constructor
# recursion depth mismatch" (CPython gh-106905). Importing it here, at collection, avoids that.
import anyio
import anyio._core._subprocesses
import pytest

from gradle_repl.environment import Attached, ReplEnvironment, SessionSpec
from gradle_repl.frames import (
    CheckResult,
    CompletionResult,
    DescriptionResult,
    ErrorResult,
    Probe,
    SessionDescription,
    SuccessResult,
    WorkerOptions,
)
from gradle_repl.host.handle import OnFrame, Reply, WorkerHandle
from gradle_repl.project.attach_target import attach_environment
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.project.toolchain import find_mvn
from kotlindaemons import daemon_options
from mavenjvm import maven_opts

pytest_plugins = ["suiteplugin"]

REPO = Path(__file__).resolve().parents[1]
SAMPLE_PROJECT = REPO / "sample-project"
PROJECTS = Path(__file__).resolve().parent / "projects"
# The plain Java app of the attach tests: a counter in a static, read and changed over its stdin.
COUNTER_APP = PROJECTS / "attach-java-plain"
# A test app's Maven build: minutes the first time on a machine (Maven downloads its plugins and the web starter),
# seconds after.
APP_BUILD_TIMEOUT_SECONDS = 900


# Caches keyed by content alone (Kotlin version + sources, Maven coordinates, JDK + jars, extension sources) can't make one
# run see another's state, only skip minutes of identical work: they persist across runs here.
CONTENT_ADDRESSED_CACHES = ("facade", "toolchain", "class-data", "maven-extension", "agent")


def persistent_test_cache() -> Path:
    """GRADLE_REPL_TEST_CACHE, else ~/.cache/gradle-repl-tests."""
    override = os.environ.get("GRADLE_REPL_TEST_CACHE")
    return Path(override) if override else Path.home() / ".cache" / "gradle-repl-tests"


def run_state_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This test run's own directory, one for all of pytest-xdist's workers: they share the environment
    cache, so a project is built once per run (buildlock.py queues the others) and never rebuilt under a
    JVM that another worker runs on its classes."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # each worker's basetemp is a directory of the run's own
    state = base / "gradle-repl-state"
    state.mkdir(exist_ok=True)
    return state


def kotlin_daemons_dir(run_state: Path) -> Path:
    """The run directory of this test run's Kotlin daemons (one for all of pytest-xdist's workers, as the environment
    cache they share is keyed by MAVEN_OPTS)."""
    return run_state / "kotlin-daemons"


def link_once(link: Path, target: Path) -> None:
    """A symlink that another xdist worker may have made first."""
    try:
        link.symlink_to(target, target_is_directory=True)
    except FileExistsError:
        pass


def run_cache_dir(run_state: Path) -> Path:
    """The run's GRADLE_REPL_CACHE_DIR: its own, with the content-addressed caches linked in."""
    cache = run_state / "cache"
    cache.mkdir(exist_ok=True)
    for name in CONTENT_ADDRESSED_CACHES:
        shared = persistent_test_cache() / name
        shared.mkdir(parents=True, exist_ok=True)
        link_once(cache / name, shared)
    return cache


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


def build_classpath(classpath: list[str]) -> list[str]:
    """A resolved class path as the build tool gave it: gradle-repl's own class directories for edits a session compiles
    (project/session_classes.py; a test source set's and its main's), which a Maven environment carries first, left out."""
    return [entry for entry in classpath if "session-classes" not in Path(entry).parts]


def copy_project(source: Path, destination: Path) -> Path:
    """A private copy of a test project without build outputs, for tests that edit or build it."""
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns("target", "build", ".gradle"))
    return destination


@pytest.fixture(scope="session")
def sample_env() -> ReplEnvironment:
    """sample-project resolved through real Maven (the build tool this machine can run)."""
    return resolve_environment(SAMPLE_PROJECT, build_tool="maven").environment


# The thread jvm-worker's RunningSnippet (ReplDriver.kt) compiles a snippet on; the JVM gives Linux its name.
_COMPILING_THREAD = "repl-snippet"
# How long a worker may take to start compiling a snippet sent to it, or to stop its last compile's thread.
_COMPILE_START_SECONDS = 60.0


async def wait_until(condition: Callable[[], bool], what: str, seconds: float = 120.0) -> None:
    """Polls an observable state until it holds, never a fixed sleep; fails the test, naming `what`, after `seconds`.
    Every 10 ms: a snippet's compile thread, which cancel tests must see, lives for a fraction of a second."""
    deadline = anyio.current_time() + seconds
    while not condition():
        assert anyio.current_time() < deadline, f"waited {seconds:g} s for {what}"
        await anyio.sleep(0.01)


class SyncWorker:
    """A real worker process driven from synchronous tests through a private event loop."""

    def __init__(self, spec: ReplEnvironment | SessionSpec, options: WorkerOptions | None = None) -> None:
        self._loop = asyncio.new_event_loop()
        if isinstance(spec, ReplEnvironment):
            spec = SessionSpec(environment=spec)
        self.process: WorkerHandle = self._loop.run_until_complete(
            WorkerHandle.launch(spec, options or WorkerOptions(heap_mb=512), label="test")
        )

    def eval(
        self, code: str, *, timeout: float = 60.0, on_frame: OnFrame | None = None, probes: Sequence[Probe] = ()
    ) -> Reply:
        """Runs a snippet (with `probes` set while it runs); `on_frame` sees each of its output frames as it arrives."""
        return self._loop.run_until_complete(
            self.process.request(code, timeout_seconds=timeout, on_frame=on_frame, probes=probes)
        )

    def cancel_while_compiling(self, code: str) -> None:
        """Sends the snippet and cancels it, as an MCP client's cancel does, once the worker's JVM is seen compiling it;
        returns once the worker has answered (a cancelled call's answer goes nowhere). The compile must outlast the
        moments the cancel takes to reach the worker: the test fails if the snippet's answer came first."""

        async def cancel() -> None:
            await wait_until(
                lambda: not self.compiling(), "the previous snippet's compile thread to end", _COMPILE_START_SECONDS
            )
            request = asyncio.ensure_future(self.process.request(code, timeout_seconds=_COMPILE_START_SECONDS))
            await wait_until(
                lambda: self.compiling() or request.done(), "the worker to compile the snippet", _COMPILE_START_SECONDS
            )
            assert not request.done(), (
                f"the snippet was answered before it was seen compiling: {request.result().result}"
            )
            request.cancel()
            with pytest.raises(asyncio.CancelledError):
                await request
            await self.process.settled()

        self._loop.run_until_complete(cancel())

    def cancel_at_once(self, code: str) -> None:
        """Sends the snippet and cancels it straight away, as a client cancelling right after sending does (the cancel
        line follows the snippet's on the pipe); returns once the worker has answered."""

        async def cancel() -> None:
            request = asyncio.ensure_future(self.process.request(code, timeout_seconds=_COMPILE_START_SECONDS))
            # One turn of the loop: the request task starts its exchange, which writes the snippet before it looks at the
            # cancel; cancelled before that turn, the request would never be sent at all.
            await asyncio.sleep(0)
            request.cancel()
            with pytest.raises(asyncio.CancelledError):
                await request
            await self.process.settled()

        self._loop.run_until_complete(cancel())

    def compiling(self) -> bool:
        """Whether the worker's JVM runs a compile thread now (read from /proc: Linux only)."""
        names = []
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            try:
                names.append((task / "comm").read_text().strip())
            except OSError:
                pass  # a thread that ended while it was read
        return _COMPILING_THREAD in names

    def succeeded(self, code: str, *, timeout: float = 60.0) -> SuccessResult:
        """The result of a snippet that must succeed."""
        result = self.eval(code, timeout=timeout).result
        assert isinstance(result, SuccessResult), f"{result.message}\n{result.stack}"
        return result

    def failed(self, code: str, *, timeout: float = 60.0) -> ErrorResult:
        """The error of a snippet that must fail."""
        result = self.eval(code, timeout=timeout).result
        assert isinstance(result, ErrorResult), result
        return result

    def value(self, code: str) -> str:
        """The rendered value of a snippet that must succeed."""
        result = self.eval(code).result
        assert isinstance(result, SuccessResult), f"{result.message}\n{result.stack}"
        assert result.value is not None, "the snippet produced no value"
        return result.value.data

    def check(self, code: str) -> CheckResult:
        """What compiling the code in the session's state reports (nothing runs)."""
        analysis = self._loop.run_until_complete(self.process.check(code, timeout_seconds=60.0))
        assert isinstance(analysis.result, CheckResult), analysis.result
        return analysis.result

    def complete(self, code: str, cursor: int | None = None) -> CompletionResult:
        """What fits at the cursor (default: the code's end) in the session's state (nothing runs)."""
        analysis = self._loop.run_until_complete(
            self.process.complete(code, len(code) if cursor is None else cursor, timeout_seconds=60.0)
        )
        assert isinstance(analysis.result, CompletionResult), analysis.result
        return analysis.result

    def describe(self) -> SessionDescription:
        """What the session holds, from the worker itself."""
        result = self._loop.run_until_complete(self.process.describe())
        assert isinstance(result, DescriptionResult), result.message
        return result.description

    def close(self) -> None:
        self._loop.run_until_complete(self.process.stop())
        self._loop.close()


@contextmanager
def running_worker(spec: ReplEnvironment | SessionSpec, options: WorkerOptions | None = None) -> Iterator[SyncWorker]:
    """A real worker for the block (an environment's: in a JVM of its own), stopped however the block ends."""
    worker = SyncWorker(spec, options)
    try:
        yield worker
    finally:
        worker.close()


def attached_to(pid: int, project: ReplEnvironment | None = None) -> SessionSpec:
    """The spec of a session attached to the running JVM `pid` (with `project`'s plugins and Kotlin when given)."""
    return SessionSpec(environment=attach_environment(pid, project), placement=Attached(pid=pid))


@pytest.fixture(scope="module")
def counter_classes() -> Path:
    """The counter app compiled by Maven: its class directory."""
    subprocess.run([find_mvn(), "-q", "-B", "compile"], cwd=COUNTER_APP, check=True, timeout=APP_BUILD_TIMEOUT_SECONDS)
    return COUNTER_APP / "target" / "classes"


@pytest.fixture(scope="module")
def sample_worker(sample_env: ReplEnvironment) -> Iterator[SyncWorker]:
    """One worker shared by a module's tests where the session's state doesn't matter."""
    with running_worker(sample_env) as worker:
        yield worker
