"""Starts a session's JVM and its K2 REPL: the classpaths, the facade and its optional add-ons (@file:DependsOn,
Compose's renderComposable), the class-data archive, then a warm-up snippet; a training worker also compiles a few typical snippets.

Where the snippets run is chosen here, once, from the session's placement (`SessionSpec.placement`), and each kind starts
only what it uses: a session in its own JVM (_OwnJvm) gets the class-update agent, the project's class files read for
in-place updates, output capture, the exit guard and the @file:DependsOn add-on, and runs its snippets with
worker/repl/local_runner.py; a session attached to a running JVM (boot_attached.py's AttachedKind) gets the attach
agent's display API, Spring's helpers and a connection to the agent, and runs its snippets with
worker/attach/attached_runner.py.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from gradle_repl.environment import DEPENDS_ON_UNAVAILABLE, Attached, AttachedOverTcp, ReplEnvironment
from gradle_repl.errors import WorkerFailed
from gradle_repl.frames import ReadyFrame, StartRequest
from gradle_repl.worker import java
from gradle_repl.worker.artifacts import classdata
from gradle_repl.worker.artifacts.facade import build_dependency_addon, build_facade
from gradle_repl.worker.classes.class_update_agent import AgentJar, agent_jar
from gradle_repl.worker.classes.class_updates import ClassUpdater
from gradle_repl.worker.java import JavaException, JavaObject, ReplDriver, ReplOutput, java_class, shutdown_vm
from gradle_repl.worker.jvm import start_jvm
from gradle_repl.worker.probes.call_probes import LocalProbes
from gradle_repl.worker.repl.class_phases import class_phases
from gradle_repl.worker.repl.completion import SessionCompletion
from gradle_repl.worker.repl.compose_addon import compose_addon
from gradle_repl.worker.repl.idle_warm_up import TYPICAL_SNIPPETS
from gradle_repl.worker.repl.junit_addon import JunitAddon, junit_addon
from gradle_repl.worker.repl.local_runner import Facade, LocalRunner
from gradle_repl.worker.repl.plugin_hints import compose_hints, serialization_hint
from gradle_repl.worker.repl.project_tests import ProjectTestRunner
from gradle_repl.worker.repl.session import ReplSession
from gradle_repl.worker.results.outcomes import failure_details
from gradle_repl.worker.runner import SnippetRunner
from gradle_repl.worker.snippet_names import WARM_UP_SNIPPET, WARM_UP_SNIPPETS, SnippetCounter

if TYPE_CHECKING:
    from gradle_repl.worker.boot_attached import AttachedKind

__all__ = ["ClassDataUse", "boot"]

_HOST_RUNTIME_JARS = ("kotlin-stdlib-", "kotlin-script-runtime-")
# kotlin-scripting-dependencies-<version>.jar (not -maven-): DependsOn and Repository, shared with the host loader.
_DEPENDENCY_ANNOTATIONS_JAR = re.compile(r"kotlin-scripting-dependencies-\d")


class ClassDataUse:
    """Which class-data archive this JVM maps, or writes when it is the training worker."""

    def __init__(self, archive: Path | None, *, train: bool) -> None:
        self.archive = archive
        self.train = train
        self.mapped = archive if archive is not None and not train and archive.is_file() else None
        self._written = archive.with_name(f"{archive.name}.{os.getpid()}.tmp") if archive and train else None

    @classmethod
    def for_request(cls, request: StartRequest) -> ClassDataUse:
        env = request.spec.environment
        wanted = request.class_data_sharing or request.train_class_data
        archive = classdata.archive_path(env.java_home, env.repl_host_classpath) if wanted else None
        return cls(archive, train=request.train_class_data)

    def jvm_options(self) -> list[str]:
        if self._written is not None:
            return [f"-XX:ArchiveClassesAtExit={self._written}"]
        if self.mapped is not None:
            # auto: an archive the JVM finds unusable is skipped with a warning in the worker log.
            return [f"-XX:SharedArchiveFile={self.mapped}", "-Xshare:auto"]
        return []

    def write(self) -> None:
        """Training only: ends the JVM, which writes the archive, and moves it into place."""
        if self._written is None or self.archive is None:
            raise WorkerFailed("this worker was not started to write a class-data archive")
        shutdown_vm()  # the JVM writes the archive while it shuts down
        if self._written.is_file():
            os.replace(self._written, self.archive)
        else:
            classdata.mark_training_failed(self.archive, "the JVM wrote no archive; see the worker log")


def boot(request: StartRequest) -> tuple[ReplSession, ReadyFrame, ClassDataUse]:
    """The session, ready to evaluate; its ready frame; and the class-data archive its JVM maps or writes."""
    started = time.monotonic()
    env = request.spec.environment
    placement = request.spec.placement
    kind: _OwnJvm | AttachedKind
    if isinstance(placement, Attached | AttachedOverTcp):
        # Imported here: a session in its own JVM never loads the attach and probe modules (boot_attached.py says why).
        from gradle_repl.worker.boot_attached import AttachedKind

        kind = AttachedKind(request, placement)
    else:
        kind = _OwnJvm(request)
    class_data = ClassDataUse.for_request(request)
    if class_data.mapped is not None:
        classdata.mark_mapped(class_data.mapped)
    # DependsOn/Repository go on the JVM's classpath: the compiler loads them by name from there. Maven's
    # resolver stays in the facade's loader, out of the compiler's and the project's way.
    annotations = [p for p in env.dependency_resolver_classpath if _DEPENDENCY_ANNOTATIONS_JAR.match(_jar_name(p))]
    start_jvm(
        env.java_home,
        [*env.repl_host_classpath, *annotations],
        heap_mb=request.heap_mb,
        full_jit=request.full_jit,
        code_cache_mb=request.code_cache_mb,
        extra_options=[*class_data.jvm_options(), *kind.jvm_options(), *request.spec.options.jvm_args],
    )
    facade_jar, compiled = build_facade(env.kotlin_version, env.repl_host_classpath)
    jars = [str(facade_jar), *kind.facade_addons(facade_jar, annotations)]
    urls = [java_class("java.io.File")(jar).toURI().toURL() for jar in jars]
    system = java_class("java.lang.ClassLoader").getSystemClassLoader()
    facade_loader = java_class("java.net.URLClassLoader")(urls, system)
    compile_classpath = _compile_classpath(env, str(facade_jar), annotations)
    compose = compose_addon(env, compile_classpath)
    addon_classpath, addon_imports = kind.snippet_addons(compile_classpath)
    snippet_loader = java_class("gradlerepl.repl.SnippetClassLoaders", loader=facade_loader).create(
        [*env.classpath, *compose.classpath, *addon_classpath], facade_loader
    )
    extra_classpath, extra_imports, libraries = kind.before_driver(facade_loader, compile_classpath)
    driver = java.repl_driver(
        facade_loader,
        [*compile_classpath, *compose.classpath, *addon_classpath, *extra_classpath],
        snippet_loader,
        request.spec.compiler_options(),
        libraries,
        [*compose.imports, *addon_imports, *extra_imports],
    )
    class_phase_hints = class_phases(env, driver, facade_loader, str(facade_jar))
    snippets = SnippetCounter(driver)
    runner, java_version = kind.runner(driver, snippet_loader, snippets, java.renderer(facade_loader))
    ready = ReadyFrame(
        pid=os.getpid(),
        kotlin_version=env.kotlin_version,
        java_version=java_version,
        facade_compiled=compiled,
        startup_ms=int((time.monotonic() - started) * 1000),
        class_data_archive=str(class_data.mapped) if class_data.mapped else None,
        history_indexed=bool(driver.historyIndexed()),
        first_compile_pending=not request.warm_up and isinstance(kind, _OwnJvm),
    )
    if request.train_class_data:
        kind.train(snippets)
    completion = SessionCompletion(
        driver,
        facade_loader,
        kotlin_version=env.kotlin_version,
        compile_classpath=[*env.repl_host_classpath, str(facade_jar)],
        # What snippets compile against, less the facade's own jars: classes a snippet may be offered to import.
        index_classpath=[
            p for p in [*compile_classpath, *compose.classpath] if p != str(facade_jar) and p not in annotations
        ],
    )
    hints = [*filter(None, [serialization_hint(env)]), *compose_hints(env, compose.unavailable), *class_phase_hints]
    assert kind.probes is not None  # made with the runner
    session = ReplSession(
        request,
        driver,
        snippets,
        runner,
        libraries_unavailable=kind.libraries_unavailable,
        hints=hints,
        completion=completion,
        probes=kind.probes,
    )
    return session, ready, class_data


class _OwnJvm:
    """A session whose snippets run in this worker's JVM."""

    def __init__(self, request: StartRequest) -> None:
        self._request = request
        env = request.spec.environment
        # The agent that lets a rebuild's changed classes be redefined in place (class_updates.py). Not in a training
        # worker: the JVM writes no class-data archive at exit with a java.lang.instrument agent loaded, and a trainer
        # runs no project code anyway.
        self._agent = (
            agent_jar(env.java_home)
            if not request.train_class_data
            else AgentJar(None, "a training worker has no agent")
        )
        # Why @file:DependsOn can't be used in this session; None when it can.
        self.libraries_unavailable: str | None = env.dependency_resolver_unavailable or DEPENDS_ON_UNAVAILABLE
        self._addon: Path | None = None
        self._output: ReplOutput | None = None
        self._exit_guard: java.ExitGuard | None = None
        self._junit = JunitAddon()
        self._probe_classes: tuple[JavaObject, list[str]] | None = None  # the facade's loader, the compile classpath
        self.probes: LocalProbes | None = None  # made with the runner

    def jvm_options(self) -> list[str]:
        """The class-update agent's, and the flags the build gives its test JVM (a test session's)."""
        tests = self._request.spec.environment.test_settings
        return [*self._agent.jvm_options(), *(tests.jvm_args if tests is not None else [])]

    def snippet_addons(self, compile_classpath: list[str]) -> tuple[list[str], list[str]]:
        """The test runner (a session whose classpath has a JUnit Platform engine): on the snippets' classpath, where
        it runs the project's tests in the project's loader, and imported (lastTestFailures)."""
        self._junit = junit_addon(self._request.spec.environment, compile_classpath)
        return self._junit.classpath, self._junit.imports

    def facade_addons(self, facade_jar: Path, annotations: list[str]) -> list[str]:
        """The @file:DependsOn add-on and Maven's resolver, for the facade's loader; none when the add-on can't be had."""
        env = self._request.spec.environment
        if not env.dependency_resolver_classpath:
            return []
        try:
            self._addon, _ = build_dependency_addon(
                env.kotlin_version, [*env.repl_host_classpath, str(facade_jar), *env.dependency_resolver_classpath]
            )
        except WorkerFailed as error:  # an optional add-on: the session starts without it
            self.libraries_unavailable = (
                f"{DEPENDS_ON_UNAVAILABLE}: its add-on did not compile ({str(error).splitlines()[0]})"
            )
            return []
        resolver = [p for p in env.dependency_resolver_classpath if p not in annotations]
        return [str(self._addon), *resolver]

    def before_driver(
        self, facade_loader: JavaObject, compile_classpath: list[str]
    ) -> tuple[list[str], list[str], JavaObject]:
        """Output capture and the exit guard installed; the @file:DependsOn libraries object, when the add-on loaded."""
        env = self._request.spec.environment
        self._probe_classes = (facade_loader, compile_classpath)
        self._output = java.repl_output(facade_loader)
        self._output.install()
        self._exit_guard = java.exit_guard(facade_loader)
        self._exit_guard.install()
        libraries: JavaObject = None
        if self._addon is not None:
            try:
                libraries = java_class("gradlerepl.dependencies.AddedLibraries", loader=facade_loader)(
                    env.classpath, env.repositories
                )
                self.libraries_unavailable = None
            except (JavaException, TypeError) as error:
                self.libraries_unavailable = f"{DEPENDS_ON_UNAVAILABLE}: its resolver could not be made ({error})"
        return [], [], libraries

    def runner(
        self, driver: ReplDriver, snippet_loader: JavaObject, snippets: SnippetCounter, renderer: java.Renderer
    ) -> tuple[SnippetRunner, str]:
        """The runner, after the warm-up unless the start skips it (StartRequest.warm_up); and the JVM's Java version."""
        assert self._output is not None and self._exit_guard is not None and self._probe_classes is not None
        env = self._request.spec.environment
        # Read before any project class loads (neither the driver nor the warm-up loads one): the bytes the JVM will run.
        classes = ClassUpdater(
            env.classpath,
            snippet_loader,
            unavailable=self._agent.unavailable,
            add_compile_root=lambda root: driver.addCompileRoots(java.string_array([root])),
        )
        if self._request.warm_up:
            _warm_up(snippets, self._output)
        else:
            snippets.skip_warm_up()
            # What the JVM and the compiler's set-up printed (a JDK's warnings) is no snippet's output.
            self._output.drain()
        tests = ProjectTestRunner(
            env, snippet_loader, unavailable=None if self._junit.jar is not None else self._junit.unavailable
        )
        facade_loader, compile_classpath = self._probe_classes
        self.probes = LocalProbes(env, facade_loader, snippet_loader, compile_classpath)
        runner = LocalRunner(
            self._request,
            Facade(driver, self._output, renderer, self._exit_guard),
            snippets,
            classes,
            tests,
            self.probes,
        )
        return runner, str(java_class("java.lang.System").getProperty("java.version"))

    def train(self, snippets: SnippetCounter) -> None:
        assert self._output is not None
        _train(snippets, self._output)


