"""Edit-to-result after a one-line body edit (issues 35 and 42), in one run on sample-project with Maven.

    .venv/bin/python bench/edits.py [--edits 5] [--sides now,maven,before]

Sessions on private copies of sample-project, through the real SessionManager and the real resolver (Maven):
`now` as gradle-repl now works (the session's own warm compiler compiles the edited file, issue 42, and the classes
are updated in place); `maven` as after issue 35 (a source edit compiles only, in a warm Kotlin daemon and a C1-only
Maven JVM, then the in-place update: the resolver is not handed the session's compile); `before` as before issue 35 (every edit resolves in full, Maven's JVM as the user's
MAVEN_OPTS leave it, and restarts the JVM: `recompiled`, `maven_environment` and `restart_reason` answer so for that
copy). The edits alternate between the two, so that both see the same load on a shared machine. Each edit
changes one function body, then runs a snippet that reads a `val` declared before the edits and calls the edited
function through an object made before them. Per edit: the time from the edit to the result, the build's share (the
resolver's own time), the session's part (the rest: the update or the restart, then the snippet), the in-place update
request's own cost (and the worker's time inside it), the in-session compile's own time (the worker's, `now` only),
the same snippet run just before the edit (the session's part with nothing to update), and whether the `val`
survived; and how many edits fell back to the build tool, and why (the notice's reason). Nothing here is asserted by
tests.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import SuccessResult, WorkerOptions
from gradle_repl.host import hotswap, manager as manager_module
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.host.manager import SessionLimits, SessionManager
from gradle_repl.project import recompile as recompile_module, resolve as resolve_module
from gradle_repl.project.buildtools import maven_speed
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.target import SessionTarget

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from kotlindaemons import daemon_options, stop_daemons

SAMPLE = Path(__file__).resolve().parents[1] / "sample-project"
EDITED = "src/main/kotlin/sample/Edited.kt"
SOURCE = "package sample\n\nclass Counter(val start: Int) {\n    fun next(n: Int): Int = start + n + {k}\n}\n"
DECLARE = "val kept = 41\nval counter = sample.Counter(1000)"
Row = dict[str, float | bool]


class Side:
    """One copy of the project, its manager and session, and the durations its last edit cost."""

    def __init__(self, mode: str, root: Path) -> None:
        self.mode, self.root = mode, root
        shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("target", "build", ".gradle"))
        (root / EDITED).write_text(SOURCE.replace("{k}", "0"))
        self.resolve_s = self.update_s = self.update_worker_s = self.compile_worker_s = 0.0
        self.fell_back: list[str] = []
        self.manager = SessionManager(
            limits=SessionLimits(spare_worker=mode == "before", train_class_data=False),
            worker_options=WorkerOptions(),
            resolver=self.resolver,
        )
        self.rows: list[Row] = []

    def resolver(self, *args: Any, **kwargs: Any) -> Any:
        if self.mode != "now":
            kwargs.pop("compile_in_session", None)  # the build tool compiles every edit, as before issue 42
        started = time.perf_counter()
        try:
            return resolve_environment(*args, **kwargs)
        finally:
            self.resolve_s += time.perf_counter() - started

    async def run(self, code: str) -> Any:
        return await self.manager.run_snippet(
            SessionTarget(str(self.root), build_tool="maven", session_id=self.mode), code=code
        )

    async def settle(self) -> None:
        """Waits for the spare worker the manager starts in the background after a restart (seconds of a JVM loading the
        Kotlin compiler), so that it runs during neither side's next edit: it made the other side's compile-only build
        measure slower than this side's full resolve."""
        starting = self.manager._spare._task
        if starting is not None:
            await asyncio.wait([starting])

    async def edit(self, k: int) -> None:
        # The same snippet without an edit first: what the session's part would be with no update at all.
        started = time.perf_counter()
        await self.run(f"counter.next(1) + kept + 0 * {k}")
        warm = time.perf_counter() - started
        source = self.root / EDITED
        source.write_text(SOURCE.replace("{k}", str(k)))
        later = time.time() + k
        os.utime(source, (later, later))
        self.resolve_s = self.update_s = self.update_worker_s = self.compile_worker_s = 0.0
        started = time.perf_counter()
        reply = await self.run("counter.next(1) + kept")
        total = time.perf_counter() - started
        kept = isinstance(reply.result, SuccessResult)
        if kept:
            assert reply.result.value.data == str(1000 + 1 + k + 41), reply
        else:  # the state was lost: declare it again for the next edit, as a user would
            await self.run(DECLARE)
        self.fell_back += [n.text for n in reply.notices if n.text.startswith("[built by ")]
        self.rows.append(
            {
                "total": total,
                "build": self.resolve_s,
                "session": total - self.resolve_s,
                "update": self.update_s,
                "update_worker": self.update_worker_s,
                "compile_worker": self.compile_worker_s,
                "warm": warm,
                "kept": kept,
            }
        )
        await self.settle()
        print(
            f"{self.mode} edit {k}: {total * 1000:.0f} ms (build {self.resolve_s * 1000:.0f} ms, in-session compile {self.compile_worker_s * 1000:.0f} ms, update {self.update_s * 1000:.0f} ms, of it in the worker {self.update_worker_s * 1000:.0f} ms; the snippet without an edit {warm * 1000:.0f} ms), kept={kept}",
            file=sys.stderr,
        )


