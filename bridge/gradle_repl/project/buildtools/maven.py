"""The REPL environment of a Maven project: one `mvn` run compiles the module and reports its
classpath and effective POM; the Kotlin REPL host and compiler plugins come at the POM's Kotlin
version through Maven as well.
"""

from __future__ import annotations

import os
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from gradle_repl.environment import ReplEnvironment, ReplJarsReady
from gradle_repl.errors import BuildFailed, BuildToolNotFound, GradleReplError
from gradle_repl.project.build_inputs import Inputs
from gradle_repl.project.buildtools import kotlin_daemons, maven_speed, pom, surefire
from gradle_repl.project.buildtools.base import BuildToolName, wrapper_command
from gradle_repl.project.buildtools.maven_extension import (
    ExtensionUnavailable,
    extension_arguments,
    extension_hash,
    extension_jar,
)
from gradle_repl.project.buildtools.maven_first_run import JarsFetched, first_run_fetch
from gradle_repl.project.dependency_support import dependency_resolver_request
from gradle_repl.project.maven_repository import local_repository, removed_empty_downloads
from gradle_repl.project.process import ProcessOutcome, ProgressCallback, failure_text, run_streaming
from gradle_repl.project.toolchain import (
    Coordinate,
    ResolvedJars,
    find_mvn,
    repl_host_coordinates,
    repl_kotlin_version,
    resolve_jars,
)

__all__ = [
    "MAVEN",
    "MavenBuild",
    "resolve_maven_environment",
    "find_maven",
    "find_module",
    "maven_errors",
    "repl_jar_requests",
    "reactor_command",
    "MAVEN_TIMEOUT_SECONDS",
]

# A cold build of a module with downloads; past this the user's build is stuck, not slow.
MAVEN_TIMEOUT_SECONDS = 900.0
_OUT_DIR = "target/gradle-repl"
# Maven's footer after its real [ERROR] lines: how to get a stack trace, where to read about the error, how to
# resume the reactor ("mvn <args> -rf :app"). None of it names a cause.
_MAVEN_BOILERPLATE = re.compile(
    r"^\s*(To see the full stack trace|Re-run Maven using|For more information about the errors|\[Help \d+\] |"
    r"After correcting the problems|mvn <args> -rf )"
)
# Maven ends its summary error line with a pointer to the footer's help links; the line itself is the cause.
_HELP_POINTER = re.compile(r"\s*-> \[Help \d+\]$")
# Environment variables that change what mvn does, for the cache key.
_ENVIRONMENT = ("MAVEN_OPTS", "MAVEN_ARGS")


class MavenBuild:
    name: BuildToolName = "maven"
    build_files = "pom.xml"

    def detect(self, root: Path) -> bool:
        return (root / "pom.xml").is_file()

    def check_runnable(self, root: Path) -> None:
        find_maven(root)

    def is_build_input(self, path: Path, tree: Path) -> bool:
        return path.name == "pom.xml" or ".mvn" in path.relative_to(tree).parts

    def inputs(self, root: Path) -> Inputs:
        outside = [m for m in pom.modules(root) if not m.is_relative_to(root)]
        trees = tuple(
            dict.fromkeys([root, *(m for m in outside if not any(m.is_relative_to(o) for o in outside if o != m))])
        )
        m2 = Path.home() / ".m2"
        settings = [m2 / "settings.xml", m2 / "toolchains.xml"]
        if (mvn := shutil.which("mvn")) is not None:
            settings.append(Path(mvn).resolve().parent.parent / "conf" / "settings.xml")
        parents = [p for p in pom.parent_poms([root, *outside]) if not any(p.is_relative_to(t) for t in trees)]
        return Inputs(trees=trees, files=tuple(settings + parents), is_build_file=self.is_build_input)

    def project_key(self, root: Path, project_path: str) -> str:
        module = find_module(root, project_path)
        return ":" + (_module_name(module, root).replace("/", ":") if module != root else "")

    def facts(self) -> dict[str, str]:
        return {"maven extension": extension_hash(), **{name: os.environ.get(name, "") for name in _ENVIRONMENT}}

    def resolve(
        self,
        root: Path,
        *,
        project_path: str,
        source_set: str,
        on_progress: ProgressCallback | None = None,
        on_repl_jars: ReplJarsReady | None = None,
    ) -> ReplEnvironment:
        return resolve_maven_environment(
            root, project_path=project_path, source_set=source_set, on_progress=on_progress, on_repl_jars=on_repl_jars
        )

    def recompile(
        self, root: Path, *, project_path: str, source_set: str, on_progress: ProgressCallback | None = None
    ) -> bool:
        root = root.resolve()
        command = recompile_command(find_maven(root), root, find_module(root, project_path), test=source_set == "test")
        outcome = run_streaming(
            command,
            cwd=root,
            timeout_seconds=MAVEN_TIMEOUT_SECONDS,
            on_line=on_progress,
            env=maven_speed.maven_environment(os.environ, root),
        )
        if not outcome.timed_out and outcome.returncode != 0 and is_compile_failure(outcome.lines):
            # The sources don't compile: a full resolve would fail the same way, a second build later.
            raise BuildFailed("Maven build failed:\n" + maven_errors(outcome.lines), started=True)
        return not outcome.timed_out and outcome.returncode == 0


