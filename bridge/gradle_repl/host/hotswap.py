"""Keep or restart, when a session's project was rebuilt: the host's half of in-place class updates.

The host decides from what changed in the resolved environment: a different JDK, Kotlin, classpath, compiler plugins
or options, or session options need a new JVM; when only the class outputs can differ (the same environment, built
again), the worker is asked to update its classes in place (worker/classes/class_updates.py), and it says what it redefined
or why it can't (then the session restarts, as before in-place updates, and the notice names the reason and what
was lost). Nothing here touches a process: it reads environments and the worker's answers.
"""

from __future__ import annotations

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import DescriptionResult, ErrorResult, UpdateResult
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.host.notices import Notice

__all__ = ["restart_reason", "update_in_place", "restart_notice", "lost_names"]

# How many class or declaration names a notice lists before "and N more".
NAMED_IN_NOTICE = 5
# Fields a rebuild sets anew without changing what the JVM runs: when they alone differ, try in place.
_REBUILD_STAMPS = {"sources_stamp", "build_inputs_hash"}
# What a field's change is called in a restart's notice; any other field: "the build's environment changed".
_FIELD_REASONS = {
    "java_home": "the JDK changed",
    "java_executable": "the JDK changed",
    "kotlin_version": "the Kotlin version changed",
    "project_kotlin_version": "the Kotlin version changed",
    "classpath": "the classpath changed",
    "repl_host_classpath": "the REPL compiler's jars changed",
    "compiler_plugin_classpath": "the compiler plugins changed",
    "compiler_plugin_options": "the compiler plugins' options changed",
    "compiler_args": "the compiler options changed",
    "jvm_target": "the JVM target changed",
}


def restart_reason(old: ReplEnvironment, new: ReplEnvironment) -> str | None:
    """Why the session needs a new JVM for `new`, or None when its classes may be updated in place."""
    before, after = old.model_dump(exclude=_REBUILD_STAMPS), new.model_dump(exclude=_REBUILD_STAMPS)
    changed = [field for field in before if before[field] != after[field]]
    if not changed:
        return None
    return next(
        (_FIELD_REASONS[field] for field in changed if field in _FIELD_REASONS), "the build's environment changed"
    )


async def update_in_place(worker: WorkerHandle, session_id: str, notices: list[Notice]) -> str | None:
    """Asks the worker to update its classes; None when it did (a notice says what, when anything changed), else why
    it could not (nothing changed in the JVM)."""
    result = await worker.update_classes()
    if isinstance(result, ErrorResult):
        return f"the worker could not update its classes ({result.message.strip().splitlines()[0] if result.message.strip() else result.error_kind})"
    if result.refused is not None:
        return result.refused
    if (text := _updated_text(session_id, result)) is not None:
        notices.append(Notice(kind="updated", text=text))
    return None


def _updated_text(session_id: str, result: UpdateResult) -> str | None:
    parts = []
    if result.redefined:
        parts.append(f"updated in place: {_named(result.redefined)}")
    if result.reloaded:
        parts.append(f"{result.reloaded} changed class(es) not loaded yet load as rebuilt")
    if result.added:
        parts.append(f"new: {_named(result.added)}")
    if not parts:
        return None
    text = f"[session {session_id!r} kept its state after the rebuild: {'; '.join(parts)}"
    if result.initialisers:
        text += (
            f"; the static initialiser of {_named(result.initialisers)} changed and does not run again: its top-level and "
            "object vals keep their values until the session restarts (reset_kotlin_session)"
        )
    return text + "]"


async def lost_names(worker: WorkerHandle) -> list[str]:
    """The session's probes that outlive a call (`probe 1 at Cart.kt:18`: they go with the JVM) and the names its
    snippets declared, as `val x`, `fun f`, `class C`; empty when it can't say."""
    if not worker.alive:
        return []
    result = await worker.describe()
    if not isinstance(result, DescriptionResult):
        return []
    described = result.description
    # Probes first: the notice names a few, and a probe that went is what an agent reading hits must know of.
    return [
        *(f"probe {probe.probe_id} at {probe.at}" for probe in described.probes),
        *(f"{declaration.kind} {declaration.name}" for declaration in described.declarations),
    ]


def restart_notice(session_id: str, why: str, snippets_run: int, lost: list[str]) -> Notice:
    """The notice of a restart a project change forced: why, and what earlier snippets declared that is gone."""
    gone = f"lost: {_named(lost)}" if lost else "state from them is gone"
    return Notice(
        kind="restarted",
        text=(
            f"[session {session_id!r} restarted: the project's build or sources changed since its JVM started and the "
            f"change can't be applied in place ({why}); from its {snippets_run} earlier snippet(s), {gone}]"
        ),
    )


def _named(names: list[str]) -> str:
    shown = ", ".join(names[:NAMED_IN_NOTICE])
    return shown + (f" and {len(names) - NAMED_IN_NOTICE} more" if len(names) > NAMED_IN_NOTICE else "")
