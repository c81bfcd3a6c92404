"""What a resolved environment depends on: the build's input files, hashed, and its sources' age.

Build inputs decide the cache key. Source files don't change the environment's shape, but a
snippet must see the project's latest code, so a source newer than the cached resolve (which
compiled the project) makes the cache entry stale.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from .buildtools import BuildTool

__all__ = ["build_inputs", "hash_build_inputs", "newest_source_mtime"]

# Directories that hold outputs, caches or tools, never build inputs.
_SKIP_DIRS = {".git", ".gradle", ".idea", ".venv", "build", "target", "out", "node_modules", "__pycache__", ".kotlin"}
_SOURCE_SUFFIXES = (".kt", ".java", ".kts")


def _walk(root: Path) -> Iterator[Path]:
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in _SKIP_DIRS)
        for name in sorted(files):
            yield Path(directory) / name


def build_inputs(root: Path, tool: BuildTool) -> list[Path]:
    return [path for path in _walk(root) if tool.is_build_input(path, root)]


def hash_build_inputs(root: Path, tool: BuildTool) -> str:
    digest = hashlib.sha256()
    for path in build_inputs(root, tool):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def newest_source_mtime(root: Path) -> float:
    """The newest modification time among the project's Kotlin and Java sources."""
    newest = 0.0
    for path in _walk(root):
        if path.name.endswith(_SOURCE_SUFFIXES) and not path.name.endswith(".gradle.kts"):
            newest = max(newest, path.stat().st_mtime)
    return newest