MAVEN = MavenBuild()

# How Maven ends a build whose sources don't compile (kotlin-maven-plugin's and maven-compiler-plugin's goals alike).
_COMPILE_FAILURE = re.compile(r"^\[ERROR\] Failed to execute goal \S+:(test-)?compile \(.*Compilation failure")


# kotlin-maven-plugin reports a Kotlin daemon that could not start or be reached as a "Compilation failure" too.
_DAEMON_FAILURE = re.compile(r"\[ERROR\] (Failed connecting to the daemon|The daemon has terminated unexpectedly)")


def is_compile_failure(lines: list[str]) -> bool:
    """Whether a build failed because the sources don't compile (not, say, an artifact missing offline, or a Kotlin
    daemon that would not start: the full resolve then compiles without one)."""
    return any(_COMPILE_FAILURE.match(line) for line in lines) and not is_daemon_failure(lines)


def is_daemon_failure(lines: list[str]) -> bool:
    """Whether the build's Kotlin daemon could not be reached or died during the compile."""
    return any(_DAEMON_FAILURE.match(line) for line in lines)


def _daemon_could_not_compile(lines: list[str]) -> bool:
    return is_daemon_failure(lines) or any("java.lang.OutOfMemoryError" in line for line in lines)


def _module_name(module: Path, root: Path) -> str:
    return Path(os.path.relpath(module, root)).as_posix()


def find_module(root: Path, project_path: str) -> Path:
    """The module directory project_path names: ':'/'' is the root; else a relative directory or an
    artifactId, with ':' separators accepted as in Gradle (':core' or 'core')."""
    wanted = project_path.strip().strip(":").replace(":", "/")
    if not wanted:
        return root
    modules = pom.modules(root)
    for module in modules:
        if _module_name(module, root) == wanted:
            return module
    for module in modules:
        if pom.artifact_id(module / "pom.xml") == wanted.rsplit("/", 1)[-1]:
            return module
    names = ", ".join(sorted(_module_name(m, root) for m in modules)) or "none"
    raise GradleReplError(f"no Maven module {project_path!r} under {root}; modules: {names}")


def find_maven(root: Path) -> list[str]:
    """The command that runs this build's Maven: its wrapper (mvnw at the root, which pins the Maven version the
    build needs), else `mvn` on PATH."""
    return wrapper_command([root], "mvnw") or [find_mvn()]


def maven_command(
    mvn: list[str], root: Path, module: Path, *, test: bool, extension: Path | None = None, warm_daemon: bool = False
) -> list[str]:
    """One mvn run that compiles the module (and the modules it needs) and reports its classpath and effective
    POM. Given gradle-repl's Maven extension, a main classpath resolves the runtime scope alone. With warm_daemon,
    the compile goes to the Kotlin daemon the edit loop keeps (project/buildtools/kotlin_daemons.py says when)."""
    daemon = maven_speed.daemon_properties() if warm_daemon else None
    command = [
        *_compile_command(mvn, root, module, test=test, daemon=daemon),
        "dependency:build-classpath",
        f"-Dmdep.outputFile={_OUT_DIR}/classpath.txt",
        # maven-dependency-plugin's own property (not mdep.*): runtime is compile + runtime scope.
        f"-DincludeScope={'test' if test else 'runtime'}",
        "help:effective-pom",
        # Absolute: with -pl/-am it runs once, in whichever project the reactor orders first.
        f"-Doutput={root / _OUT_DIR / 'effective-pom.xml'}",
    ]
    if extension is not None and not test:
        command += extension_arguments(extension, "runtime")
    return command


