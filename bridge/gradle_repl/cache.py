"""Resolved environments on disk, keyed by project, source set and a hash of the build inputs."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from pydantic import BaseModel, ValidationError

from .environment import ReplEnvironment
from .paths import cache_dir

__all__ = ["CacheKey", "EnvironmentCache"]


class CacheKey(BaseModel):
    build_tool: str
    project_root: str
    project_path: str
    source_set: str
    build_inputs_hash: str

    def digest(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:32]


class _Entry(BaseModel):
    key: CacheKey
    resolved_at: float
    environment: ReplEnvironment


class EnvironmentCache:
    def __init__(self, directory: Path | None = None) -> None:
        self._directory = directory or cache_dir() / "environments"

    def _path(self, key: CacheKey) -> Path:
        return self._directory / f"{key.digest()}.json"

    def get(self, key: CacheKey, *, sources_changed_after: float) -> ReplEnvironment | None:
        """The cached environment, unless missing, corrupt, for other inputs, or older than the sources."""
        path = self._path(key)
        try:
            entry = _Entry.model_validate_json(path.read_bytes())
        except (OSError, ValidationError, json.JSONDecodeError):
            return None
        if entry.key != key or entry.resolved_at < sources_changed_after:
            return None
        if not all(Path(p).exists() for p in entry.environment.classpath + entry.environment.repl_host_classpath):
            return None
        return entry.environment

    def put(self, key: CacheKey, environment: ReplEnvironment, *, resolved_at: float | None = None) -> None:
        self._directory.mkdir(parents=True, exist_ok=True)
        entry = _Entry(key=key, resolved_at=resolved_at if resolved_at is not None else time.time(), environment=environment)
        path = self._path(key)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        temporary.write_text(entry.model_dump_json(), encoding="utf-8")
        os.replace(temporary, path)
