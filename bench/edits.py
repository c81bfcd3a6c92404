"""Edit-to-result after a one-line body edit (issue 35), in one run on sample-project with Maven.

    .venv/bin/python bench/edits.py [--edits 5]

Two sessions on two private copies of sample-project, through the real SessionManager and the real resolver (Maven):
one as gradle-repl now works (a source edit compiles only, and the rebuilt classes are updated in place), one as
before issue 35 (every edit resolves in full and restarts the JVM: `recompiled` and `restart_reason` patched).
Each edit changes one function body, then runs a snippet that reads a `val` declared before the edits and calls the
edited function through an object made before them. Per edit: the time from the edit to the result, the build's share (the resolver's own time), the session's own
part (the rest: update or restart, then the snippet), the in-place update's own cost (the worker's update request),
and whether the `val` survived. Nothing here is asserted by tests.
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
from pathlib import Path
from typing import Any

from gradle_repl.frames import SuccessResult, WorkerOptions
from gradle_repl.host import hotswap, manager as manager_module
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.host.manager import SessionLimits, SessionManager
from gradle_repl.project import resolve as resolve_module
from gradle_repl.project.resolve import resolve_environment

SAMPLE = Path(__file__).resolve().parents[1] / "sample-project"
EDITED = "src/main/kotlin/sample/Edited.kt"
SOURCE = "package sample\n\nclass Counter(val start: Int) {\n    fun next(n: Int): Int = start + n + {k}\n}\n"


class Timed:
    """The resolver's and the update request's durations, read by the run that caused them."""

    def __init__(self) -> None:
        self.resolve_s = 0.0
        self.update_s = 0.0

    def resolver(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return resolve_environment(*args, **kwargs)
        finally:
            self.resolve_s += time.perf_counter() - started


TIMED = Timed()


async def measure(mode: str, edits: int, root: Path) -> list[dict[str, float | bool]]:
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("target", "build", ".gradle"))
    (root / EDITED).write_text(SOURCE.replace("{k}", "0"))
    timed = TIMED
    manager = SessionManager(
        limits=SessionLimits(spare_worker=mode == "restart", train_class_data=False), worker_options=WorkerOptions(),
        resolver=timed.resolver,
    )
    where = {"session_id": mode, "project_root": str(root), "build_tool": "maven"}
    rows: list[dict[str, float | bool]] = []
    try:
        await manager.run_snippet(**where, code="val kept = 41\nval counter = sample.Counter(1000)")  # type: ignore[arg-type]
        await manager.run_snippet(**where, code="counter.next(1)")  # type: ignore[arg-type]
        for k in range(1, edits + 1):
            await asyncio.sleep(0.1)  # the spare (restart mode) is back before the edit
            source = root / EDITED
            source.write_text(SOURCE.replace("{k}", str(k)))
            later = time.time() + k
            os.utime(source, (later, later))
            timed.resolve_s = timed.update_s = 0.0
            started = time.perf_counter()
            reply = await manager.run_snippet(**where, code="counter.next(1) + kept")  # type: ignore[arg-type]
            total = time.perf_counter() - started
            kept = isinstance(reply.result, SuccessResult)
            if kept and reply.result.value is not None:  # type: ignore[union-attr]
                assert reply.result.value.data == str(1000 + 1 + k + 41), reply  # type: ignore[union-attr]
            else:  # the state was lost: declare it again for the next edit, as a user would
                await manager.run_snippet(**where, code="val kept = 41\nval counter = sample.Counter(1000)")  # type: ignore[arg-type]
            rows.append({"total": total, "build": timed.resolve_s, "session": total - timed.resolve_s, "update": timed.update_s, "kept": kept})
            print(f"{mode} edit {k}: {total * 1000:.0f} ms (build {timed.resolve_s * 1000:.0f} ms, update {timed.update_s * 1000:.0f} ms), kept={kept}", file=sys.stderr)
    finally:
        await manager.close_all()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=5)
    args = parser.parse_args()
    original_update = WorkerHandle.update_classes

    async def timed_update(self: WorkerHandle) -> Any:
        started = time.perf_counter()
        try:
            return await original_update(self)
        finally:
            TIMED.update_s += time.perf_counter() - started

    WorkerHandle.update_classes = timed_update  # type: ignore[method-assign]
    results: dict[str, list[dict[str, float | bool]]] = {}
    with tempfile.TemporaryDirectory(prefix="gradle-repl-bench-edits-") as work:
        results["in place"] = asyncio.run(measure("in-place", args.edits, Path(work) / "in-place"))
        # Before issue 35: every edit resolved in full, and every rebuild restarted the session.
        compile_only = resolve_module.recompiled
        resolve_module.recompiled = lambda *args, **kwargs: None  # type: ignore[assignment]
        manager_module.restart_reason = lambda old, new: "bench: as before in-place updates"  # type: ignore[assignment]
        results["restart"] = asyncio.run(measure("restart", args.edits, Path(work) / "restart"))
        manager_module.restart_reason = hotswap.restart_reason
        resolve_module.recompiled = compile_only
    print(f"{'measure (p50 of ' + str(args.edits) + ' one-line body edits)':<58} | {'in place':>10} | {'restart':>10} | ratio")
    for key, label in (("total", "edit to result"), ("build", "the build (resolve)"), ("session", "the session's part (after the build)"), ("update", "the in-place update request")):
        a = statistics.median(float(r[key]) for r in results["in place"]) * 1000
        b = statistics.median(float(r[key]) for r in results["restart"]) * 1000
        ratio = f"{a / b:.2f}x" if b else "—"
        print(f"{label:<58} | {a:>7.0f} ms | {b:>7.0f} ms | {ratio}")
    for mode, rows in results.items():
        print(f"state kept ({mode}): {sum(bool(r['kept']) for r in rows)} of {len(rows)}")


if __name__ == "__main__":
    main()
