"""What gradle-repl keeps under its cache directory, by kind, with each kind's size; and removing it all.

Every kind is something gradle-repl makes again on the next call that needs it (a facade compiled, an environment
resolved, an archive trained), so a clean costs time, never correctness. The table names the modules that write each
kind; a directory it doesn't know (an older version's) is listed and cleaned as "other".
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CACHE_KINDS", "KindUsage", "cache_usage", "clean_cache", "human_size"]

# Directory under the cache → what it holds (and who writes it).
CACHE_KINDS: dict[str, str] = {
    "facade": "the Kotlin facade and its add-ons, compiled per Kotlin version; the class-update agent (worker/artifacts/facade.py)",
    "class-data": "class-data archives of the compiler's classes, about 94 MB per JDK and compiler (worker/artifacts/classdata.py)",
    "toolchain": "class paths of the Kotlin jars fetched through Maven; the jars stay in Maven's repository (project/toolchain.py)",
    "environments": "resolved project environments: the resolve cache (project/cache.py)",
    "agent": "attach agent jars, one per agent build (worker/artifacts/agent_jar.py)",
    "maven-extension": "the Maven extension that narrows a main session's class path (project/buildtools/maven_extension.py)",
    "boot-jars": "Spring Boot fat jars expanded for attached sessions (project/boot_jar.py)",
    "app-classpath": "class path entries fetched from apps attached over TCP, by SHA-256 (worker/link/app_classpath.py)",
    "last-build-tool": "the build tool that last worked, per project (project/buildtools/choice.py)",
    "watch": "the file watcher's marker directories (project/watch.py)",
    "locks": "a lock file per project, so two processes build it once (project/buildlock.py)",
}
OTHER = "other"


@dataclass(frozen=True)
class KindUsage:
    kind: str  # a key of CACHE_KINDS, or OTHER
    size_bytes: int
    files: int

    @property
    def description(self) -> str:
        return CACHE_KINDS.get(self.kind, "what this version of gradle-repl doesn't write (an older version's)")


def _tree_size(path: Path) -> tuple[int, int]:
    """Bytes and files under path (path itself when it is a file); links are counted, not followed."""
    if path.is_symlink() or path.is_file():
        return path.lstat().st_size, 1
    size = files = 0
    for directory, _, names in os.walk(path):
        for name in names:
            try:
                size += (Path(directory) / name).lstat().st_size
            except OSError:
                continue  # removed while we walked
            files += 1
    return size, files


def cache_usage(cache: Path) -> list[KindUsage]:
    """Each kind present under cache with its size, in CACHE_KINDS' order, then everything else as one OTHER."""
    if not cache.is_dir():
        return []
    entries = {entry.name: entry for entry in cache.iterdir()}
    usage = []
    for kind in CACHE_KINDS:
        if kind in entries:
            usage.append(KindUsage(kind, *_tree_size(entries.pop(kind))))
    if entries:
        sizes = [_tree_size(entry) for entry in entries.values()]
        usage.append(KindUsage(OTHER, sum(size for size, _ in sizes), sum(files for _, files in sizes)))
    return usage


def clean_cache(cache: Path) -> int:
    """Removes everything under cache (the directory itself stays); the bytes it held."""
    freed = sum(kind.size_bytes for kind in cache_usage(cache))
    for entry in cache.iterdir() if cache.is_dir() else []:
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    return freed


def human_size(size: int) -> str:
    """1536 → "1.5 KB": sizes in powers of 1024, one decimal below 10."""
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            if unit == "bytes":
                return f"{size} bytes"
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")
