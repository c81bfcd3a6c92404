"""Finds the files gradle-repl ships beside its code: the init script, the Maven extension's and the jvm-worker's sources.

In a wheel they sit inside the package; in a source checkout they sit at the repository root.
"""

import hashlib
import os
from pathlib import Path

from gradle_repl.display_kinds import java_source
from gradle_repl.environment import init_script_declarations
from gradle_repl.paths import cache_dir

__all__ = [
    "init_script_path",
    "maven_extension_sources",
    "jvm_worker_sources",
    "jvm_worker_facade_source",
    "jvm_worker_dependency_sources",
    "jvm_worker_compose_sources",
    "jvm_worker_junit_sources",
    "jvm_worker_completion_sources",
    "jvm_worker_class_phases_sources",
    "jvm_worker_class_updates_sources",
    "jvm_worker_attach_agent_sources",
    "jvm_worker_attached_spring_sources",
    "jvm_worker_both_sources",
    "jvm_worker_both_source",
    "sample_project_source",
]

_PACKAGE_DIR = Path(__file__).resolve().parent


def _shipped(name: str) -> Path:
    for candidate in (_PACKAGE_DIR / name, _PACKAGE_DIR.parent.parent / name):
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"gradle-repl is installed without its {name!r} data; reinstall the package")


def _sources(shipped: str, folder: str, pattern: str) -> list[Path]:
    """The files matching pattern under one shipped folder, sorted: the order their content hashes and builds read."""
    return sorted((_shipped(shipped) / folder).rglob(pattern))


# The shipped init script's line that the marker's keys are written in place of.
_MARKER_KEYS_LINE = "// gradle-repl: the marker's keys\n"


def init_script_path() -> Path:
    """The Gradle init script that prints the REPL environment markers: the shipped one with the marker and its keys
    written in (environment.init_script_declarations), in the cache under a directory named for its content."""
    shipped = (_shipped("resources") / "repl-env.init.gradle.kts").read_text(encoding="utf-8")
    if shipped.count(_MARKER_KEYS_LINE) != 1:
        raise FileNotFoundError(
            f"gradle-repl's init script has no {_MARKER_KEYS_LINE.strip()!r} line; reinstall the package"
        )
    return _generated("repl-env.init.gradle.kts", shipped.replace(_MARKER_KEYS_LINE, init_script_declarations()))


def maven_extension_sources() -> list[Path]:
    """The Java sources of the Maven core extension that narrows dependency:build-classpath's resolution."""
    return _sources("resources", "maven-extension", "*.java")


def jvm_worker_sources() -> list[Path]:
    """The Kotlin sources of the JVM-side facade, in a stable order."""
    return _sources("jvm-worker", "runs-in-worker/facade", "*.kt")


def jvm_worker_facade_source(name: str) -> Path:
    """One of the facade's Kotlin sources by its file name (MangledBodyEvaluation.kt), for a rule the Python side reads."""
    return next(path for path in jvm_worker_sources() if path.name == name)


def jvm_worker_dependency_sources() -> list[Path]:
    """The facade's @file:DependsOn add-on, built only where Kotlin scripting's Maven resolver is at hand."""
    return _sources("jvm-worker", "runs-in-worker/dependencies", "*.kt")


def jvm_worker_compose_sources() -> list[Path]:
    """The facade's Compose add-on (renderComposable), built only for projects with Compose UI for the JVM."""
    return _sources("jvm-worker", "runs-in-worker/compose", "*.kt")


def jvm_worker_junit_sources() -> list[Path]:
    """The facade's test runner (the JUnit Platform Launcher), built only for sessions whose classpath has a JUnit Platform engine."""
    return _sources("jvm-worker", "runs-in-worker/junit", "*.kt")


def jvm_worker_completion_sources() -> list[Path]:
    """The facade's completion add-on: reads the K2 compiler's FIR, whose API moves between Kotlin releases."""
    return _sources("jvm-worker", "runs-in-worker/completion", "*.kt")


def jvm_worker_class_phases_sources() -> list[Path]:
    """The facade's add-on that gives snippet classes what the compiler's whole-file passes skip in a snippet: a
    plugin's generated companion, a sealed class's inheritors (reads the FIR too)."""
    return _sources("jvm-worker", "runs-in-worker/class-phases", "*.kt")


def jvm_worker_class_updates_sources() -> list[Path]:
    """The Java sources of the session JVM's instrumentation agent (in-place class updates), built with the JDK's javac."""
    return _sources("jvm-worker", "runs-in-worker/class-updates", "*.java")


def jvm_worker_attach_agent_sources() -> list[Path]:
    """The Java sources of the agent an attached session loads into a running application (plain Java, no dependencies)."""
    return _sources("jvm-worker", "runs-in-app/agent", "*.java")


def jvm_worker_both_sources() -> list[Path]:
    """The rules both JVM sides need (snippet evaluation, the output limit's cut, images, a value's text), dependency-free
    Java compiled into the worker's facade and into the attach agent; with them the display kinds' class, generated
    from display_kinds.py's table."""
    return sorted([*_sources("jvm-worker", "runs-in-both", "*.java"), _generated_display_kinds()])


def jvm_worker_both_source(name: str) -> Path:
    """One of the shared rules' Java sources by its file name (SnippetBody.java), for a rule the Python side reads."""
    return _shipped("jvm-worker") / "runs-in-both" / "gradlerepl" / "both" / name


def _generated_display_kinds() -> Path:
    """DisplayKinds.java as display_kinds.java_source() makes it (javac wants the file named for its class)."""
    return _generated("gradlerepl/both/DisplayKinds.java", java_source())


def _generated(name: str, text: str) -> Path:
    """A file gradle-repl generates, in the cache under a directory named for its content; written once, to a
    temporary file first, then renamed."""
    path = cache_dir() / "generated" / hashlib.sha256(text.encode()).hexdigest()[:16] / name
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    return path


def jvm_worker_attached_spring_sources() -> list[Path]:
    """The Spring helpers of sessions attached to a Spring Boot app (bean<T>(), applicationContext): inline functions,
    compiled against the app's Spring, on the snippets' compile classpath only."""
    return _sources("jvm-worker", "runs-in-app/spring", "*.kt")


def sample_project_source() -> Path:
    """The demo's sample project (sources and build files only): `gradle-repl demo` builds a copy of it."""
    return _shipped("sample-project")