async def measure(edits: int, work: Path, modes: list[str]) -> dict[str, Side]:
    sides = {mode: Side(mode, work / mode) for mode in modes}
    before_root = str(sides["before"].root) if "before" in sides else "-"
    original_compile = WorkerHandle.compile_edits
    original_update, compile_only, keep_or_restart = (
        WorkerHandle.update_classes,
        recompile_module.recompiled,
        hotswap.restart_reason,
    )
    with_our_options = maven_speed.maven_environment
    owner: dict[int, Side] = {}

    async def timed_update(self: WorkerHandle) -> Any:
        started = time.perf_counter()
        try:
            result = await original_update(self)
            owner[id(self)].update_worker_s = result.duration_ms / 1000
            return result
        finally:
            owner[id(self)].update_s += time.perf_counter() - started

    async def timed_compile(self: WorkerHandle, request: Any) -> Any:
        result = await original_compile(self, request)
        owner[id(self)].compile_worker_s = result.duration_ms / 1000
        return result

    def recompiled(root: Path, *args: Any, **kwargs: Any) -> Any:
        return None if str(root) == before_root else compile_only(root, *args, **kwargs)

    def restart_reason(old: ReplEnvironment, new: ReplEnvironment) -> str | None:
        return "as before issue 35" if old.project_root == before_root else keep_or_restart(old, new)

    def maven_environment(environ: Mapping[str, str], root: Path) -> dict[str, str]:
        return dict(environ) if root.resolve() == Path(before_root).resolve() else with_our_options(environ, root)

    WorkerHandle.update_classes = timed_update  # type: ignore[method-assign]
    WorkerHandle.compile_edits = timed_compile  # type: ignore[method-assign]
    # Patched where resolve looks it up: its import of recompile.recompiled, which it does not re-export.
    resolve_module.recompiled = recompiled  # type: ignore[attr-defined]
    # Likewise manager's import of hotswap.restart_reason.
    manager_module.restart_reason = restart_reason  # type: ignore[attr-defined]
    maven_speed.maven_environment = maven_environment
    try:
        for side in sides.values():
            await side.run(DECLARE)
            await side.run("counter.next(1)")
            await side.settle()
        for k in range(1, edits + 1):
            for side in sides.values():
                worker = side.manager._sessions.get(side.mode).worker  # type: ignore[union-attr]
                owner[id(worker)] = side
                await side.edit(k)
    finally:
        for side in sides.values():
            await side.manager.close_all()
    return sides


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--sides", default="now,maven", help="of now, maven (after issue 35), before (before issue 35)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gradle-repl-bench-edits-") as work:
        # The compile-only builds' Kotlin daemon is the bench's own (started by its first edit, as a user's first edit
        # would), never one already running here, and stopped at the end.
        run_files = Path(work) / "kotlin-daemons"
        os.environ["MAVEN_OPTS"] = f"{os.environ.get('MAVEN_OPTS', '')} {daemon_options(run_files)}".strip()
        try:
            sides = asyncio.run(measure(args.edits, Path(work), args.sides.split(",")))
        finally:
            stop_daemons(run_files)
    modes = list(sides)
    base = modes[-1]
    print(
        f"{'measure (p50 of ' + str(args.edits) + ' one-line body edits, alternating)':<58} | "
        + " | ".join(f"{m:>10}" for m in modes)
        + f" | ratio to {base}"
    )
    for key, label in (
        ("total", "edit to result"),
        ("build", "the build (resolve, with the in-session compile)"),
        ("compile_worker", "the in-session compile, the worker's own time"),
        ("session", "the session's part (after the build)"),
        ("update", "the in-place update request"),
        ("update_worker", "of it, the worker's own time"),
        ("warm", "the same snippet just before, no edit"),
    ):
        values = [statistics.median(float(r[key]) for r in sides[m].rows) * 1000 for m in modes]
        ratios = " ".join(f"{v / values[-1]:.2f}x" if values[-1] else "—" for v in values[:-1])
        print(f"{label:<58} | " + " | ".join(f"{v:>7.0f} ms" for v in values) + f" | {ratios}")
    for mode, side in sides.items():
        print(
            f"state kept ({mode}): {sum(bool(r['kept']) for r in side.rows)} of {len(side.rows)}; fell back to the build tool: {len(side.fell_back)}"
        )
        for reason in dict.fromkeys(side.fell_back):
            print(f"  {side.fell_back.count(reason)}x {reason}")


if __name__ == "__main__":
    main()
