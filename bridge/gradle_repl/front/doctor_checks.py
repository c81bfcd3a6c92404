"""What `gradle-repl doctor` looks at, each check a function from this machine's state to findings: what was found,
or what is missing with the fix. Nothing here starts a JVM or a build (a JDK's version is read from its `release`
file, a wrapper's from its properties); only `mvn -v` runs, to read Maven's version.

A finding is `missing` when a default call can't work without it — a JDK with javac, and the build tool of the project
(either, outside a project) — and `warn` when only some calls need it; `doctor` exits 1 on any `missing`.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gradle_repl.errors import BuildToolNotFound
from gradle_repl.front.cache_usage import cache_usage, human_size
from gradle_repl.front.cache_users import cache_users
from gradle_repl.front.token import MIN_TOKEN_CHARS, token_path
from gradle_repl.paths import cache_dir
from gradle_repl.project.buildtools.gradle import GRADLE, build_root, find_gradle
from gradle_repl.project.buildtools.kotlin_daemons import started_kotlin_daemons
from gradle_repl.project.buildtools.maven import MAVEN, find_maven
from gradle_repl.project.jdks import default_jdk, installed_jdks
from gradle_repl.project.running_jvms import MINIMUM_JAVA, list_running_jvms
from gradle_repl.settings import TOKEN_ENV
from gradle_repl.worker.artifacts.agent_jar import agent_jar_path

__all__ = [
    "Finding",
    "Status",
    "check_jdk",
    "check_build_tools",
    "check_attach_targets",
    "check_agent_jar",
    "check_token",
    "check_cache",
    "check_kotlin_daemons",
    "MINIMUM_MAVEN",
    "MINIMUM_GRADLE",
]

Status = Literal["ok", "missing", "warn", "info"]

# What the README has always asked for: the oldest Maven and Gradle the resolvers are tested against.
MINIMUM_MAVEN = (3, 6)
MINIMUM_GRADLE = (7, 6)
# `mvn -v` starts a JVM; on a loaded machine that takes seconds, never this long unless it hangs.
MAVEN_VERSION_TIMEOUT_SECONDS = 60.0

_INSTALL_JDK = (
    f"install a JDK {MINIMUM_JAVA}+ (Debian/Ubuntu: sudo apt-get install -y openjdk-17-jdk-headless; macOS: "
    "brew install openjdk@17) and put its bin/ on PATH or set JAVA_HOME to it"
)
_INSTALL_MAVEN = (
    "install Maven 3.6+ (Debian/Ubuntu: sudo apt-get install -y maven; macOS: brew install maven; "
    "https://maven.apache.org/install.html), or give the project a Maven wrapper (mvnw)"
)
_INSTALL_GRADLE = (
    "give the project a Gradle wrapper (`gradle wrapper` in it, once) or install Gradle 7.6+ "
    "(https://gradle.org/install)"
)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_MAVEN_VERSION = re.compile(r"Apache Maven (\d+(?:\.\d+)+)")
_DISTRIBUTION_VERSION = re.compile(r"distributionUrl=.*?(?:gradle|apache-maven)-(\d+(?:\.\d+)+)")


@dataclass(frozen=True)
class Finding:
    status: Status
    topic: str  # what was looked at: "JDK", "Maven", ...
    text: str
    fix: str | None = None


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def check_jdk() -> list[Finding]:
    """The JDK builds and sessions start from: JAVA_HOME, else the java on PATH; it needs javac and Java 17+."""
    jdk, where = default_jdk()
    if jdk is None:
        return [Finding("missing", "JDK", where, _INSTALL_JDK)]
    version = jdk.version or "of unknown version (no release file)"
    if not jdk.has_javac:
        return [Finding("missing", "JDK", f"{jdk.home} ({where}) has java {version} but no javac: a JRE", _INSTALL_JDK)]
    if jdk.feature is not None and jdk.feature < MINIMUM_JAVA:
        return [
            Finding(
                "missing",
                "JDK",
                f"Java {version} at {jdk.home} ({where}); gradle-repl needs {MINIMUM_JAVA}+",
                _INSTALL_JDK,
            )
        ]
    return [Finding("ok", "JDK", f"{version} at {jdk.home} ({where}): java and javac")]


def _maven_version(command: list[str]) -> str | None:
    """`mvn -v`'s version, or None when it can't be read."""
    try:
        done = subprocess.run(
            [*command, "-v", "-B"], capture_output=True, text=True, timeout=MAVEN_VERSION_TIMEOUT_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = _MAVEN_VERSION.search(_ANSI.sub("", done.stdout))
    return found.group(1) if found else None


def _wrapper_version(properties: Path) -> str | None:
    """The version a wrapper's properties file downloads (its distributionUrl), or None."""
    try:
        found = _DISTRIBUTION_VERSION.search(properties.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    return found.group(1) if found else None


def _maven(root: Path) -> tuple[bool, str]:
    """Whether this project's Maven can run, and what was found (or why not)."""
    try:
        command = find_maven(root)
    except BuildToolNotFound as missing:
        return False, str(missing).split(";")[0]
    if Path(command[-1]).name.startswith("mvnw"):
        version = _wrapper_version(root / ".mvn" / "wrapper" / "maven-wrapper.properties")
        return True, f"the project's wrapper {command[-1]}" + (f" (Maven {version})" if version else "")
    version = _maven_version(command)
    if version is None:
        return True, f"{command[0]} (its version could not be read: `mvn -v` failed)"
    if _version_tuple(version) < MINIMUM_MAVEN:
        return False, f"Maven {version} at {command[0]}; gradle-repl needs 3.6+"
    return True, f"{version} at {command[0]}"


def _gradle(root: Path) -> tuple[bool, str]:
    """Whether this project's Gradle can run, and what was found (or why not). Never runs Gradle: a wrapper's version
    is in its properties file, and `gradle --version` would start a JVM (and maybe a daemon)."""
    try:
        command = find_gradle(root)
    except BuildToolNotFound:
        return False, f"no Gradle wrapper (gradlew) in {build_root(root)} and no gradle on PATH"
    if Path(command[-1]).name.startswith("gradlew"):
        version = _wrapper_version(build_root(root) / "gradle" / "wrapper" / "gradle-wrapper.properties")
        if version and _version_tuple(version) < MINIMUM_GRADLE:
            return False, f"the project's wrapper {command[-1]} runs Gradle {version}; gradle-repl needs 7.6+"
        return True, f"the project's wrapper {command[-1]}" + (f" (Gradle {version})" if version else "")
    return True, f"gradle on PATH at {command[0]} (its version is read when it runs: 7.6+ is needed)"


def check_build_tools(root: Path) -> list[Finding]:
    """Maven and Gradle as the project at root would run them (its wrappers first). The project's own build tool is
    needed; outside a project either will do. Maven is also how gradle-repl fetches the Kotlin jars a project doesn't
    bring (a REPL for Kotlin before 2.2, @file:DependsOn, an attach without a project), so its absence is a warning."""
    builds = {"maven": MAVEN.detect(root), "gradle": GRADLE.detect(root)}
    found = {"maven": _maven(root), "gradle": _gradle(root)}
    kinds = [name.capitalize() for name, present in builds.items() if present]
    project = Finding(
        "info",
        "project",
        f"{root}: a {' and a '.join(kinds)} build"
        if kinds
        else f"no Gradle or Maven build in {root}; checked what any project needs (name one: gradle-repl doctor DIR)",
    )
    if not any(builds.values()):
        builds = {"maven": True, "gradle": True}
    usable = any(builds[name] and found[name][0] for name in builds)
    findings = [project]
    for name, fix, why in (
        (
            "maven",
            _INSTALL_MAVEN,
            "Gradle projects need Maven only for Kotlin before 2.2, @file:DependsOn and attaching without a project",
        ),
        ("gradle", _INSTALL_GRADLE, "Maven projects don't need Gradle"),
    ):
        ok, text = found[name]
        if ok:
            findings.append(Finding("ok", name.capitalize(), text))
        elif builds[name] and not usable:
            findings.append(Finding("missing", name.capitalize(), text, fix))
        else:
            findings.append(Finding("warn", name.capitalize(), f"{text} ({why})", fix))
    return findings


def check_attach_targets() -> list[Finding]:
    """The JDKs installed here, each an app could run on: whether a session can attach to such an app, and the JVMs
    running now."""
    findings = []
    for jdk in installed_jdks():
        why_not = jdk.why_not_attach_target()
        named = f"JDK {jdk.version or '(version unknown)'} at {jdk.home}"
        if why_not is None:
            findings.append(Finding("ok", "attach", f"apps on {named} can be attached to"))
        else:
            findings.append(
                Finding(
                    "warn",
                    "attach",
                    f"apps on {named} can't be attached to: {why_not}",
                    f"run the app on a JDK {MINIMUM_JAVA}+ with javac and jcmd to attach to it",
                )
            )
    if not findings:
        findings.append(Finding("warn", "attach", "no JDK found in the usual places, JAVA_HOME or PATH", _INSTALL_JDK))
    running = list_running_jvms()
    attachable = sum(jvm.attachable for jvm in running)
    findings.append(
        Finding(
            "info",
            "attach",
            f"{len(running)} JVM(s) running here, {attachable} attachable (`gradle-repl jvms` lists them)",
        )
    )
    return findings


def check_agent_jar() -> list[Finding]:
    """The attach agent's jar of this gradle-repl: its path (what a container mounts, a pod's image copies) and whether
    it is built yet — doctor builds nothing; and how an app this machine can't attach to by pid is started."""
    listen = "for an app in a container, on another host or in a pod: `gradle-repl agent-path --listen PORT`"
    jar = agent_jar_path()
    if jar.is_file():
        return [Finding("ok", "attach agent", f"{jar}; {listen}")]
    return [
        Finding(
            "info",
            "attach agent",
            f"{jar} (not built yet: the first attach or `gradle-repl agent-path` builds it); {listen}",
        )
    ]


def check_token() -> list[Finding]:
    """The bearer token `serve --http` requires: from GRADLE_REPL_TOKEN or the token file, which only its owner may read."""
    given = os.environ.get(TOKEN_ENV)
    if given is not None:
        if len(given.strip()) < MIN_TOKEN_CHARS:
            return [
                Finding(
                    "warn",
                    "HTTP token",
                    f"{TOKEN_ENV} is {len(given.strip())} characters: serve --http refuses it",
                    f"use at least {MIN_TOKEN_CHARS} characters, or unset it to use a generated token",
                )
            ]
        return [Finding("ok", "HTTP token", f"from {TOKEN_ENV}")]
    path = token_path()
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return [
            Finding(
                "info",
                "HTTP token",
                f"not made yet: `gradle-repl token` or the first `serve --http` makes {path} (mode 0600)",
            )
        ]
    if os.name == "posix" and mode & 0o077:
        return [
            Finding(
                "warn",
                "HTTP token",
                f"{path} has mode {mode:04o}: other users can read it",
                f"chmod 600 {path} (the server also does when it next reads it)",
            )
        ]
    return [Finding("ok", "HTTP token", f"{path}, mode {mode:04o}")]


def check_cache() -> list[Finding]:
    """Where the cache is, how big, and which gradle-repl processes use it now."""
    cache = cache_dir()
    total = sum(kind.size_bytes for kind in cache_usage(cache))
    findings = [
        Finding(
            "info",
            "cache",
            f"{human_size(total)} at {cache} (`gradle-repl cache` shows it by kind, `cache clean` empties it)",
        )
    ]
    users = cache_users(cache)
    if users:
        findings.append(
            Finding("info", "cache", "in use by " + ", ".join(f"pid {user.pid} ({user.what})" for user in users))
        )
    return findings


def check_kotlin_daemons() -> list[Finding]:
    """The Kotlin daemons gradle-repl's edit builds started: each holds memory until its idle shutdown."""
    daemons = started_kotlin_daemons()
    if not daemons:
        return [Finding("info", "Kotlin daemons", "none started by gradle-repl is running")]
    listed = ", ".join(f"pid {daemon.pid} ({human_size(daemon.rss_bytes)})" for daemon in daemons)
    minutes = daemons[0].idle_shutdown_seconds // 60
    return [
        Finding(
            "info",
            "Kotlin daemons",
            f"{listed}; each stops {minutes} min after its last build (kill PID stops one now)",
        )
    ]
