"""gradle-repl's Maven core extension: lets `dependency:build-classpath` resolve only the scope it reports.

The goal requires test-scope resolution, and Maven resolves for each project the union of what its goals
require, so without the extension a `main` classpath needs every test-scope artifact to be downloadable
(resources/maven-extension explains the Maven side). No binary is shipped: the one Java source is compiled
once by the JDK's javac against the Maven installation's own jars, and cached per source hash; each compile
writes a private temporary jar and renames it into place, so builds starting at once never see half a jar.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from functools import cache
from pathlib import Path

from gradle_repl.errors import BuildToolNotFound
from gradle_repl.paths import cache_dir
from gradle_repl.project.toolchain import find_mvn
from gradle_repl.resources import maven_extension_sources

__all__ = ["ExtensionUnavailable", "extension_jar", "extension_arguments", "extension_hash", "SCOPE_PROPERTY"]

# The user property ClasspathScope.java reads: the scope build-classpath is to resolve.
SCOPE_PROPERTY = "gradle-repl.classpathScope"
# The extension's one class, named in the sisu index so that Maven's container finds it.
_CLASS_NAME = "gradlerepl.maven.ClasspathScope"
# One small source file; past this javac is stuck, not slow.
JAVAC_TIMEOUT_SECONDS = 120.0


class ExtensionUnavailable(Exception):
    """The extension could not be built here (no javac, no Maven jars to compile against); the message says why."""


@cache
def extension_hash() -> str:
    """Names the extension's sources, so that a changed extension is a new jar and a new environment."""
    digest = hashlib.sha256()
    for source in maven_extension_sources():
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def extension_arguments(jar: Path, scope: str) -> list[str]:
    """The mvn arguments that load the extension and name the scope build-classpath is to resolve."""
    return [f"-Dmaven.ext.class.path={jar}", f"-D{SCOPE_PROPERTY}={scope}"]


def extension_jar() -> Path:
    """The extension jar, compiled on first use. Raises ExtensionUnavailable when it can't be built."""
    target = cache_dir() / "maven-extension" / f"gradle-repl-maven-{extension_hash()}.jar"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f"{target.stem}.{os.getpid()}.tmp.jar")
    with tempfile.TemporaryDirectory(prefix="gradle-repl-maven-extension-") as work:
        classes = Path(work)
        _compile(classes)
        index = classes / "META-INF" / "sisu" / "javax.inject.Named"
        index.parent.mkdir(parents=True)
        index.write_text(_CLASS_NAME + "\n", encoding="utf-8")
        with zipfile.ZipFile(temporary, "w") as jar:
            for path in sorted(p for p in classes.rglob("*") if p.is_file()):
                jar.write(path, path.relative_to(classes).as_posix())
    os.replace(temporary, target)
    return target


def _compile(classes: Path) -> None:
    # Java 8 class files load in whatever JVM runs Maven 3 (Java 7+ for 3.8, 8+ for 3.9).
    # -proc:none: Maven's sisu jar carries an annotation processor that would write the index; it is written here.
    command = [
        str(_javac()),
        "--release",
        "8",
        "-nowarn",
        "-proc:none",
        "-cp",
        str(_maven_lib() / "*"),
        "-d",
        str(classes),
    ]
    try:
        done = subprocess.run(
            command + [str(s) for s in maven_extension_sources()],
            capture_output=True,
            text=True,
            timeout=JAVAC_TIMEOUT_SECONDS,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ExtensionUnavailable(f"javac did not run: {error}") from error
    if done.returncode != 0:
        raise ExtensionUnavailable(f"javac failed: {(done.stderr or done.stdout).strip()}")


def _javac() -> Path:
    """javac of the JDK that runs Maven (JAVA_HOME, else the `java` on PATH), else any javac on PATH."""
    name = "javac.exe" if os.name == "nt" else "javac"
    candidates = []
    if java_home := os.environ.get("JAVA_HOME"):
        candidates.append(Path(java_home) / "bin" / name)
    if java := shutil.which("java"):
        candidates.append(Path(java).resolve().parent / name)
    if javac := shutil.which("javac"):
        candidates.append(Path(javac))
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ExtensionUnavailable("no javac (a JDK, not only a JRE, is needed to build it)")


def _maven_lib() -> Path:
    """The running Maven's own jars: <maven home>/lib, or libexec/lib where `mvn` is a wrapper (Homebrew)."""
    try:
        home = Path(find_mvn()).resolve().parent.parent
    except BuildToolNotFound as error:  # a build run only through its wrapper (mvnw): built without the extension
        raise ExtensionUnavailable(f"no Maven installation to compile it against ({error})") from error
    for lib in (home / "lib", home / "libexec" / "lib"):
        if any(lib.glob("maven-core*.jar")):
            return lib
    raise ExtensionUnavailable(f"no Maven jars (maven-core*.jar) under {home}")
