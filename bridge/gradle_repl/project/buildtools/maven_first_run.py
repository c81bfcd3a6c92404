"""A machine's first Maven resolve fetches alongside the build what it would otherwise fetch after it.

On an empty local repository a resolve is mostly downloads, one artifact after another: the build's plugins and
dependencies, then maven-help-plugin's tree for the effective POM, then the Kotlin REPL's jars (toolchain.py). On a new
machine that was 66 s for sample-project, 20 s of it the help plugin and the REPL's jars after the compile. Alongside
the build, a second Maven run writes the effective POM alone (it compiles nothing), and the Kotlin version read from it
names the REPL jars, which are then fetched while the build still runs. The build's own effective POM stays the one the
environment is read from: this run only fills the local repository and the toolchain cache sooner.

Only a first resolve gains: later ones find the help plugin in the local repository, and a second Maven JVM (~2.5 s of
CPU) would buy them nothing. The cache keeps a mark once this has run, so a local repository kept where this module
doesn't look (`.mvn/maven.config`, say) costs one extra run, not one per resolve.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from gradle_repl.paths import cache_dir
from gradle_repl.project.process import run_streaming
from gradle_repl.project.toolchain import MVN_TIMEOUT_SECONDS, Coordinate, resolve_jars

__all__ = ["FirstRunFetch", "is_first_maven_run", "start_first_run_fetch", "local_repository"]

# What the effective POM needs, and so what a local repository that has served one resolve holds.
_HELP_PLUGIN = Path("org/apache/maven/plugins/maven-help-plugin")
_REPO_LOCAL = re.compile(r"-Dmaven\.repo\.local=(\S+)")
_SETTINGS_REPOSITORY = re.compile(r"<localRepository>\s*([^<]+?)\s*</localRepository>")

JarRequests = Callable[[Path], dict[str, list[Coordinate]]]


def local_repository(environ: Mapping[str, str]) -> Path:
    """Where Maven keeps downloads: `-Dmaven.repo.local` in MAVEN_OPTS or MAVEN_ARGS, else the user settings'
    `<localRepository>`, else ~/.m2/repository."""
    for name in ("MAVEN_ARGS", "MAVEN_OPTS"):
        if match := _REPO_LOCAL.search(environ.get(name, "")):
            return Path(match.group(1)).expanduser()
    settings = Path.home() / ".m2" / "settings.xml"
    try:
        configured = _SETTINGS_REPOSITORY.search(settings.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        configured = None
    return Path(configured.group(1)).expanduser() if configured else Path.home() / ".m2" / "repository"


class FirstRunFetch:
    """The fetch running beside a build; the resolve waits for it before it asks for the REPL's jars itself."""

    def __init__(self, fetch: Callable[[], None]) -> None:
        self._thread = threading.Thread(target=fetch, name="maven-first-run-fetch", daemon=True)
        self._thread.start()

    def wait(self) -> None:
        self._thread.join()


def _mark() -> Path:
    return cache_dir() / "maven-first-run"


def is_first_maven_run(environ: Mapping[str, str]) -> bool:
    """Whether no Maven resolve has filled the local repository yet, nor started a first-run fetch."""
    return not _mark().exists() and not (local_repository(environ) / _HELP_PLUGIN).is_dir()


def start_first_run_fetch(
    root: Path, reactor: list[str], environ: dict[str, str], jar_requests: JarRequests
) -> FirstRunFetch:
    """Starts fetching the effective POM's plugin and the REPL's jars (`jar_requests` names them, from an effective
    POM). `reactor` is the build's mvn command up to its goals (the POM, and the module with the modules it needs),
    run in the build's root as the build is."""
    mark = _mark()
    mark.parent.mkdir(parents=True, exist_ok=True)
    mark.touch()

    def fetch() -> None:
        work = Path(tempfile.mkdtemp(prefix="first-run-", dir=mark.parent))
        effective = work / "effective-pom.xml"
        try:
            outcome = run_streaming(
                [*reactor, "-q", "help:effective-pom", f"-Doutput={effective}"],
                cwd=root,
                timeout_seconds=MVN_TIMEOUT_SECONDS,
                env=environ,
            )
            if outcome.returncode == 0 and effective.is_file():
                resolve_jars(jar_requests(effective))
        except Exception:  # noqa: BLE001 - the resolve fetches whatever this could not, and reports its own errors
            pass
        finally:
            shutil.rmtree(work, ignore_errors=True)

    return FirstRunFetch(fetch)
