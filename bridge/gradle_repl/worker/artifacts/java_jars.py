"""Small jars gradle-repl builds from its own Java sources with a JDK's javac (the agents), named by their content.

No JPype here: the front ends build the attach agent too, and they never load a JVM into their own process.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import zipfile
from pathlib import Path

from gradle_repl.errors import WorkerFailed

__all__ = ["sources_hash", "build_java_jar", "JAVAC_TIMEOUT_SECONDS"]

# javac starts a JVM of its own and compiles a few small files: seconds on a loaded machine; past this it is stuck.
JAVAC_TIMEOUT_SECONDS = 120.0


def sources_hash(sources: list[Path], *facts: str) -> str:
    """A short digest of the sources' names and bytes and the given facts: what a built jar is named by."""
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    for fact in facts:
        digest.update(b"\0" + fact.encode())
    return digest.hexdigest()[:16]


def build_java_jar(
    target: Path, sources: list[Path], *, java_home: str, release: str, manifest: str, what: str
) -> Path:
    """`target` compiled from `sources` with this JDK's javac when it is not there yet (written whole, then renamed
    into place); WorkerFailed names `what` and why when it can't be."""
    if target.is_file():
        return target
    javac = Path(java_home) / "bin" / ("javac.exe" if os.name == "nt" else "javac")
    if not javac.is_file():
        raise WorkerFailed(
            f"{what} is compiled with javac, and the JDK at {java_home} has none (a JRE?): run it with a JDK"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f"{target.stem}.{os.getpid()}.tmp.jar")
    with tempfile.TemporaryDirectory(prefix="gradle-repl-javac-") as work:
        try:
            done = subprocess.run(
                [str(javac), "--release", release, "-nowarn", "-proc:none", "-d", work, *map(str, sources)],
                capture_output=True,
                text=True,
                timeout=JAVAC_TIMEOUT_SECONDS,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise WorkerFailed(f"javac did not build {what}: {error}") from error
        if done.returncode != 0:
            raise WorkerFailed(f"javac did not build {what}: {(done.stderr or done.stdout).strip()}")
        with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as jar:
            jar.writestr("META-INF/MANIFEST.MF", manifest)
            for path in sorted(Path(work).rglob("*.class")):
                jar.write(path, path.relative_to(work).as_posix())
    os.replace(temporary, target)
    return target
