"""The environment of a session attached to a running JVM: its snippets compile against what the JVM runs.

The class path is the target's own (`java.class.path`, read with the JDK's jcmd, the attach mechanism's client), a
Spring Boot fat jar expanded (boot_jar.py); the worker runs on the target's JDK. With a project, the project's
compiler plugins, options and Kotlin version are kept and only the classpath and JDK are the target's; without one,
the REPL's Kotlin is the target's kotlin-stdlib version (by the policy of toolchain.repl_kotlin_version) and the
app's working directory stands for its project root.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from gradle_repl.environment import ReplEnvironment
from gradle_repl.errors import GradleReplError
from gradle_repl.progress import ProgressCallback
from gradle_repl.project.boot_jar import expanded_classpath, is_boot_jar
from gradle_repl.project.jdks import default_jdk, installed_jdks, java_feature
from gradle_repl.project.jvm_kotlin import stdlib_version
from gradle_repl.project.running_jvms import MINIMUM_JAVA, RunningJvm, attachable_jvm
from gradle_repl.project.toolchain import (
    PINNED_KOTLIN_VERSION,
    repl_host_coordinates,
    repl_kotlin_version,
    resolve_jars,
)

__all__ = ["attach_environment", "remote_environment", "system_properties", "target_classpath"]

# jcmd starts a small JVM and asks the target through the attach mechanism: seconds, unless the target is stopped.
JCMD_TIMEOUT_SECONDS = 60.0
# jcmd's failure names the attach API's exception on a line of its own (then its stack): its message is the reason.
_THROWN = re.compile(r"^[\w$.]+(?:Exception|Error): (.+)$", re.MULTILINE)
# HotSpot's AttachNotSupportedException messages: a JVM started with attach disabled, and one that never answered.
_REFUSES_ATTACH = "does not support the attach mechanism"
_NO_ANSWER = "doesn't respond within"
_PLAIN = re.compile(r"^(?!\d+:$)(?!at )\S")


def system_properties(jvm: RunningJvm) -> dict[str, str]:
    """The target's system properties (jcmd VM.system_properties), or a one-line error saying why not. `jvm` is one
    attachable_jvm let through: it runs on a JDK, with a jcmd."""
    jcmd = Path(jvm.java_home) / "bin" / "jcmd"
    try:
        answer = subprocess.run(
            [str(jcmd), str(jvm.pid), "VM.system_properties"],
            capture_output=True,
            text=True,
            timeout=JCMD_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise GradleReplError(
            f"JVM {jvm.pid} did not answer the attach mechanism within {JCMD_TIMEOUT_SECONDS:g} s (is it stopped or "
            "hung?): attach again once it runs"
        ) from None
    if answer.returncode != 0 or "java.class.path" not in answer.stdout:
        raise GradleReplError(_refusal(jvm.pid, answer.stdout + answer.stderr))
    properties: dict[str, str] = {}
    for line in answer.stdout.splitlines():
        key, separator, value = line.partition("=")
        if separator and not key.startswith("#"):
            # java.util.Properties.store escapes these.
            properties[key.strip()] = value.replace("\\:", ":").replace("\\=", "=").replace("\\\\", "\\")
    return properties


def _refusal(pid: int, output: str) -> str:
    """jcmd's failure (an exception's line, then its stack) as one sentence with what to do."""
    thrown = _THROWN.search(output)
    said = (line.strip() for line in output.splitlines())
    # Without an exception: jcmd's first word that is neither its `<pid>:` heading nor a stack frame.
    reason = thrown.group(1).strip() if thrown else next((line for line in said if _PLAIN.match(line)), "")
    if _REFUSES_ATTACH in reason:
        return (
            f"JVM {pid} refuses the attach mechanism: it was started with -XX:+DisableAttachMechanism (in an @argfile, "
            "a VM options file or a launcher script); restart it without that option to attach to it"
        )
    if _NO_ANSWER in reason:
        return f"JVM {pid} did not answer the attach mechanism (is it stopped or hung?): attach again once it runs"
    return (
        f"cannot attach to JVM {pid}: jcmd says {reason or 'nothing'!r}; check that it runs as this user on a JDK "
        f"{MINIMUM_JAVA}+, then attach again"
    )


def target_classpath(class_path: str) -> list[str]:
    """The target's class path as the compiler reads it: a Spring Boot fat jar's nested classes and jars expanded."""
    entries = [entry for entry in class_path.split(":") if entry]
    expanded: list[str] = []
    for entry in entries:
        expanded.extend(expanded_classpath(entry) if is_boot_jar(entry) else [entry])
    return expanded


def attach_environment(
    pid: int, project: ReplEnvironment | None = None, *, on_progress: ProgressCallback | None = None
) -> ReplEnvironment:
    """The environment of a session attached to JVM `pid`: its class path and JDK, with `project`'s compiler plugins and
    Kotlin when given (the session's placement, Attached(pid), is the host's)."""
    jvm = attachable_jvm(pid)
    properties = system_properties(jvm)
    classpath = target_classpath(properties.get("java.class.path", ""))
    cwd = properties.get("user.dir") or jvm.working_directory or "/"
    return _app_environment(
        classpath, jvm.java_home, project, app=f"JVM {pid}", root=cwd, warnings=[], on_progress=on_progress
    )


def remote_environment(
    classpath: list[str],
    java_version: str,
    app: str,
    project: ReplEnvironment | None = None,
    *,
    on_progress: ProgressCallback | None = None,
) -> ReplEnvironment:
    """The environment of a session attached over TCP to `app` (`the app at host:port`), which runs Java
    `java_version`: its class path as fetched here (app_classpath.py: local copies, a fat jar expanded here), and a JDK
    of this machine to compile against — the project's, else one installed here of the app's Java version, else the
    default one, said in a warning when its version differs from the app's."""
    expanded = target_classpath(":".join(classpath))
    root = str(Path(classpath[0]).parent) if classpath else str(Path.cwd())
    if project is not None:
        return _app_environment(expanded, project.java_home, project, app=app, root=root, warnings=[])
    jdk, warnings = _local_jdk(java_version, app)
    return _app_environment(expanded, str(jdk), None, app=app, root=root, warnings=warnings, on_progress=on_progress)


