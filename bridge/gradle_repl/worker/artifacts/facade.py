"""Builds the jvm-worker facade with the session's own Kotlin compiler, once per version.

No binary is shipped: the sources are compiled in this JVM by the resolved compiler and cached
per (Kotlin version, source hash). Each compile writes a private temporary jar and renames it into
place, so two workers compiling at once never see a half-written jar.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from gradle_repl.errors import WorkerFailed
from gradle_repl.paths import cache_dir
from gradle_repl.resources import (
    jvm_worker_attached_spring_sources,
    jvm_worker_both_sources,
    jvm_worker_class_phases_sources,
    jvm_worker_completion_sources,
    jvm_worker_compose_sources,
    jvm_worker_dependency_sources,
    jvm_worker_junit_sources,
    jvm_worker_sources,
)
from gradle_repl.worker.artifacts.facade_jars import (
    BOTH_RELEASE,
    class_phases_addon_path,
    completion_addon_path,
    dependency_addon_path,
    facade_jar_path,
    failure_note,
)
from gradle_repl.worker.artifacts.java_jars import build_java_jar, sources_hash
from gradle_repl.worker.java import java_class, string_array

__all__ = [
    "build_facade",
    "build_dependency_addon",
    "build_compose_addon",
    "build_completion_addon",
    "build_class_phases_addon",
    "first_compile_error",
    "build_spring_addon",
    "build_junit_addon",
]


def build_facade(kotlin_version: str, compile_classpath: list[str]) -> tuple[Path, bool]:
    """The facade jar for this Kotlin version, and whether this call had to compile it. The rules both JVM sides share
    (jvm-worker/runs-in-both) are compiled first with this JVM's own javac, the facade's Kotlin against them, and
    their classes then go into the facade's jar: one jar, as before."""
    target = facade_jar_path(kotlin_version)
    if target.is_file():
        return target, False
    both = both_jar()
    return _build(target, jvm_worker_sources(), [*compile_classpath, str(both)], kotlin_version, "facade", merged=both)


def both_jar() -> Path:
    """The shared rules' classes (jvm-worker/runs-in-both), compiled with the javac of the JDK this worker runs on."""
    sources = jvm_worker_both_sources()
    target = cache_dir() / "facade" / f"runs-in-both-{sources_hash(sources, BOTH_RELEASE)}.jar"
    java_home = str(java_class("java.lang.System").getProperty("java.home"))
    return build_java_jar(
        target,
        sources,
        java_home=java_home,
        release=BOTH_RELEASE,
        manifest="Manifest-Version: 1.0\r\n\r\n",
        what="the rules both JVM sides share (jvm-worker/runs-in-both)",
    )


def build_dependency_addon(kotlin_version: str, compile_classpath: list[str]) -> tuple[Path, bool]:
    """The @file:DependsOn add-on (compiled against the facade and Kotlin scripting's Maven resolver)."""
    return _build(
        dependency_addon_path(kotlin_version),
        jvm_worker_dependency_sources(),
        compile_classpath,
        kotlin_version,
        "facade's @file:DependsOn add-on",
    )


def build_compose_addon(
    kotlin_version: str, compile_classpath: list[str], compose_plugin: str, jvm_target: str
) -> tuple[Path, bool]:
    """The Compose add-on (renderComposable), compiled with the Compose compiler plugin against the project's own
    Compose: one jar per Kotlin version, plugin and classpath (the jars' names carry their versions)."""
    sources = jvm_worker_compose_sources()
    names = [Path(entry).name for entry in compile_classpath]
    key = sources_hash(sources, Path(compose_plugin).name, jvm_target, *names)
    target = cache_dir() / "facade" / f"jvm-worker-compose-{kotlin_version}-{key}.jar"
    # Its own module name: the compiler finds top-level functions through each jar's META-INF/<module>.kotlin_module.
    options = [
        f"-Xplugin={compose_plugin}",
        "-jvm-target",
        jvm_target,
        "-module-name",
        "gradle-repl-jvm-worker-compose",
    ]
    return _build(target, sources, compile_classpath, kotlin_version, "facade's Compose add-on", options)


def build_junit_addon(kotlin_version: str, compile_classpath: list[str]) -> tuple[Path, bool]:
    """The test runner, compiled against the project's JUnit Platform launcher and engine API: one jar per Kotlin version
    and classpath (the jars' names carry their versions)."""
    sources = jvm_worker_junit_sources()
    key = sources_hash(sources, *(Path(entry).name for entry in compile_classpath))
    target = cache_dir() / "facade" / f"jvm-worker-junit-{kotlin_version}-{key}.jar"
    options = ["-jvm-target", "1.8", "-module-name", "gradle-repl-jvm-worker-junit"]
    return _build(target, sources, compile_classpath, kotlin_version, "facade's test runner", options)


def build_spring_addon(kotlin_version: str, compile_classpath: list[str]) -> tuple[Path, bool]:
    """The Spring helpers of attached sessions, compiled against the app's Spring: one jar per Kotlin version and
    classpath (the jars' names carry their versions)."""
    sources = jvm_worker_attached_spring_sources()
    key = sources_hash(sources, *(Path(entry).name for entry in compile_classpath))
    target = cache_dir() / "facade" / f"jvm-worker-attached-spring-{kotlin_version}-{key}.jar"
    options = ["-jvm-target", "1.8", "-module-name", "gradle-repl-jvm-worker-attached-spring"]
    return _build(target, sources, compile_classpath, kotlin_version, "Spring helpers of attached sessions", options)