def recompile_command(mvn: list[str], root: Path, module: Path, *, test: bool) -> list[str]:
    """The compile alone, offline: the build files are as when the project was resolved, so every dependency and
    plugin the compile needs is in the local repository already, and the classpath and POM can't have changed. The
    edit loop's compile goes through a Kotlin daemon that stays warm between edits (maven_speed.py)."""
    return [*_compile_command(mvn, root, module, test=test, daemon=maven_speed.daemon_properties()), "-o"]


def _compile_command(
    mvn: list[str], root: Path, module: Path, *, test: bool, daemon: list[str] | None = None
) -> list[str]:
    """mvn, the module (and the modules it needs) and the compile phase, as every run of gradle-repl's invokes them;
    in process unless given the flags of a Kotlin daemon."""
    return [
        *reactor_command(mvn, root, module),
        "-V",
        "test-compile" if test else "compile",
        # kotlin-maven-plugin 2.2.20+ compiles in a Kotlin daemon that outlives the build; in process, nothing stays.
        *(daemon or ["-Dkotlin.compiler.daemon=false"]),
        # ...and in process, 2.2.20's incremental compile doesn't see Java sources in <sourceDirs>: a Kotlin + Java
        # module that `mvn compile` builds fails with "Unresolved reference" to its own Java (tests/projects/
        # maven-mixed). A whole-module compile is what a resolve needs anyway: its classes, as the build makes them.
        "-Dkotlin.compiler.incremental=false",
    ]


def reactor_command(mvn: list[str], root: Path, module: Path) -> list[str]:
    """mvn in batch mode on the build's POM, with the module and the modules it needs."""
    command = [*mvn, "-B", "-f", str(root / "pom.xml")]
    return [*command, "-pl", _module_name(module, root), "-am"] if module != root else command


def _runtime_scope_extension() -> tuple[Path | None, str | None]:
    """The extension that spares a main build the test scope; without it, a warning saying what that costs."""
    try:
        return extension_jar(), None
    except ExtensionUnavailable as error:
        return (
            None,
            f"`main` needs every test-scope dependency to resolve too: gradle-repl's Maven extension could not be built ({error})",
        )


