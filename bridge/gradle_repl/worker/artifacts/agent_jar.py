"""Builds the attach agent's jar with a JDK's javac, once per agent source: never a shipped binary.

Each build is named by its sources' digest twice over: the jar's file name (so it listens on a socket of its own,
agent_socket.py) and its classes' package, `gradlerepl.agent.v<digest>`. The package matters because
VirtualMachine.loadAgent and -javaagent: put the jar on the application's *system class loader*: an app that already
holds an older build (gradle-repl upgraded while the app runs, or two installs) would resolve a newer jar's
Agent-Class to the old class of the same name and run the old code. With a package per build, each build's classes
are its own. The checked-in sources say `package gradlerepl.agent;`; copies of them are compiled with the build's
package instead (javac doesn't require the directories to match the package of sources named on its command line).
The rules both JVM sides share (jvm-worker/runs-in-both, `package gradlerepl.both;`) are compiled in as
`gradlerepl.agent.v<digest>.both`, renamed the same way and their imports with them, so they too are the build's own.

It is compiled for Java 17, the oldest JVM an agent can be loaded into here, whatever JDK compiles it.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from gradle_repl.errors import WorkerFailed
from gradle_repl.paths import cache_dir
from gradle_repl.resources import jvm_worker_attach_agent_sources, jvm_worker_both_sources
from gradle_repl.worker.artifacts.java_jars import build_java_jar, sources_hash

__all__ = ["agent_class", "agent_jar_path", "agent_package", "build_agent_jar", "build_hash"]

# The package of the checked-in sources; each build's classes live in a package of its own beneath it.
_SOURCE_PACKAGE = "gradlerepl.agent"
# Each build's package, `{}` its digest. One of the digest's facts: a change to it names new jars, so a jar built
# under another scheme (before builds had packages of their own) is never reused.
_BUILD_PACKAGE = _SOURCE_PACKAGE + ".v{}"
_JAR_PREFIX = "gradle-repl-agent-"
_RELEASE = "17"
# How the checked-in sources name their package: the one thing each build's copy changes.
_PACKAGE_LINE = re.compile(rf"^package {re.escape(_SOURCE_PACKAGE)};", re.MULTILINE)
# The shared rules' package, and how the agent's sources and the rules themselves name it (package line, imports).
_BOTH_PACKAGE = "gradlerepl.both"
_BOTH_NAME = re.compile(rf"^(package|import) {re.escape(_BOTH_PACKAGE)}([.;])", re.MULTILINE)


def agent_jar_path(sources: list[Path] | None = None) -> Path:
    """Where the agent of these sources (gradle-repl's own when not given) is cached."""
    digest = sources_hash(
        [*(sources or jvm_worker_attach_agent_sources()), *jvm_worker_both_sources()], _RELEASE, _BUILD_PACKAGE
    )
    return cache_dir() / "agent" / f"{_JAR_PREFIX}{digest}.jar"


def build_hash(jar: Path) -> str:
    """The digest an agent jar is named by: what its socket's directory and its classes' package are named by."""
    return jar.stem.removeprefix(_JAR_PREFIX)


def agent_package(jar: Path) -> str:
    """The package of this build's classes (its hello names it; its Display is imported from it)."""
    return _BUILD_PACKAGE.format(build_hash(jar))


def agent_class(jar: Path) -> str:
    """The class the JVM starts this build with (its manifest's Agent-Class and Premain-Class)."""
    return f"{agent_package(jar)}.AttachAgent"


def build_agent_jar(java_home: str, sources: list[Path] | None = None) -> Path:
    """The agent's jar, compiled with this JDK's javac when it is not cached yet. `sources` replaces gradle-repl's
    own (tests build a second, different agent from a changed copy)."""
    sources = sources or jvm_worker_attach_agent_sources()
    target = agent_jar_path(sources)
    if target.is_file():
        return target
    package = agent_package(target)
    with tempfile.TemporaryDirectory(prefix="gradle-repl-agent-sources-") as work:
        copies = []
        for source in sources:
            text = source.read_text(encoding="utf-8")
            renamed, count = _PACKAGE_LINE.subn(f"package {package};", text, count=1)
            if count != 1:
                raise WorkerFailed(
                    f"{source} does not start with `package {_SOURCE_PACKAGE};`: it can't be built as the agent's"
                )
            copies.append(_copy(Path(work), source.name, _BOTH_NAME.sub(rf"\1 {package}.both\2", renamed)))
        for source in jvm_worker_both_sources():
            text = source.read_text(encoding="utf-8")
            renamed, count = _BOTH_NAME.subn(rf"\1 {package}.both\2", text)
            if count < 1:
                raise WorkerFailed(
                    f"{source} does not start with `package {_BOTH_PACKAGE};`: it can't be built into the agent"
                )
            copies.append(_copy(Path(work) / "both", source.name, renamed))
        return build_java_jar(
            target, copies, java_home=java_home, release=_RELEASE, manifest=_manifest(target), what="the attach agent"
        )


def _copy(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(exist_ok=True)
    copy = directory / name
    copy.write_text(text, encoding="utf-8")
    return copy


def _manifest(jar: Path) -> str:
    # Agent-Class for VirtualMachine.loadAgent, Premain-Class for -javaagent: at the application's start;
    # Can-Retransform-Classes for probes (ProbeClasses puts the hook's calls into the app's loaded classes).
    return (
        f"Manifest-Version: 1.0\r\nAgent-Class: {agent_class(jar)}\r\nPremain-Class: {agent_class(jar)}\r\n"
        "Can-Retransform-Classes: true\r\n\r\n"
    )
