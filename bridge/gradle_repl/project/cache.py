"""Resolved environments on disk: one entry per project, module, source set and resolver, with the
fingerprint of the inputs it was built from.

Entries are read from disk once per process and kept in memory while the file is unchanged: a large
project's fingerprint is a few hundred kilobytes of JSON, too much to parse before every snippet.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path

from pydantic import BaseModel, ValidationError

from gradle_repl.environment import ReplEnvironment
from gradle_repl.paths import cache_dir
from gradle_repl.project.build_inputs import Fingerprint

__all__ = ["CacheKey", "CacheEntry", "EnvironmentCache"]


class CacheKey(BaseModel):
    build_tool: str
    project_root: str
    project_path: str
    source_set: str
    # What else decides the result besides the project's files: gradle-repl's own resolver code, the
    # JDK the build tool runs on, the tool's settings from the environment (buildtools/*.facts).
    facts: dict[str, str]

    def digest(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:32]


class CacheEntry(BaseModel):
    key: CacheKey
    resolved_at: float
    fingerprint: Fingerprint
    environment: ReplEnvironment

    def identity(self) -> tuple[str, float]:
        return (self.key.digest(), self.resolved_at)


class EnvironmentCache:
    def __init__(self, directory: Path | None = None) -> None:
        self._directory = directory or cache_dir() / "environments"

    def _path(self, key: CacheKey) -> Path:
        return self._directory / f"{key.digest()}.json"

    def get(self, key: CacheKey) -> CacheEntry | None:
        """The entry stored for key, unless missing or corrupt; freshness is the caller's question."""
        path = self._path(key)
        try:
            info = path.stat()
        except OSError:
            return None
        stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        with _MEMO_LOCK:
            memo = _MEMO.get(path)
        if memo is not None and memo[0] == stamp:
            return memo[1]
        try:
            entry = CacheEntry.model_validate_json(path.read_bytes())
        except (OSError, ValidationError, json.JSONDecodeError):
            return None
        if entry.key != key:
            return None
        with _MEMO_LOCK:
            _MEMO[path] = (stamp, entry)
        return entry

    def put(
        self, key: CacheKey, environment: ReplEnvironment, fingerprint: Fingerprint, *, resolved_at: float | None = None
    ) -> CacheEntry:
        self._directory.mkdir(parents=True, exist_ok=True)
        entry = CacheEntry(
            key=key,
            resolved_at=resolved_at if resolved_at is not None else time.time(),
            fingerprint=fingerprint,
            environment=environment,
        )
        path = self._path(key)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        temporary.write_text(entry.model_dump_json(), encoding="utf-8")
        os.replace(temporary, path)
        return entry


# Parsed entries by file, valid while the file's stat is unchanged.
_MEMO: dict[Path, tuple[tuple[int, int, int], CacheEntry]] = {}
_MEMO_LOCK = threading.Lock()