def resolve_maven_environment(
    project_root: Path,
    *,
    project_path: str,
    source_set: str,
    on_progress: ProgressCallback | None = None,
    on_repl_jars: ReplJarsReady | None = None,
) -> ReplEnvironment:
    root = project_root.resolve()
    if not (root / "pom.xml").is_file():
        raise BuildToolNotFound(f"no pom.xml in {root}")
    if source_set not in ("main", "test"):
        raise GradleReplError(f"Maven projects have the source sets 'main' and 'test', not {source_set!r}")
    module = find_module(root, project_path)
    test = source_set == "test"
    extension, no_extension = (None, None) if test else _runtime_scope_extension()
    mvn = find_maven(root)
    environment = maven_speed.maven_environment(os.environ, root)
    warm_daemon = kotlin_daemons.warm_daemon_running(
        kotlin_daemons.maven_daemon_run_files(environment, maven_speed.jvm_config(root))
    )

    def kotlin_of(effective: Path) -> pom.KotlinSettings:
        return pom.kotlin_settings(pom.effective_project(effective, module), test=test)

    first_run = first_run_fetch(
        root,
        reactor_command(mvn, root, module),
        environment,
        lambda effective: first_run_jar_requests(kotlin_of(effective)),
        None if on_repl_jars is None else _handed_over(root, kotlin_of, on_repl_jars),
    )
    on_line = on_progress if first_run is None else _both(first_run.on_line, on_progress)

    def build(daemon: bool) -> ProcessOutcome:
        # Outputs of an earlier run (or of the attempt in the daemon) must never be mistaken for this run's.
        for directory in {root / _OUT_DIR, module / _OUT_DIR}:
            shutil.rmtree(directory, ignore_errors=True)
        command = maven_command(mvn, root, module, test=test, extension=extension, warm_daemon=daemon)
        return run_streaming(command, cwd=root, timeout_seconds=MAVEN_TIMEOUT_SECONDS, on_line=on_line, env=environment)

    daemon = warm_daemon
    outcome = build(daemon)
    if daemon and outcome.returncode != 0 and not outcome.timed_out and _daemon_could_not_compile(outcome.lines):
        # The daemon the client chose could not be started or reached, died, or ran out of its heap (1 GB against the
        # Maven JVM's quarter of RAM in process): in process needs none of it.
        if on_progress is not None:
            on_progress("the Kotlin daemon could not compile the module: building again in process")
        daemon = False
        outcome = build(daemon)
    # Left empty by another Maven run fetching it at the same time (maven_repository.py): fetched again, once. Also
    # after a build that passed: an empty dependency POM only drops that dependency's own from the classpath.
    repository = local_repository(environment)
    if not outcome.timed_out and removed_empty_downloads(
        outcome.lines, repository, on_progress, again="building again"
    ):
        outcome = build(daemon)
    if first_run is not None and (outcome.timed_out or outcome.returncode != 0):
        first_run.cancel()
    if outcome.timed_out:
        raise BuildFailed(f"Maven did not finish within {MAVEN_TIMEOUT_SECONDS:g} s")
    if outcome.returncode != 0:
        # Until a plugin goal runs ("[INFO] --- plugin:version:goal ..."), Maven itself is what failed.
        started = any(line.startswith("[INFO] --- ") for line in outcome.lines)
        cost = f"\n({no_extension})" if no_extension else ""
        raise BuildFailed("Maven build failed:\n" + maven_errors(outcome.lines) + cost, started=started)
    classpath_file = module / _OUT_DIR / "classpath.txt"
    if not classpath_file.is_file():
        raise BuildFailed(f"Maven finished but wrote no classpath to {classpath_file}")
    dependencies = [p for p in classpath_file.read_text(encoding="utf-8").strip().split(os.pathsep) if p]
    effective = root / _OUT_DIR / "effective-pom.xml"
    if not effective.is_file():
        raise BuildFailed("Maven finished but wrote no effective POM")
    project = pom.effective_project(effective, module)
    outputs = pom.output_dirs(project, module, test=test)
    kotlin = pom.kotlin_settings(project, test=test)
    java_home = _java_home(outcome.lines)
    repl_version, too_old = repl_kotlin_version(kotlin.version)
    if first_run is not None:
        first_run.wait(on_progress)  # it has fetched these jars, or is fetching them: asked again, they'd come twice
    jars = resolve_jars(repl_jar_requests(kotlin), on_progress=on_progress)
    return ReplEnvironment(
        build_tool="maven",
        project_root=str(root),
        project_path=project_path,
        source_set=source_set,
        project_dir=str(module),
        java_home=java_home,
        java_executable=_java_executable(java_home),
        kotlin_version=repl_version,
        project_kotlin_version=kotlin.version if too_old else None,
        jvm_target=kotlin.jvm_target,
        classpath=[str(p) for p in outputs] + dependencies,
        compiler_plugin_classpath=_plugin_jars(jars),
        compiler_plugin_options=kotlin.plugin_options,
        compiler_args=kotlin.args,
        repl_host_classpath=jars.by_request["host"],
        warnings=kotlin.warnings
        + ([no_extension] if no_extension else [])
        + _aggregator_warning(project, module, root),
        repositories=pom.repositories(project),
        input_dirs=[d for reactor in _reactor_projects(effective) for d in pom.source_dirs(reactor)],
        test_settings=surefire.surefire_settings(project, str(module)) if test else None,
        edit_sources=pom.edit_sources(project, module, outputs, test=test),
    )


def _both(first: Callable[[str], None], then: ProgressCallback | None) -> ProgressCallback:
    """A line callback that hands each line to `first`, then to `then` (when given)."""

    def both(line: str) -> None:
        first(line)
        if then is not None:
            then(line)

    return both


def _plugin_artifacts(kotlin: pom.KotlinSettings) -> list[str]:
    """The compiler plugins' artifacts the build applies, each once."""
    return sorted(
        {pom.PLUGINS[name][0] for name in kotlin.plugins if name in pom.PLUGINS} | set(kotlin.plugin_artifacts)
    )


