"""Fetches Kotlin jars from Maven repositories through `mvn`, cached in ~/.m2.

Used by the Maven resolver for the REPL host and compiler plugin jars at a project's Kotlin
version, and by the tests for the same jars the Gradle init script would resolve.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from gradle_repl.errors import BuildFailed, BuildToolNotFound
from gradle_repl.paths import cache_dir
from gradle_repl.project.maven_repository import local_repository, removed_empty_downloads
from gradle_repl.project.process import ProgressCallback, run_streaming

__all__ = [
    "PINNED_KOTLIN_VERSION",
    "KOTLINX_SERIALIZATION_VERSION",
    "REPL_HOST_ARTIFACTS",
    "dependency_resolver_coordinates",
    "Coordinate",
    "ResolvedJars",
    "resolve_jars",
    "find_mvn",
    "repl_kotlin_version",
    "kotlin_version_tuple",
    "has_usable_repl",
    "kotlin_policy_properties",
]

# The one place the Kotlin version used by the tests is pinned; it is also the version the REPL
# host uses for projects that don't apply a Kotlin plugin (the init script gets it from kotlin_policy_properties).
# sample-project states it too, and a test keeps them equal.
PINNED_KOTLIN_VERSION = "2.3.21"
KOTLINX_SERIALIZATION_VERSION = "1.9.0"
# The K2 REPL first ships in Kotlin 2.1, but 2.1's can't see classpath directories and crashes on a
# snippet's @Serializable class; 2.2 is the first usable one.
MINIMUM_REPL_KOTLIN = (2, 2, 0)
# The REPL host: the K2 REPL compiler/evaluator and the compiler they drive, all "-embeddable" so
# they pair with the embeddable compiler plugins the builds themselves use.
REPL_HOST_ARTIFACTS = (
    "kotlin-scripting-compiler-embeddable",
    "kotlin-compiler-embeddable",
    "kotlin-scripting-jvm",
)
# @file:DependsOn: its annotations and Kotlin scripting's Maven resolver. Optional: a session without them
# works, and says so when a snippet asks for a library.
DEPENDENCY_RESOLVER_ARTIFACTS = ("kotlin-scripting-dependencies", "kotlin-scripting-dependencies-maven")
# kotlin-scripting-dependencies-maven needs maven-resolver-impl 1.9.x, but its maven-core 3.8 dependency
# brings resolver-api/spi/util 1.6, which Maven's nearest-first mediation would pick (Gradle, which built
# it, picks the highest): pinned to the impl's version.
_MAVEN_RESOLVER = ("maven-resolver-api", "maven-resolver-spi", "maven-resolver-util")
MAVEN_RESOLVER_VERSION = "1.9.22"
SLF4J_VERSION = "1.7.36"
# Resolving with mvn may download; it never needs longer than this on a working network.
MVN_TIMEOUT_SECONDS = 900.0


@dataclass(frozen=True)
class Coordinate:
    group: str
    artifact: str
    version: str
    transitive: bool = True
    # A Maven classifier: Gradle plugins publish one jar per Gradle API level (e.g. "gradle85") that Maven,
    # which doesn't read Gradle's variant metadata, can only pick by name.
    classifier: str | None = None

    def xml(self) -> str:
        exclusions = (
            "<exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>"
            if not self.transitive
            else ""
        )
        return (
            f"<dependency><groupId>{escape(self.group)}</groupId><artifactId>{escape(self.artifact)}</artifactId>"
            f"<version>{escape(self.version)}</version>"
            f"{f'<classifier>{escape(self.classifier)}</classifier>' if self.classifier else ''}{exclusions}</dependency>"
        )


@dataclass(frozen=True)
class ResolvedJars:
    """Jars per requested coordinate (with its transitive dependencies when asked), in order."""

    by_request: dict[str, list[str]]

    def all(self) -> list[str]:
        seen: dict[str, None] = {}
        for jars in self.by_request.values():
            seen.update(dict.fromkeys(jars))
        return list(seen)


def find_mvn() -> str:
    found = shutil.which("mvn")
    if not found:
        raise BuildToolNotFound("Maven (mvn) is not on PATH; install Maven 3.6+ (e.g. `apt-get install maven`)")
    return found


def resolve_jars(
    requests: dict[str, list[Coordinate]],
    *,
    on_progress: ProgressCallback | None = None,
) -> ResolvedJars:
    """Resolves each named group of coordinates to jar paths, from a cache file when done before.

    Each group gets its own classpath, so a plugin jar (non-transitive) never drags in a second
    compiler.
    """
    key = hashlib.sha256(repr(sorted((k, v) for k, v in requests.items())).encode()).hexdigest()[:20]
    work = cache_dir() / "toolchain" / key
    results = {name: work / f"{name}.classpath" for name in requests}
    if all(_valid_classpath(path) for path in results.values()):
        return ResolvedJars({name: _read_classpath(path) for name, path in results.items()})
    work.mkdir(parents=True, exist_ok=True)

    def resolve(name: str, coordinates: list[Coordinate]) -> None:
        module = work / name
        module.mkdir(exist_ok=True)
        # Another process or thread resolving the same request (a second session, the suite's prefetch) may be running
        # Maven on this pom: it is replaced whole, never rewritten under a reader.
        own = f"{os.getpid()}.{threading.get_ident()}"
        pom = module / f"pom.{own}.tmp"
        pom.write_text(_pom(name, coordinates), encoding="utf-8")
        os.replace(pom, module / "pom.xml")
        temporary = module / f"classpath.{own}.tmp"
        command = [find_mvn(), "-B", "-q", "dependency:build-classpath", f"-Dmdep.outputFile={temporary}"]
        outcome = run_streaming(command, cwd=module, timeout_seconds=MVN_TIMEOUT_SECONDS, on_line=on_progress)
        # A download a Maven run beside this one left empty (maven_repository.py) is fetched again, once: named in a
        # failed run's errors, or the empty POM of a jar on the classpath a quiet run built without its dependencies.
        built = _read_classpath(temporary) if outcome.returncode == 0 and temporary.is_file() else []
        repository = local_repository(os.environ)
        if not outcome.timed_out and removed_empty_downloads(
            outcome.lines, repository, on_progress, again="resolving again", classpath=built
        ):
            outcome = run_streaming(command, cwd=module, timeout_seconds=MVN_TIMEOUT_SECONDS, on_line=on_progress)
        if outcome.returncode != 0 or not temporary.is_file():
            wanted = ", ".join(f"{c.group}:{c.artifact}:{c.version}" for c in coordinates)
            errors = [line for line in outcome.lines if "ERROR" in line][:15]
            raise BuildFailed(f"Maven could not resolve {wanted}:\n" + "\n".join(errors or outcome.lines[-15:]))
        os.replace(temporary, results[name])

    # One Maven run per group, all at once: on an empty local repository each is mostly waiting on downloads. Daemon
    # threads: a process that is exiting never waits for them (each run ends with it, under the build guard).
    failures: list[BaseException] = []

    def run(name: str, coordinates: list[Coordinate]) -> None:
        try:
            resolve(name, coordinates)
        except BaseException as error:  # noqa: BLE001 - raised again on the caller's thread
            failures.append(error)

    runs = [threading.Thread(target=run, args=item, daemon=True, name="toolchain") for item in requests.items()]
    for thread in runs:
        thread.start()
    for thread in runs:
        thread.join()
    if failures:
        raise failures[0]
    return ResolvedJars({name: _read_classpath(path) for name, path in results.items()})


def _valid_classpath(path: Path) -> bool:
    """A cached classpath whose jars are all there, none of them empty (a download left so: maven_repository.py)."""
    return path.is_file() and all(_whole(jar) for jar in _read_classpath(path))


def _whole(jar: str) -> bool:
    try:
        return os.stat(jar).st_size > 0
    except OSError:
        return False


def _read_classpath(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8").strip()
    return text.split(os.pathsep) if text else []


def _pom(name: str, coordinates: list[Coordinate]) -> str:
    dependencies = "".join(c.xml() for c in coordinates)
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        f"<groupId>gradle-repl.toolchain</groupId><artifactId>{escape(name)}</artifactId><version>1</version>"
        f"<packaging>pom</packaging><dependencies>{dependencies}</dependencies></project>\n"
    )


def kotlin_version_tuple(version: str) -> tuple[int, int, int]:
    """(major, minor, patch) of a Kotlin version such as 2.2.21 or 2.3.0-Beta1, split at '.' and '-'; a part counts
    when it is one to nine ASCII digits (a JVM Int), else as 0. The init script's KotlinVersions.atLeast follows the
    same rule (tests/jvm/test_init_script_api.py runs one table through both)."""
    parts = [
        int(p) if p.isascii() and p.isdigit() and len(p) <= 9 else 0 for p in version.replace("-", ".").split(".")[:3]
    ]
    major, minor, patch = [*parts, 0, 0, 0][:3]
    return major, minor, patch


def has_usable_repl(version: str) -> bool:
    """Whether Kotlin `version` ships a usable K2 REPL (MINIMUM_REPL_KOTLIN or later)."""
    return kotlin_version_tuple(version) >= MINIMUM_REPL_KOTLIN


def repl_kotlin_version(project_version: str) -> tuple[str, str | None]:
    """The Kotlin the REPL runs for a project, and a warning when it can't be the project's own."""
    if has_usable_repl(project_version):
        return project_version, None
    return PINNED_KOTLIN_VERSION, (
        f"Kotlin {project_version} has no K2 REPL; snippets compile with Kotlin {PINNED_KOTLIN_VERSION}, and with the "
        f"build's JetBrains compiler plugins at {PINNED_KOTLIN_VERSION} (the project's compiled classes work as usual)"
    )


def kotlin_policy_properties() -> dict[str, str]:
    """The Kotlin version policy as the Gradle init script reads it (`-P` properties): written here only."""
    return {
        "gradle-repl.defaultKotlinVersion": PINNED_KOTLIN_VERSION,
        "gradle-repl.minimumKotlinVersion": ".".join(map(str, MINIMUM_REPL_KOTLIN)),
        "gradle-repl.replHostArtifacts": ",".join(REPL_HOST_ARTIFACTS),
    }


def repl_host_coordinates(kotlin_version: str) -> list[Coordinate]:
    return [Coordinate("org.jetbrains.kotlin", artifact, kotlin_version) for artifact in REPL_HOST_ARTIFACTS]


def dependency_resolver_coordinates(kotlin_version: str) -> list[Coordinate]:
    return [
        *(Coordinate("org.apache.maven.resolver", artifact, MAVEN_RESOLVER_VERSION) for artifact in _MAVEN_RESOLVER),
        # Maven's resolver logs through SLF4J 1.7, which without a binding warns on the snippet's stderr.
        Coordinate("org.slf4j", "slf4j-nop", SLF4J_VERSION),
        *(Coordinate("org.jetbrains.kotlin", artifact, kotlin_version) for artifact in DEPENDENCY_RESOLVER_ARTIFACTS),
    ]
