"""A machine's first Maven resolve fetches alongside the build what it would otherwise fetch after it.

On an empty local repository a resolve is mostly downloads, one artifact after another: the build's plugins and
dependencies, then maven-help-plugin's tree for the effective POM, then the Kotlin REPL's jars (toolchain.py). On a new
machine that was 66 s for sample-project, 20 s of it the help plugin and the REPL's jars after the compile. Alongside
the build, a second Maven run writes the effective POM alone (it compiles nothing), and the Kotlin version read from it
names the REPL jars and @file:DependsOn's resolver, which are then fetched while the build still runs — each group asked
for as the resolve asks for it, so the resolve finds it in the toolchain cache. The build's own effective POM stays the
one the environment is read from: this run only fills the local repository and the toolchain cache sooner.

Once every group is in, `on_fetched` gets them, with the effective POM and the build's banner (which names its JDK):
the resolve hands the REPL's jars to the host from there (environment.ReplJarsReady), which compiles gradle-repl's
facade while the build still runs.

The fetch starts once the build's Maven prints its banner: a project's `mvnw` has then installed its Maven, which two
wrappers started at once could both download to one file. A build that fails cancels it: the fetch then asks for no
jars, and its Maven run ends when the resolve's process does (every build runs under the build guard).

Only a first resolve gains: later ones find the help plugin in the local repository, and a second Maven JVM (~2.5 s of
CPU) would buy them nothing. The cache keeps a mark once this has run, so a local repository kept where this module
doesn't look (`.mvn/maven.config`, say) costs one extra run, not one per resolve.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from gradle_repl.paths import cache_dir
from gradle_repl.project.maven_repository import local_repository
from gradle_repl.project.process import ProgressCallback, run_streaming
from gradle_repl.project.toolchain import MVN_TIMEOUT_SECONDS, Coordinate, ResolvedJars, resolve_jars

__all__ = ["FirstRunFetch", "first_run_fetch", "HELP_PLUGIN"]

_log = logging.getLogger(__name__)

# What the effective POM needs, and so what a local repository that has served one resolve holds.
HELP_PLUGIN = Path("org/apache/maven/plugins/maven-help-plugin")
# `mvn -V` prints this first: by then a wrapper has installed the Maven it runs.
_BANNER = "Apache Maven "

# From an effective POM, the toolchain requests the resolve will make after its build, each as it makes it (a request
# is one toolchain cache entry).
JarRequests = Callable[[Path], list[dict[str, list[Coordinate]]]]
# Called once every request is fetched: with the effective POM, the jars of each request in order, and the build's
# banner lines (up to its JDK's).
JarsFetched = Callable[[Path, list[ResolvedJars], list[str]], None]
# The banner's last line that is read: the JDK Maven runs on (`mvn -V` prints it third); a build whose banner lacks it
# is read no further than this many lines.
_JAVA_LINE = "Java version:"
_BANNER_LINES = 8


def _mark() -> Path:
    return cache_dir() / "maven-first-run"


class FirstRunFetch:
    """The fetch beside a first resolve's build: started by the build's banner (`on_line`), waited for before the
    resolve asks for the REPL's jars itself, cancelled when the build fails."""

    def __init__(
        self,
        root: Path,
        reactor: list[str],
        environ: dict[str, str],
        jar_requests: JarRequests,
        on_fetched: JarsFetched | None = None,
    ) -> None:
        self._root, self._reactor, self._environ, self._jar_requests = root, reactor, environ, jar_requests
        self._on_fetched = on_fetched
        self._cancelled = threading.Event()
        self._thread: threading.Thread | None = None
        # The build's banner, from its first line to the JDK's: read by the fetch's thread once its jars are in.
        self._banner: list[str] = []
        self._banner_read = threading.Event()

    def on_line(self, line: str) -> None:
        """Reads the build's output; its banner starts the fetch."""
        if self._thread is not None and not self._banner_read.is_set():
            self._banner.append(line)
            if line.startswith(_JAVA_LINE) or len(self._banner) >= _BANNER_LINES:
                self._banner_read.set()
        if self._thread is None and line.startswith(_BANNER):
            self._banner.append(line)
            _mark().parent.mkdir(parents=True, exist_ok=True)
            _mark().touch()
            # A daemon thread: a process whose resolve failed exits without waiting for it.
            self._thread = threading.Thread(target=self._fetch, name="maven-first-run-fetch", daemon=True)
            self._thread.start()

    def wait(self, on_progress: ProgressCallback | None) -> None:
        if self._thread is not None and self._thread.is_alive():
            if on_progress is not None:
                on_progress(
                    "waiting for the Kotlin REPL's jars and @file:DependsOn's resolver, fetched beside the build (first run)"
                )
            self._thread.join()

    def cancel(self) -> None:
        self._cancelled.set()

    def _fetch(self) -> None:
        work = Path(tempfile.mkdtemp(prefix="first-run-", dir=_mark().parent))
        effective = work / "effective-pom.xml"
        try:
            outcome = run_streaming(
                [*self._reactor, "-q", "help:effective-pom", f"-Doutput={effective}"],
                cwd=self._root,
                timeout_seconds=MVN_TIMEOUT_SECONDS,
                env=self._environ,
            )
            if outcome.returncode == 0 and effective.is_file() and not self._cancelled.is_set():
                # All at once: on an empty local repository each is mostly waiting on downloads.
                requests = self._jar_requests(effective)
                fetched: list[ResolvedJars | None] = [None] * len(requests)

                def fetch(index: int) -> None:
                    fetched[index] = _fetch_quietly(requests[index])

                fetches = [
                    threading.Thread(target=fetch, args=(index,), name="maven-first-run-jars", daemon=True)
                    for index in range(len(requests))
                ]
                for thread in fetches:
                    thread.start()
                for thread in fetches:
                    thread.join()
                jars = [group for group in fetched if group is not None]
                if self._on_fetched is not None and len(jars) == len(requests) and not self._cancelled.is_set():
                    self._on_fetched(effective, jars, self._banner if self._banner_read.is_set() else [])
        except Exception:  # noqa: BLE001 - the resolve fetches whatever this could not, and reports its own errors
            _log.debug("the first-run fetch failed; the resolve fetches what it needs itself", exc_info=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _fetch_quietly(requests: dict[str, list[Coordinate]]) -> ResolvedJars | None:
    try:
        return resolve_jars(requests)
    except Exception:  # noqa: BLE001 - the resolve asks again and reports the error as its own
        _log.debug("a first-run fetch of %s failed; the resolve fetches it itself", sorted(requests), exc_info=True)
        return None


def first_run_fetch(
    root: Path,
    reactor: list[str],
    environ: dict[str, str],
    jar_requests: JarRequests,
    on_fetched: JarsFetched | None = None,
) -> FirstRunFetch | None:
    """A fetch for this resolve when it is a first one (no Maven resolve has filled the local repository yet, nor
    started a fetch); None otherwise. `reactor` is the build's mvn command up to its goals (the POM, and the module
    with the modules it needs), run in the build's root as the build is; `jar_requests` names the toolchain requests
    the resolve will make, from an effective POM; `on_fetched` gets their jars once all are in."""
    if _mark().exists() or (local_repository(environ) / HELP_PLUGIN).is_dir():
        return None
    return FirstRunFetch(root, reactor, environ, jar_requests, on_fetched)
