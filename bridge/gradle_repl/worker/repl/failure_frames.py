"""An explained failure (run_project_tests' explainFailures): the failed test run again alone, with a probe at each of
its failure's frames in the project's code — from the test method to the throwing frame — and each frame given what it
held the last time it reached that line before the failure. Pure: frames and hits in, frames out."""

from __future__ import annotations

import re

from gradle_repl.frames import FailureFrame, Probe, ProbeHit, TestFailureDetail
from gradle_repl.settings import DEFAULTS

__all__ = ["frame_probes", "explained_frames", "rerun_selector"]

# A frame as a failure's stack lists it (worker/repl/project_tests.py's _frame): `shop.Cart.total(Cart.kt:16)`.
_FRAME = re.compile(r"^(?P<owner>[\w$.]+)\.(?P<method>[^.(]+)\((?P<file>[^:()]+):(?P<line>\d+)\)$")


def frame_probes(failure: TestFailureDetail) -> list[Probe]:
    """A probe at each frame of the failure's own exception (its causes left out), outermost first: the test method,
    then what it called, down to the throwing frame. Each keeps its hits, the last of which is the one wanted."""
    frames = []
    for line in failure.stack:
        if line.startswith("Caused by:"):
            break
        if (match := _FRAME.match(line)) is not None:
            frames.append(f"{match['owner']}:{match['line']}")
    unique = list(dict.fromkeys(reversed(frames)))[: DEFAULTS.probes_per_call]
    return [Probe(at=at, max_hits=DEFAULTS.probe_max_hits_cap) for at in unique]


def explained_frames(probes: list[Probe], hits: list[ProbeHit]) -> list[FailureFrame]:
    """Each probed frame with its last hit, in the probes' order; a frame whose line was never reached is left out."""
    last: dict[int, ProbeHit] = {}
    for hit in hits:
        last[hit.probe] = hit
    return [
        FailureFrame(at=last[index].at, locals=last[index].locals, this=last[index].this)
        for index in range(len(probes))
        if index in last
    ]


def rerun_selector(failure: TestFailureDetail) -> str:
    """The selector that runs the failed test again: its name without an invocation's display name."""
    return failure.test.split("[", 1)[0].strip()
