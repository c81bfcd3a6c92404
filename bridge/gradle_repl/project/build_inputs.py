"""What a resolved environment depends on, and a fingerprint that tells whether any of it changed.

A build tool names its inputs (buildtools/base.py): directory trees (the project root first, then
directories outside it that the build reads) and single files (user settings, parent POMs). Every
file in the trees counts, except build output and tool state: sources and resources change what
the build compiles, build files change the build itself. Build files are hashed (their content is
the build's shape); everything else is compared by stat (mtime, size, inode), so a check costs one
stat per file and reads nothing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

__all__ = ["Inputs", "Fingerprint", "Stat", "is_ignored", "walk_inputs"]

# Directories holding a module's build output, skipped only where they are output: directly in a
# module root (src/main/kotlin/com/x/build/ is a package and stays an input).
# "bin" is where Eclipse and VS Code's Java support build a module.
OUTPUT_DIRS = frozenset({"build", "target", "out", "bin"})
# Files whose presence makes a directory a module root (where output directories sit).
MODULE_MARKERS = ("pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "src")
# Tool state and caches, skipped at any depth; so is any other directory whose name starts with a dot.
TOOL_DIRS = frozenset({"node_modules", "__pycache__"})
# Hidden directories that are build inputs after all.
KEPT_HIDDEN_DIRS = frozenset({".mvn"})

Stat = tuple[int, int, int]


@dataclass(frozen=True)
class Inputs:
    """The trees and single files a build reads; `is_build_file` picks the files whose content shapes the build."""

    trees: tuple[Path, ...]
    files: tuple[Path, ...] = ()
    is_build_file: Callable[[Path, Path], bool] = field(default=lambda path, tree: False, compare=False)


def _skipped_file(name: str) -> bool:
    # Editor swap and backup files come and go while a file is open; they are never inputs.
    return name.startswith(".") or name.endswith(("~", ".swp", ".tmp"))


def _skipped_dir(name: str, parent_is_module: bool) -> bool:
    if name in TOOL_DIRS or (name.startswith(".") and name not in KEPT_HIDDEN_DIRS):
        return True
    return parent_is_module and name in OUTPUT_DIRS


def walk_inputs(tree: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """Every input file under tree with its stat; follows directory symlinks once, skips dangling links."""
    seen: set[tuple[int, int]] = set()
    stack = [tree]
    while stack:
        directory = stack.pop()
        try:
            info = directory.stat()
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError:
            continue
        names = {entry.name for entry in entries}
        is_module = directory == tree or any(marker in names for marker in MODULE_MARKERS)
        for entry in entries:
            try:
                if entry.is_dir():
                    if not _skipped_dir(entry.name, is_module):
                        stack.append(Path(entry.path))
                elif not _skipped_file(entry.name):
                    yield Path(entry.path), entry.stat()
            except OSError:
                # A dangling symlink or a file gone while walking: not an input now.
                continue


def is_ignored(path: Path, tree: Path, _module_roots: dict[Path, bool] | None = None) -> bool:
    """Whether a path under tree is one walk_inputs skips (a watcher's event on it changes nothing)."""
    try:
        parts = path.relative_to(tree).parts
    except ValueError:
        return True
    if not parts:
        return False
    directories = parts if path.is_dir() else parts[:-1]
    if directories is not parts and _skipped_file(parts[-1]):
        return True
    cache = _module_roots if _module_roots is not None else {}
    parent = tree
    for name in directories:
        if parent not in cache:
            cache[parent] = parent == tree or any((parent / marker).exists() for marker in MODULE_MARKERS)
        if _skipped_dir(name, cache[parent]):
            return True
        parent = parent / name
    return False


def _stat(info: os.stat_result) -> Stat:
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def _hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class Fingerprint(BaseModel):
    """The state of a build's inputs at one moment: stats of all of them, hashes of build files."""

    trees: list[str]
    files: list[str]
    stats: dict[str, Stat]
    build_hashes: dict[str, str]

    @classmethod
    def take(cls, inputs: Inputs) -> Fingerprint:
        stats: dict[str, Stat] = {}
        hashes: dict[str, str] = {}
        for tree in inputs.trees:
            for path, info in walk_inputs(tree):
                stats[str(path)] = _stat(info)
                if inputs.is_build_file(path, tree):
                    digest = _hash(path)
                    if digest is not None:
                        hashes[str(path)] = digest
        for path in inputs.files:
            try:
                stats[str(path)] = _stat(path.stat())
            except OSError:
                continue
            if path.is_file() and (digest := _hash(path)) is not None:
                hashes[str(path)] = digest
        return cls(
            trees=[str(t) for t in inputs.trees], files=[str(f) for f in inputs.files], stats=stats, build_hashes=hashes
        )

    def build_hash(self) -> str:
        """One digest of the build files' contents (not their place in time)."""
        digest = hashlib.sha256()
        for path in sorted(self.build_hashes):
            digest.update(f"{path}\0{self.build_hashes[path]}\0".encode())
        return digest.hexdigest()

    def change(self) -> str | None:
        """What changed since this fingerprint was taken (the first difference found), or None."""
        return self.change_in_trees() or self.change_in_files()

    def change_in_trees(self) -> str | None:
        """The first difference in the trees: one stat per file, a hash only of build files whose stat moved."""
        files = set(self.files)
        remaining = {path for path in self.stats if path not in files}
        seen: set[str] = set()
        for tree in self.trees:
            for path, info in walk_inputs(Path(tree)):
                name = str(path)
                if name in seen:
                    continue
                seen.add(name)
                if name not in remaining:
                    return f"{name} was added"
                remaining.discard(name)
                if (reason := self._differs(name, _stat(info))) is not None:
                    return reason
        if remaining:
            return f"{min(remaining)} was deleted or renamed"
        return None

    def change_in_files(self) -> str | None:
        """The first difference among the single files (a few user settings and parent POMs)."""
        for name in self.files:
            try:
                stat: Stat | None = _stat(Path(name).stat())
            except OSError:
                stat = None
            if stat is None or name not in self.stats:
                if (stat is None) != (name not in self.stats):
                    return f"{name} was {'deleted' if stat is None else 'added'}"
                continue
            if (reason := self._differs(name, stat)) is not None:
                return reason
        return None

    def _differs(self, name: str, stat: Stat) -> str | None:
        if self.stats[name] == stat:
            return None
        if name in self.build_hashes and _hash(Path(name)) == self.build_hashes[name]:
            return None
        return f"{name} changed"
