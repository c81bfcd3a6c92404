"""Chooses the build tool and returns a project's REPL environment, from the cache when still valid."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .build_inputs import hash_build_inputs, newest_source_mtime
from .buildtools import BUILD_TOOLS, BuildTool, BuildToolChoice, build_tool
from .cache import CacheKey, EnvironmentCache
from .environment import ReplEnvironment
from .errors import BuildToolNotFound, GradleReplError
from .process import ProgressCallback

__all__ = ["BuildToolChoice", "Resolved", "choose_build_tool", "resolve_environment"]


@dataclass(frozen=True)
class Resolved:
    environment: ReplEnvironment
    from_cache: bool
    seconds: float

    def origin(self) -> str:
        return "from cache" if self.from_cache else f"resolved in {self.seconds:.1f} s"


def _check_root(project_root: str | Path) -> Path:
    root = Path(project_root).expanduser()
    if not str(project_root).strip():
        raise GradleReplError("projectRoot is empty; pass the absolute path of a Gradle or Maven project")
    if not root.exists():
        raise GradleReplError(f"projectRoot {root} does not exist")
    if not root.is_dir():
        raise GradleReplError(f"projectRoot {root} is not a directory")
    return root.resolve()


def choose_build_tool(root: Path, choice: BuildToolChoice) -> BuildTool:
    """auto: the first registered tool whose build is here and that can run, else the first whose build is here."""
    if choice != "auto":
        tool = build_tool(choice)
        if not tool.detect(root):
            raise BuildToolNotFound(f"no {tool.build_files} in {root}")
        return tool
    present = [tool for tool in BUILD_TOOLS if tool.detect(root)]
    if not present:
        builds = " and ".join(f"no {t.name.capitalize()} build ({t.build_files})" for t in BUILD_TOOLS)
        raise BuildToolNotFound(f"{root} has {builds}")
    for tool in present:
        try:
            tool.check_runnable(root)
            return tool
        except BuildToolNotFound:
            if tool is present[-1]:
                raise
    return present[0]


def resolve_environment(
    project_root: str | Path,
    *,
    project_path: str = ":",
    source_set: str = "main",
    build_tool: BuildToolChoice = "auto",
    refresh: bool = False,
    on_progress: ProgressCallback | None = None,
    cache: EnvironmentCache | None = None,
) -> Resolved:
    started = time.monotonic()
    root = _check_root(project_root)
    tool = choose_build_tool(root, build_tool)
    # One build per project at a time: concurrent builds would clobber each other's outputs, and
    # callers waiting here get the environment the first one produced instead of building again.
    with _project_lock(root):
        return _resolve_locked(root, tool, project_path, source_set, refresh, on_progress, cache or EnvironmentCache(), started)


_LOCKS_GUARD = threading.Lock()
_PROJECT_LOCKS: dict[Path, threading.Lock] = {}


def _project_lock(root: Path) -> threading.Lock:
    with _LOCKS_GUARD:
        return _PROJECT_LOCKS.setdefault(root, threading.Lock())


def _resolve_locked(
    root: Path,
    tool: BuildTool,
    project_path: str,
    source_set: str,
    refresh: bool,
    on_progress: ProgressCallback | None,
    cache: EnvironmentCache,
    started: float,
) -> Resolved:
    inputs_hash = hash_build_inputs(root, tool)
    key = CacheKey(
        build_tool=tool.name, project_root=str(root), project_path=project_path, source_set=source_set,
        build_inputs_hash=inputs_hash,
    )
    if not refresh:
        cached = cache.get(key, sources_changed_after=newest_source_mtime(root))
        if cached is not None:
            return Resolved(cached, True, time.monotonic() - started)
    # Taken before the build: a source edited while it runs must make this entry stale.
    resolved_at = time.time()
    if on_progress is not None:
        on_progress(f"resolving {root} ({tool.name}, project {project_path}, source set {source_set})")
    environment = tool.resolve(root, project_path=project_path, source_set=source_set, on_progress=on_progress)
    environment.build_inputs_hash = inputs_hash
    environment.sources_stamp = resolved_at
    cache.put(key, environment, resolved_at=resolved_at)
    return Resolved(environment, False, time.monotonic() - started)