def _local_jdk(java_version: str, app: str) -> tuple[Path, list[str]]:
    """A JDK here (with javac) for snippets that run on Java `java_version` elsewhere, and what to say about it."""
    feature = java_feature(java_version)
    usable = [jdk for jdk in installed_jdks() if jdk.has_javac and (jdk.feature or 0) >= MINIMUM_JAVA]
    same = [jdk for jdk in usable if jdk.feature == feature]
    if same:
        return same[0].home, []
    default, where = default_jdk()
    chosen = default if default is not None and default.has_javac else (usable[0] if usable else None)
    if chosen is None:
        raise GradleReplError(
            f"no JDK {MINIMUM_JAVA}+ with javac here to compile snippets for {app} ({where}): install one or set JAVA_HOME"
        )
    return chosen.home, [
        (
            f"{capitalize(app)} runs Java {java_version}; snippets compile here against JDK {chosen.version} ({chosen.home}): "
            f"an API of one that the other lacks fails when the snippet runs, not when it compiles"
        )
    ]


def capitalize(phrase: str) -> str:
    return phrase[:1].upper() + phrase[1:]


def _app_environment(
    classpath: list[str],
    java_home: str,
    project: ReplEnvironment | None,
    *,
    app: str,
    root: str,
    warnings: list[str],
    on_progress: ProgressCallback | None = None,
) -> ReplEnvironment:
    """A running app's environment: its class path with `project`'s compiler plugins and Kotlin when given, else the
    Kotlin of its kotlin-stdlib (or gradle-repl's, lent to the snippets, when it has none)."""
    java_executable = str(Path(java_home) / "bin" / "java")
    if project is not None:
        return project.model_copy(
            update={
                "classpath": classpath,
                "java_home": java_home,
                "java_executable": java_executable,
                "warnings": [*project.warnings, *warnings],
            }
        )
    stdlib = stdlib_version(classpath)
    if stdlib is None:
        warnings = [
            *warnings,
            (
                f"{capitalize(app)} has no Kotlin of its own: snippets compile with Kotlin {PINNED_KOTLIN_VERSION}, whose "
                "runtime gradle-repl lends to the session's snippets alone (the app's class path is left as it is)"
            ),
        ]
    kotlin_version, too_old = repl_kotlin_version(stdlib or PINNED_KOTLIN_VERSION)
    host = resolve_jars({"host": repl_host_coordinates(kotlin_version)}, on_progress=on_progress).by_request["host"]
    return ReplEnvironment(
        build_tool=None,  # no build resolved it: the app's class path is read from the running JVM
        project_root=root,
        kotlin_version=kotlin_version,
        project_kotlin_version=stdlib if too_old else None,
        classpath=classpath,
        repl_host_classpath=host,
        warnings=[*warnings, *([too_old] if too_old else [])],
        java_home=java_home,
        java_executable=java_executable,
    )