def _warm_up(snippets: SnippetCounter, output: ReplOutput) -> None:
    """Runs the first snippets, which cannot fail (WARM_UP_SNIPPETS counts them): they load the compiler and run its
    first compile, so the user's first snippet comes back as fast as later ones (and a spare worker has done it before
    a session takes it)."""
    for _ in range(WARM_UP_SNIPPETS):
        _, running = snippets.start(WARM_UP_SNIPPET)
        running.join(0)  # Thread.join(0): wait until done
        outcome = running.getOutcome()
        if outcome is None or not outcome.compiled or outcome.result is None:
            raise WorkerFailed(f"the Kotlin REPL failed its warm-up snippet: {failure_details(outcome)}")
    output.drain()


def _train(snippets: SnippetCounter, output: ReplOutput) -> None:
    """Compiles what typical snippets need (a data class, lambdas, templates, an object, runCatching, a range
    pipeline: idle_warm_up.TYPICAL_SNIPPETS), so the archive holds it."""
    for code in TYPICAL_SNIPPETS:
        _, running = snippets.start(code)
        running.join(0)
    output.drain()


def _jar_name(path: str) -> str:
    return Path(path).name


def _compile_classpath(env: ReplEnvironment, facade: str, annotations: list[str]) -> list[str]:
    """The project classpath, plus the host's stdlib where the project has none, plus the display API and
    the @file:DependsOn/@file:Repository annotations."""
    present = {prefix for prefix in _HOST_RUNTIME_JARS for p in env.classpath if _jar_name(p).startswith(prefix)}
    extra = [
        p
        for p in env.repl_host_classpath
        for prefix in _HOST_RUNTIME_JARS
        if _jar_name(p).startswith(prefix) and prefix not in present
    ]
    return [*env.classpath, *extra, facade, *annotations]
