"""After an edit to sources alone, only the compile runs again (an edit's cost is mostly the build).

A resolve runs the build tool for everything the environment needs (Maven: compile, the classpath, the effective
POM; the REPL's jars). When the inputs changed but the build files did not (every one hashes as it did, none came
or went, the single files outside the trees too), the environment is a function of what did not change: only the
classes can differ. Then the tool compiles the source set again (Maven: the compile phase alone, offline) and the
cached environment is kept with the new sources stamp — the session decides keep or restart from it as from a full
resolve. Sources that don't compile are reported from that compile (one build, not two); anything else, or a
compile that fails otherwise (offline Maven missing an artifact), goes the full way: a stale class is never run for
a shortcut taken.

Before the build tool, a session on the source set may compile the edit itself (project/edit_plan.py decides
whether it may): its warm compiler writes the edited files' classes to gradle-repl's directory, ahead of the build's
output on the class path, and the cached environment is kept with the new sources stamp as after the tool's compile.
When it may not, or the worker finds the result could differ from the build's, the build tool compiles as before and
its output wins (gradle-repl's directory is emptied). Either way the reply's notice says which path ran.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import CompileRequest, CompileResult
from gradle_repl.project.build_inputs import Fingerprint, Inputs
from gradle_repl.project.buildtools import BuildTool
from gradle_repl.project.cache import CacheEntry, CacheKey, EnvironmentCache
from gradle_repl.project.edit_plan import EditPlan, deleted_sources, plan_edit
from gradle_repl.project.freshness import missing_artifact, observe, remember_unchanged
from gradle_repl.project.process import ProgressCallback
from gradle_repl.project.session_classes import with_session_classes

__all__ = ["sources_only", "recompiled", "drop_stale_outputs", "SessionCompile", "Recompiled"]

# A live session's compile of an edit (the host's, handed down by the front end): its answer, or None when the
# session can't answer (it stopped, or is busy past the wait).
SessionCompile = Callable[[CompileRequest], CompileResult | None]
# The environment after the compile, and the notice saying which path ran (or what did not compile).
Recompiled = tuple[ReplEnvironment, str | None]


def sources_only(entry: CacheEntry, tool: BuildTool) -> Fingerprint | None:
    """The inputs' fingerprint now, when what changed since entry was resolved is not the build (no build file
    changed, came or went) and everything the environment names still exists; else None."""
    if missing_artifact(entry.environment) is not None:
        return None
    before = entry.fingerprint
    inputs = Inputs(
        trees=tuple(Path(t) for t in before.trees),
        files=tuple(Path(f) for f in before.files),
        is_build_file=tool.is_build_input,
    )
    now = Fingerprint.take(inputs)
    return now if now.build_hashes == before.build_hashes else None


def drop_stale_outputs(environment: ReplEnvironment) -> None:
    """Empties what the build tool would leave a deleted source's classes in (EditSources.stale_outputs), so that its
    compile writes the classes of the sources there are and no others: a deleted file's declarations then stop
    resolving, in a restarted session as in the build's own output."""
    sources = environment.edit_sources
    for unit in (sources, sources.main_sources if sources is not None else None):
        for directory in unit.stale_outputs if unit is not None else []:
            shutil.rmtree(directory, ignore_errors=True)


def recompiled(
    root: Path,
    tool: BuildTool,
    entry: CacheEntry,
    cache: EnvironmentCache,
    key: CacheKey,
    *,
    project_path: str,
    source_set: str,
    on_progress: ProgressCallback | None,
    compile_in_session: SessionCompile | None = None,
) -> Recompiled | None:
    """The entry's environment after compiling the changed sources, or None when this shortcut doesn't apply."""
    mark = observe(entry.fingerprint.trees)
    # Taken before the compile, as a full resolve does: an edit while it runs makes the new entry stale.
    fingerprint = sources_only(entry, tool)
    if fingerprint is None:
        return None
    compiled_at = time.time()
    why = None
    if compile_in_session is not None:
        plan = plan_edit(entry.fingerprint, fingerprint, entry.environment)
        if isinstance(plan, EditPlan):
            if on_progress is not None:
                on_progress(f"compiling {', '.join(Path(f).name for f in plan.files)} in the session")
            result = compile_in_session(
                CompileRequest(
                    files=plan.files,
                    output_dir=plan.sources.output_dir,
                    module_name=plan.sources.module_name,
                    friend_dirs=plan.sources.friend_dirs,
                    hidden_dirs=plan.sources.hidden_dirs,
                )
            )
            if result is not None and result.errors:
                # As IntelliJ's HotSwap: the errors are told and the session runs its last good classes.
                return entry.environment, (
                    f"[not compiled in the session: {'; '.join(result.errors)}; the session runs its last good classes]"
                )
            if result is not None and result.fall_back is None:
                environment = entry.environment.model_copy(update={"sources_stamp": compiled_at})
                remember_unchanged(cache.put(key, environment, fingerprint, resolved_at=compiled_at), mark)
                names = ", ".join(Path(f).name for f in plan.files)
                return (
                    environment,
                    f"[compiled {names} in the session in {result.duration_ms} ms: {len(result.classes)} class file(s)]",
                )
            why = result.fall_back if result is not None else "the session could not compile it"
        else:
            why = plan
    if on_progress is not None:
        on_progress(
            f"compiling {root} ({tool.name}, project {project_path}, source set {source_set}): only sources changed"
        )
    if deleted_sources(entry.fingerprint, fingerprint):
        drop_stale_outputs(entry.environment)
    if not tool.recompile(root, project_path=project_path, source_set=source_set, on_progress=on_progress):
        return None
    environment = with_session_classes(entry.environment.model_copy(update={"sources_stamp": compiled_at}, deep=True))
    remember_unchanged(cache.put(key, environment, fingerprint, resolved_at=compiled_at), mark)
    return environment, (f"[built by {tool.name.capitalize()}: {why}]" if why is not None else None)
