"""After an edit to sources alone, only the compile runs again (issue 35: an edit's cost is mostly the build).

A resolve runs the build tool for everything the environment needs (Maven: compile, the classpath, the effective
POM; the REPL's jars). When the inputs changed but the build files did not (every one hashes as it did, none came
or went, the single files outside the trees too), the environment is a function of what did not change: only the
classes can differ. Then the tool compiles the source set again (Maven: the compile phase alone, offline) and the
cached environment is kept with the new sources stamp — the session decides keep or restart from it as from a full
resolve. Sources that don't compile are reported from that compile (one build, not two); anything else, or a
compile that fails otherwise (offline Maven missing an artifact), goes the full way: a stale class is never run for
a shortcut taken.
"""

from __future__ import annotations

import time
from pathlib import Path

from gradle_repl.environment import ReplEnvironment
from gradle_repl.project.build_inputs import Fingerprint, Inputs
from gradle_repl.project.buildtools import BuildTool
from gradle_repl.project.cache import CacheEntry, CacheKey, EnvironmentCache
from gradle_repl.project.freshness import missing_artifact, observe, remember_unchanged
from gradle_repl.project.process import ProgressCallback

__all__ = ["sources_only", "recompiled"]


def sources_only(entry: CacheEntry, tool: BuildTool) -> Fingerprint | None:
    """The inputs' fingerprint now, when what changed since entry was resolved is not the build (no build file
    changed, came or went) and everything the environment names still exists; else None."""
    if missing_artifact(entry.environment) is not None:
        return None
    before = entry.fingerprint
    inputs = Inputs(trees=tuple(Path(t) for t in before.trees), files=tuple(Path(f) for f in before.files), is_build_file=tool.is_build_input)
    now = Fingerprint.take(inputs)
    return now if now.build_hashes == before.build_hashes else None


def recompiled(
    root: Path, tool: BuildTool, entry: CacheEntry, cache: EnvironmentCache, key: CacheKey, *, project_path: str,
    source_set: str, on_progress: ProgressCallback | None,
) -> ReplEnvironment | None:
    """The entry's environment after compiling the changed sources, or None when this shortcut doesn't apply."""
    mark = observe(entry.fingerprint.trees)
    # Taken before the compile, as a full resolve does: an edit while it runs makes the new entry stale.
    fingerprint = sources_only(entry, tool)
    if fingerprint is None:
        return None
    compiled_at = time.time()
    if on_progress is not None:
        on_progress(f"compiling {root} ({tool.name}, project {project_path}, source set {source_set}): only sources changed")
    if not tool.recompile(root, project_path=project_path, source_set=source_set, on_progress=on_progress):
        return None
    environment = entry.environment.model_copy(update={"sources_stamp": compiled_at})
    remember_unchanged(cache.put(key, environment, fingerprint, resolved_at=compiled_at), mark)
    return environment