def _handed_over(
    root: Path, kotlin_of: Callable[[Path], pom.KotlinSettings], on_repl_jars: ReplJarsReady
) -> JarsFetched:
    """What a first run's fetch calls with its jars: they go to `on_repl_jars` as an environment of the build's JDK,
    the REPL's Kotlin and its jars, while the build still runs."""

    def fetched(effective: Path, jars: list[ResolvedJars], banner: list[str]) -> None:
        repl, resolver = jars  # first_run_jar_requests' order
        try:
            java_home = _java_home(banner)
        except BuildFailed:
            return  # no JDK to name: the session's worker compiles what it needs, as it would have
        on_repl_jars(
            ReplEnvironment(
                build_tool="maven",
                project_root=str(root),
                java_home=java_home,
                java_executable=_java_executable(java_home),
                kotlin_version=repl_kotlin_version(kotlin_of(effective).version)[0],
                repl_host_classpath=repl.by_request["host"],
                compiler_plugin_classpath=_plugin_jars(repl),
                dependency_resolver_classpath=resolver.by_request["resolver"],
            )
        )

    return fetched


def _java_executable(java_home: str) -> str:
    return str(Path(java_home) / "bin" / "java")


def _plugin_jars(jars: ResolvedJars) -> list[str]:
    """The compiler plugins' jars among what repl_jar_requests asked for: every request but the REPL host's, in order."""
    return [jar for name, group in jars.by_request.items() if name != "host" for jar in group]


def first_run_jar_requests(kotlin: pom.KotlinSettings) -> list[dict[str, list[Coordinate]]]:
    """What a resolve asks the toolchain for after its build, request by request: the REPL's jars (below), then
    @file:DependsOn's resolver (resolve.py, through add_dependency_resolver) at the REPL's Kotlin version."""
    repl_version, _ = repl_kotlin_version(kotlin.version)
    return [repl_jar_requests(kotlin), dependency_resolver_request(repl_version)]


def repl_jar_requests(kotlin: pom.KotlinSettings) -> dict[str, list[Coordinate]]:
    """The REPL host's jars and each compiler plugin's, by name. Every plugin is resolved at the REPL's Kotlin version:
    the same as the project's, or the pinned one (plugin_support.load_plugins_at_repl_version says so for both build
    tools)."""
    repl_version, _ = repl_kotlin_version(kotlin.version)
    requests = {"host": repl_host_coordinates(repl_version)}
    for artifact in _plugin_artifacts(kotlin):
        requests[artifact] = [Coordinate("org.jetbrains.kotlin", artifact, repl_version, transitive=False)]
    return requests


def _aggregator_warning(project: ET.Element, module: Path, root: Path) -> list[str]:
    """A POM that only aggregates modules has no classes of its own: its session would hold none of theirs."""
    if pom.packaging(project) != "pom":
        return []
    names = [_module_name(m, root) for m in pom.modules(module)]
    if not names:
        return []
    return [
        (
            f"{_module_name(module, root) if module != root else 'the root POM'} only aggregates modules "
            f"({', '.join(names[:8])}{', …' if len(names) > 8 else ''}): this session has none of their classes. "
            "Pass projectPath (--project) naming the module to work in"
        )
    ]


def _reactor_projects(effective: Path) -> list[ET.Element]:
    root = pom.parse(effective)
    return [root] if root.tag == "project" else root.findall("project")


def maven_errors(lines: list[str]) -> str:
    """Maven's [ERROR] lines as it printed them, footer dropped (the shared rule in process.failure_text)."""
    errors = [
        _HELP_POINTER.sub("", line.removeprefix("[ERROR]").removeprefix(" ").rstrip())
        for line in lines
        if line.startswith("[ERROR]")
    ]
    return failure_text(errors, lines, boilerplate=_MAVEN_BOILERPLATE)


def _java_home(lines: list[str]) -> str:
    """The JDK running Maven, from `mvn -V` ("Java version: 17.0.15, vendor: …, runtime: /path")."""
    for line in lines:
        match = re.search(r"runtime: (.+)$", line)
        if line.startswith("Java version:") and match:
            return match.group(1).strip()
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        return java_home
    raise BuildFailed("could not tell which JDK Maven runs on; set JAVA_HOME")
