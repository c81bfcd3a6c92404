"""The JDKs installed on this machine, found without starting a JVM: where each is, its Java version and which of
the tools gradle-repl runs from it it has.

A session's JVM runs on the JDK its build names (Maven's: JAVA_HOME, else the `java` on PATH); an attached session's
worker runs on the JDK of the app it attaches to, whose `javac` builds the agent and whose `jcmd` reads the app's class
path (worker/artifacts/agent_jar.py, project/attach_target.py). So what matters of a JDK is its version and those tools, all
readable from its directory: the `release` file names the version.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from gradle_repl.project.running_jvms import MINIMUM_JAVA, java_home_of, java_release_version

__all__ = ["Jdk", "installed_jdks", "default_jdk", "jdk_at", "java_feature"]

_EXE = ".exe" if os.name == "nt" else ""

# Where JDKs are installed, by the platform's packages and by the usual installers, each a directory of JDK homes.
_JDK_FOLDERS = (
    Path("/usr/lib/jvm"),  # Debian, Ubuntu, Fedora packages
    Path("/usr/java"),  # Oracle's RPMs
    Path("/opt/java"),
    Path("/Library/Java/JavaVirtualMachines"),  # macOS: <name>.jdk/Contents/Home
    Path.home() / "Library/Java/JavaVirtualMachines",
    Path.home() / ".sdkman/candidates/java",  # SDKMAN!
    Path.home() / ".jdks",  # IntelliJ IDEA's downloads
    Path.home() / ".gradle/jdks",  # Gradle's toolchain downloads
    Path.home() / ".asdf/installs/java",
)


@dataclass(frozen=True)
class Jdk:
    home: Path
    version: str | None  # JAVA_VERSION of its release file ("17.0.15"), None when it has none
    has_javac: bool
    has_jcmd: bool

    @property
    def feature(self) -> int | None:
        """The Java feature release (17 of "17.0.15", 8 of "1.8.0_402")."""
        return java_feature(self.version)

    def why_not_attach_target(self) -> str | None:
        """Why an app running on this JDK can't be attached to, or None when it can."""
        if self.feature is not None and self.feature < MINIMUM_JAVA:
            return f"Java {self.version}; attaching needs Java {MINIMUM_JAVA}+"
        missing = [tool for tool, present in (("javac", self.has_javac), ("jcmd", self.has_jcmd)) if not present]
        if missing:
            return f"no {' or '.join(missing)} (a JRE?): attaching needs the app to run on a full JDK"
        return None


def java_feature(version: str | None) -> int | None:
    if not version:
        return None
    parts = version.split(".")
    try:
        return int(parts[1]) if parts[0] == "1" and len(parts) > 1 else int(parts[0].split("-")[0].split("+")[0])
    except ValueError:
        return None


def jdk_at(home: Path) -> Jdk | None:
    """The JDK (or JRE) at home, or None when home holds no `bin/java`."""
    bin_dir = home / "bin"
    if not (bin_dir / f"java{_EXE}").is_file():
        return None
    return Jdk(
        home, java_release_version(str(home)), (bin_dir / f"javac{_EXE}").is_file(), (bin_dir / f"jcmd{_EXE}").is_file()
    )


def default_jdk() -> tuple[Jdk | None, str]:
    """The JDK a build started from here runs on — JAVA_HOME, else the `java` on PATH, as mvn and gradle pick it —
    and where it was found ("JAVA_HOME", "the java on PATH"); None with the reason when there is none."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        jdk = jdk_at(Path(java_home))
        return (jdk, "JAVA_HOME") if jdk else (None, f"JAVA_HOME is {java_home}, which has no bin/java")
    java = shutil.which("java")
    if java is None:
        return None, "no JAVA_HOME and no java on PATH"
    return jdk_at(Path(java_home_of(java))), "the java on PATH"


def installed_jdks() -> list[Jdk]:
    """Every JDK found in the usual install folders, JAVA_HOME's and the one on PATH, once each (by real path),
    newest Java first."""
    homes: list[Path] = []
    if os.environ.get("JAVA_HOME"):
        homes.append(Path(os.environ["JAVA_HOME"]))
    if java := shutil.which("java"):
        homes.append(Path(java_home_of(java)))
    for folder in _JDK_FOLDERS:
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            homes.append(entry / "Contents" / "Home" if (entry / "Contents" / "Home").is_dir() else entry)
    seen: set[Path] = set()
    found: list[Jdk] = []
    for home in homes:
        real = home.resolve()
        if real in seen:
            continue
        seen.add(real)
        if (jdk := jdk_at(real)) is not None:
            found.append(jdk)
    return sorted(found, key=lambda jdk: (-(jdk.feature or 0), str(jdk.home)))