def build_completion_addon(kotlin_version: str, compile_classpath: list[str]) -> tuple[Path, bool]:
    """The completion add-on (compiled against the facade and the compiler's FIR, with context parameters on: the
    FIR checker API declares them)."""
    return _build(
        completion_addon_path(kotlin_version),
        jvm_worker_completion_sources(),
        compile_classpath,
        kotlin_version,
        "facade's completion add-on",
        ["-jvm-target", "1.8", "-module-name", "gradle-repl-jvm-worker-completion", "-Xcontext-parameters"],
        remember_failure=True,
    )


def build_class_phases_addon(kotlin_version: str, compile_classpath: list[str]) -> tuple[Path, bool]:
    """The add-on that gives a snippet's classes what the compiler's whole-file passes skip in a snippet (compiled
    against the facade and the compiler's FIR; a Kotlin whose FIR it doesn't fit is remembered, as for completion)."""
    return _build(
        class_phases_addon_path(kotlin_version),
        jvm_worker_class_phases_sources(),
        compile_classpath,
        kotlin_version,
        "facade's class-phases add-on",
        ["-jvm-target", "1.8", "-module-name", "gradle-repl-jvm-worker-class-phases"],
        remember_failure=True,
    )


def first_compile_error(message: str) -> str:
    """The compiler's first error line in a failed add-on compile's message, else the message's first line."""
    for line in message.splitlines():
        if "error:" in line:
            return line.strip()
    return message.splitlines()[0] if message else "no message"


def lasting_failure(exit_code: str) -> bool:
    """Whether a compile that ended with this ExitCode fails the same way on every later try: only the compiler's
    verdict on the sources (COMPILATION_ERROR) does; an internal error (an OutOfMemoryError, a crash) may pass the
    next time and is not remembered."""
    return exit_code == "COMPILATION_ERROR"


def _build(
    target: Path,
    sources: list[Path],
    compile_classpath: list[str],
    kotlin_version: str,
    what: str,
    options: list[str] | None = None,
    *,
    remember_failure: bool = False,
    merged: Path | None = None,
) -> tuple[Path, bool]:
    """With remember_failure, a compile that failed is not tried again for these sources and this Kotlin version
    (an optional add-on whose compiler API this Kotlin lacks: every later start would fail the same way). The classes
    of a `merged` jar are added to the compiled jar before it is moved into place."""
    if target.is_file():
        return target, False
    target.parent.mkdir(parents=True, exist_ok=True)
    # Workers that start at once on one Kotlin version (a new machine's first sessions, the suite's xdist workers)
    # compile it once: the others wait for the first's jar instead of compiling the same one beside it.
    from filelock import FileLock  # only past a cache miss: ~25 ms of every worker's start otherwise

    with FileLock(target.with_name(f"{target.name}.lock"), thread_local=False):
        if target.is_file():
            return target, False
        failed = failure_note(target)
        if remember_failure and failed.is_file():
            raise WorkerFailed(failed.read_text(encoding="utf-8"))
        return _compile(
            target,
            sources,
            compile_classpath,
            kotlin_version,
            what,
            options,
            failed if remember_failure else None,
            merged,
        )


def _compile(
    target: Path,
    sources: list[Path],
    compile_classpath: list[str],
    kotlin_version: str,
    what: str,
    options: list[str] | None,
    failed: Path | None,
    merged: Path | None,
) -> tuple[Path, bool]:
    temporary = target.with_name(f"{target.stem}.{os.getpid()}.tmp.jar")
    compiler = java_class("org.jetbrains.kotlin.cli.jvm.K2JVMCompiler")()
    messages = java_class("java.io.ByteArrayOutputStream")()
    stream = java_class("java.io.PrintStream")(messages, True, "UTF-8")
    args = [
        "-no-stdlib",
        "-no-reflect",
        *(options or ["-jvm-target", "1.8", "-module-name", "gradle-repl-jvm-worker"]),
        "-classpath",
        os.pathsep.join(compile_classpath),
        "-d",
        str(temporary),
        *map(str, sources),
    ]
    # JPype renames Java methods that clash with Python keywords: exec → exec_.
    exit_code = str(compiler.exec_(stream, string_array(args)).name())
    if exit_code != "OK" or not temporary.is_file():
        temporary.unlink(missing_ok=True)
        message = f"could not compile the jvm-worker {what} with Kotlin {kotlin_version}:\n{messages.toString('UTF-8')}"
        if failed is not None and lasting_failure(exit_code):
            failed.write_text(message, encoding="utf-8")
        raise WorkerFailed(message)
    if merged is not None:
        with zipfile.ZipFile(merged) as extra, zipfile.ZipFile(temporary, "a", zipfile.ZIP_DEFLATED) as jar:
            for entry in extra.namelist():
                if entry.endswith(".class"):
                    jar.writestr(entry, extra.read(entry))
    os.replace(temporary, target)
    return target, True
