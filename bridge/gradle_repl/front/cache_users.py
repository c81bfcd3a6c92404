"""The gradle-repl processes on this machine that use a given cache directory: what `gradle-repl cache clean` must not
pull jars and archives from under.

Three kinds hold the cache while they live: a session's worker (`python -m gradle_repl.worker`, host/launcher.py) maps
the class-data archive and loads the facade, agent and toolchain jars; a build's guard (`python -m
gradle_repl.project.buildguard`, project/process.py) runs a build that holds a lock there and may load the Maven
extension's jar; a front end that keeps sessions (serve, repl, eval, check, resolve, demo) watches files from there
and starts workers. Each one's cache is the GRADLE_REPL_CACHE_DIR it was started with (every GRADLE_REPL_* variable
reaches workers and builds), else the user's default. A process whose variables can't be read (another user's, on
some systems) counts as a user: a clean that waits costs less than a session that breaks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import psutil

from gradle_repl.paths import CACHE_DIR_ENV, default_cache_dir

__all__ = ["CacheUser", "cache_users"]

# The modules host/launcher.py and project/process.py run with `python -m`, by what they are to a user.
_MODULES = {"gradle_repl.worker": "session worker", "gradle_repl.project.buildguard": "build"}
# The commands of the `gradle-repl` CLI that start sessions or builds; the others (cache, doctor, token, ...) don't.
_SESSION_COMMANDS = {"serve", "repl", "eval", "check", "resolve", "demo"}


@dataclass(frozen=True)
class CacheUser:
    pid: int
    what: str  # "session worker", "build", "gradle-repl serve", ...


def _what(cmdline: list[str]) -> str | None:
    """What a command line is to gradle-repl's cache, or None when it is no process of gradle-repl's that uses it."""
    for index, word in enumerate(cmdline[:-1]):
        following = cmdline[index + 1]
        if word == "-m" and following in _MODULES:
            return _MODULES[following]
        # `python -m gradle_repl serve`, or the console script: `python .../bin/gradle-repl serve`.
        command = (
            cmdline[index + 2]
            if word == "-m" and following == "gradle_repl" and index + 2 < len(cmdline)
            else following
        )
        if (
            (word == "-m" and following == "gradle_repl") or Path(word).name == "gradle-repl"
        ) and command in _SESSION_COMMANDS:
            return f"gradle-repl {command}"
    return None


def _cache_of(process: psutil.Process) -> Path | None:
    """The cache directory the process was started with; None when its variables can't be read."""
    try:
        override = process.environ().get(CACHE_DIR_ENV)
    except (psutil.AccessDenied, psutil.ZombieProcess, OSError):
        return None
    return Path(override) if override else default_cache_dir()


def cache_users(cache: Path) -> list[CacheUser]:
    """The live gradle-repl processes whose cache directory is cache (or can't be told), by pid; never this one."""
    wanted = cache.resolve()
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if process.pid == os.getpid():
            continue
        try:
            what = _what(process.info["cmdline"] or [])
            if what is None:
                continue
            theirs = _cache_of(process)
        except psutil.NoSuchProcess:
            continue
        if theirs is None or theirs.resolve() == wanted:
            found.append(CacheUser(process.pid, what))
    return sorted(found, key=lambda user: user.pid)
