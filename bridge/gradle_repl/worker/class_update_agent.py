"""The session JVM's instrumentation agent (jvm-worker/class-updates): built before the JVM starts, by the session JDK's own
javac, and cached per source hash, like the facade — never a shipped binary. The JVM gets it as `-javaagent:`, and
worker/class_updates.py asks it to redefine project classes after a rebuild.

A JDK without javac (a bare JRE) starts without it: its session restarts on every project edit, as before, and the
restart's notice says why.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import zipfile
from pathlib import Path

from gradle_repl.paths import cache_dir
from gradle_repl.resources import jvm_worker_class_updates_sources

__all__ = ["AGENT_CLASS", "AgentJar", "agent_jar"]

AGENT_CLASS = "gradlerepl.agent.ClassUpdates"
# One small source file; past this javac is stuck, not slow.
JAVAC_TIMEOUT_SECONDS = 120.0
# Class files every JDK the worker runs on (11+) loads.
_RELEASE = "11"
_MANIFEST = (
    "Manifest-Version: 1.0\r\n"
    f"Premain-Class: {AGENT_CLASS}\r\n"
    "Can-Redefine-Classes: true\r\n"
    "\r\n"
)


class AgentJar:
    """The agent jar, or why this session has none."""

    def __init__(self, path: Path | None, unavailable: str | None) -> None:
        self.path = path
        self.unavailable = unavailable

    def jvm_options(self) -> list[str]:
        return [f"-javaagent:{self.path}"] if self.path is not None else []


def agent_jar(java_home: str) -> AgentJar:
    """The agent jar for this JDK's javac, compiled on first use; never raises (the session starts without it)."""
    sources = jvm_worker_class_updates_sources()
    digest = hashlib.sha256(_RELEASE.encode())
    for source in sources:
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    target = cache_dir() / "facade" / f"jvm-worker-agent-{digest.hexdigest()[:16]}.jar"
    if target.is_file():
        return AgentJar(target, None)
    javac = Path(java_home) / "bin" / ("javac.exe" if os.name == "nt" else "javac")
    if not javac.is_file():
        return AgentJar(None, f"the JDK at {java_home} has no javac to build the class-update agent (a JRE?)")
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f"{target.stem}.{os.getpid()}.tmp.jar")
    with tempfile.TemporaryDirectory(prefix="gradle-repl-agent-") as work:
        classes = Path(work)
        try:
            done = subprocess.run(
                [str(javac), "--release", _RELEASE, "-nowarn", "-proc:none", "-d", str(classes), *map(str, sources)],
                capture_output=True, text=True, timeout=JAVAC_TIMEOUT_SECONDS,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return AgentJar(None, f"javac did not build the class-update agent: {error}")
        if done.returncode != 0:
            return AgentJar(None, f"javac did not build the class-update agent: {(done.stderr or done.stdout).strip()}")
        with zipfile.ZipFile(temporary, "w") as jar:
            jar.writestr("META-INF/MANIFEST.MF", _MANIFEST)
            for path in sorted(p for p in classes.rglob("*.class")):
                jar.write(path, path.relative_to(classes).as_posix())
    os.replace(temporary, target)
    return AgentJar(target, None)
