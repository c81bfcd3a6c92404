"""Builds the attach agent's jar with a JDK's javac, once per agent source: never a shipped binary.

The jar is named by its sources' digest, so an attach after an upgrade loads the new agent beside an old one already
in the application (each listens on a socket of its own name) and never talks to the old one. It is compiled for
Java 17, the oldest JVM an agent can be loaded into here, whatever JDK compiles it.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import zipfile
from pathlib import Path

from gradle_repl.errors import WorkerFailed
from gradle_repl.paths import cache_dir
from gradle_repl.resources import jvm_worker_agent_sources
from gradle_repl.worker.facade import sources_hash

__all__ = ["AGENT_CLASS", "agent_jar_path", "build_agent_jar"]

AGENT_CLASS = "gradlerepl.agent.AttachAgent"
# javac starts a JVM of its own and compiles five small files: seconds on a loaded machine, never minutes.
JAVAC_TIMEOUT_SECONDS = 120
_RELEASE = "17"


def agent_jar_path() -> Path:
    """Where the agent of these sources is cached."""
    return cache_dir() / "agent" / f"gradle-repl-agent-{sources_hash(jvm_worker_agent_sources(), _RELEASE)}.jar"


def build_agent_jar(java_home: str) -> Path:
    """The agent's jar, compiled with this JDK's javac when it is not cached yet."""
    target = agent_jar_path()
    if target.is_file():
        return target
    javac = Path(java_home) / "bin" / "javac"
    if not javac.is_file():
        raise WorkerFailed(f"the attach agent is compiled with javac, and {java_home} has none: it is a JRE; run gradle-repl with a JDK")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gradle-repl-agent-") as classes:
        compiled = subprocess.run(
            [str(javac), "--release", _RELEASE, "-nowarn", "-d", classes, *map(str, jvm_worker_agent_sources())],
            capture_output=True, text=True, timeout=JAVAC_TIMEOUT_SECONDS, check=False,
        )
        if compiled.returncode != 0:
            raise WorkerFailed(f"could not compile the attach agent with {javac}:\n{compiled.stdout}{compiled.stderr}")
        temporary = target.with_name(f"{target.stem}.{os.getpid()}.tmp.jar")
        with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as jar:
            jar.writestr("META-INF/MANIFEST.MF", _manifest())
            for path in sorted(Path(classes).rglob("*.class")):
                jar.write(path, path.relative_to(classes).as_posix())
    os.replace(temporary, target)
    return target


def _manifest() -> str:
    # Agent-Class for VirtualMachine.loadAgent, Premain-Class for -javaagent: at the application's start.
    return f"Manifest-Version: 1.0\r\nAgent-Class: {AGENT_CLASS}\r\nPremain-Class: {AGENT_CLASS}\r\n\r\n"
