"""Where the facade and its add-ons are cached, and which of them a worker would still have to compile at its start.

No JPype here: the host asks it too, to start a preparing worker only when there is something to compile
(host/preparation.py). The jars are built by facade.py, in a worker.
"""

from __future__ import annotations

from pathlib import Path

from gradle_repl.environment import ReplEnvironment, is_plugin_jar
from gradle_repl.paths import cache_dir
from gradle_repl.resources import (
    jvm_worker_both_sources,
    jvm_worker_class_phases_sources,
    jvm_worker_completion_sources,
    jvm_worker_dependency_sources,
    jvm_worker_sources,
)
from gradle_repl.worker.artifacts.java_jars import sources_hash

__all__ = [
    "BOTH_RELEASE",
    "facade_jar_path",
    "dependency_addon_path",
    "class_phases_addon_path",
    "completion_addon_path",
    "addon_path",
    "failure_note",
    "has_compiler_plugins",
    "jars_to_compile",
]

# The Java release the shared rules (jvm-worker/runs-in-both) are compiled for in the facade: the oldest JDK a session runs on.
BOTH_RELEASE = "11"


def facade_jar_path(kotlin_version: str) -> Path:
    digest = sources_hash([*jvm_worker_sources(), *jvm_worker_both_sources()], BOTH_RELEASE)
    return cache_dir() / "facade" / f"jvm-worker-{kotlin_version}-{digest}.jar"


def dependency_addon_path(kotlin_version: str) -> Path:
    """Where the @file:DependsOn add-on for this Kotlin version is cached."""
    return addon_path("dependencies", jvm_worker_dependency_sources(), kotlin_version)


def class_phases_addon_path(kotlin_version: str) -> Path:
    """Where the class-phases add-on for this Kotlin version is cached (and, beside it, why it did not compile)."""
    return addon_path("classphases", jvm_worker_class_phases_sources(), kotlin_version)


def completion_addon_path(kotlin_version: str) -> Path:
    """Where the completion add-on for this Kotlin version is cached (and, beside it, why it did not compile)."""
    return addon_path("completion", jvm_worker_completion_sources(), kotlin_version)


def addon_path(name: str, sources: list[Path], kotlin_version: str) -> Path:
    """Where an add-on compiled against the facade is cached: named by its sources and the facade's, which it links to."""
    return (
        cache_dir()
        / "facade"
        / f"jvm-worker-{name}-{kotlin_version}-{sources_hash(sources + jvm_worker_sources())}.jar"
    )


def failure_note(jar: Path) -> Path:
    """Beside an add-on's jar: why it did not compile, for an add-on whose failure is remembered (facade.py)."""
    return jar.with_name(f"{jar.name}.failed")


def has_compiler_plugins(environment: ReplEnvironment) -> bool:
    """Whether a session of this environment compiles with compiler plugins, whose generated companions a session
    without the class-phases add-on reaches through `.Companion` only (worker/repl/class_phases.py)."""
    return any(is_plugin_jar(jar) for jar in environment.compiler_plugin_classpath)


def jars_to_compile(environment: ReplEnvironment) -> list[Path]:
    """The jars a session's worker of this environment compiles at its start that are not cached yet: the facade, the
    @file:DependsOn add-on (with the resolver), the class-phases add-on (every session's). An add-on whose failure is
    remembered counts as done: no start compiles it again."""
    version = environment.kotlin_version
    wanted = [facade_jar_path(version)]
    if environment.dependency_resolver_classpath:
        wanted.append(dependency_addon_path(version))
    wanted.append(class_phases_addon_path(version))
    return [jar for jar in wanted if not (jar.is_file() or failure_note(jar).is_file())]
