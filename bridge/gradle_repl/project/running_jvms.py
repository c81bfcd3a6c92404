"""The JVMs running on this machine that a session could attach to, and why one can't be attached to.

Found without starting a JVM: every process whose executable is a `java` launcher (psutil), its user, command line,
environment, working directory, state, and its JDK's `release` file. A JVM can be attached to when it runs as this
user, was not started with -XX:+DisableAttachMechanism (on its command line or in the variables the launcher and the
JVM read options from), is Java 17+ (the agent's class files), runs on a JDK (its jcmd reads the class path) and is not
stopped (nothing in it could answer). Same user only is gradle-repl's rule, for root too: HotSpot's attach mechanism
lets root into any JVM, and attaching runs code in that process with its rights. Each reason says what to do.
Every attach (front/attaching.py, project/attach_target.py) asks attachable_jvm first, before any attach API call.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import psutil

from gradle_repl.errors import GradleReplError
from gradle_repl.project.jvm_kotlin import KotlinSeen, kotlin_of
from gradle_repl.stopping import paused

__all__ = ["RunningJvm", "list_running_jvms", "running_jvm", "java_home_of", "java_release_version", "attachable_jvm"]

# The oldest Java the agent is compiled for (worker/artifacts/agent_jar.py).
MINIMUM_JAVA = 17
_RELEASE_VERSION = re.compile(r'^JAVA_VERSION="([^"]+)"', re.MULTILINE)
_NO_ATTACH = "-XX:+DisableAttachMechanism"
# Where else a JVM's options come from: the `java` launcher reads JDK_JAVA_OPTIONS, the JVM the other two.
_OPTION_VARIABLES = ("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS")


@dataclass(frozen=True)
class RunningJvm:
    pid: int
    main: str  # the main class, or the jar of `java -jar`
    working_directory: str | None
    java_version: str | None
    java_home: str
    user: str
    attachable: bool
    why_not: str | None  # when it can't be attached to
    has_kotlin: bool | None = None  # whether its class path has Kotlin; None when it can't be read (jvm_kotlin.py)
    kotlin_version: str | None = None  # its kotlin-stdlib's version, when a jar names it


def java_home_of(executable: str) -> str:
    """The JDK (or JRE) a `java` launcher belongs to: `<home>/bin/java`."""
    return str(Path(executable).resolve().parent.parent)


def java_release_version(java_home: str) -> str | None:
    """The JAVA_VERSION a JDK's `release` file names ("17.0.15"), None when it has none."""
    try:
        found = _RELEASE_VERSION.search((Path(java_home) / "release").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    return found.group(1) if found else None


def _main(arguments: list[str]) -> str:
    """The main class or jar a java command line names: the first argument after the options."""
    skip_next = {
        "-cp",
        "-classpath",
        "--class-path",
        "-p",
        "--module-path",
        "--add-opens",
        "--add-exports",
        "--add-modules",
    }
    index = 1
    while index < len(arguments):
        argument = arguments[index]
        if argument in ("-jar", "-m", "--module"):
            return arguments[index + 1] if index + 1 < len(arguments) else argument
        if argument in skip_next:
            index += 2
            continue
        if not argument.startswith("-") and not argument.startswith("@"):
            return argument
        index += 1
    return "(unknown)"


def _describe(process: psutil.Process) -> RunningJvm | None:
    try:
        with process.oneshot():
            executable = process.exe()
            if Path(executable).name != "java":
                return None
            arguments = process.cmdline()
            user = process.username()
            uid = process.uids().real
            try:
                cwd: str | None = process.cwd()
            except psutil.AccessDenied:
                cwd = None
            try:
                environment = process.environ()
            except psutil.AccessDenied:
                environment = {}
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return None
    except psutil.AccessDenied:
        return None
    java_home = java_home_of(executable)
    version = java_release_version(java_home)
    why_not = None
    if uid != os.getuid():
        why_not = f"it runs as user {user}: gradle-repl attaches only to this user's JVMs"
    elif (where := _attach_disabled(arguments, environment)) is not None:
        why_not = f"it was started with {_NO_ATTACH} ({where}): restart it without that option to attach to it"
    elif version is not None and int(version.split(".")[0]) < MINIMUM_JAVA:
        why_not = f"it runs Java {version}; attaching needs Java {MINIMUM_JAVA}+"
    elif not (Path(java_home) / "bin" / "jcmd").is_file():
        why_not = f"it runs on {java_home}, which has no jcmd (a JRE): attaching needs the app to run on a JDK"
    elif (stopped := paused(process.pid)) is not None:
        why_not = f"it is {stopped}"
    classpath = environment.get("CLASSPATH")
    kotlin = kotlin_of(arguments, cwd, classpath) if uid == os.getuid() else KotlinSeen(None, None)
    return RunningJvm(
        process.pid,
        _main(arguments),
        cwd,
        version,
        java_home,
        user,
        why_not is None,
        why_not,
        kotlin.has_kotlin,
        kotlin.version,
    )


def _attach_disabled(arguments: list[str], environment: dict[str, str]) -> str | None:
    """Where the JVM was told to refuse attach (its command line, or a variable it read options from), or None."""
    if _NO_ATTACH in arguments:
        return "on its command line"
    for variable in _OPTION_VARIABLES:
        if _NO_ATTACH in environment.get(variable, "").split():
            return f"in {variable}"
    return None


def list_running_jvms() -> list[RunningJvm]:
    """Every JVM running here, by pid, the ones that can't be attached to with the reason."""
    found = (_describe(process) for process in psutil.process_iter())
    return sorted((jvm for jvm in found if jvm is not None and jvm.pid != os.getpid()), key=lambda jvm: jvm.pid)


def running_jvm(pid: int) -> RunningJvm:
    """The JVM `pid`, or a one-line error saying why there is none to attach to."""
    try:
        process = psutil.Process(pid)
    except psutil.NoSuchProcess:
        raise GradleReplError(
            f"no process has pid {pid}; `gradle-repl jvms` (list_running_jvms) lists the JVMs running here"
        ) from None
    jvm = _describe(process)
    if jvm is None:
        try:
            name = process.name()
        except psutil.Error:
            name = "?"
        raise GradleReplError(
            f"process {pid} ({name}) is not a Java VM; `gradle-repl jvms` (list_running_jvms) lists the JVMs running here"
        )
    return jvm


def attachable_jvm(pid: int) -> RunningJvm:
    """The JVM `pid` when it can be attached to, else a one-line error saying why not."""
    jvm = running_jvm(pid)
    if not jvm.attachable:
        raise GradleReplError(f"cannot attach to JVM {pid}: {jvm.why_not}")
    return jvm
