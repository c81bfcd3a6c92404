"""Where a session's snippets run: in this JVM (worker/repl/local_runner.py) or in a JVM the session is attached to
(worker/attach/attached_runner.py). boot.py picks one runner once, from the session's environment; the session
(worker/repl/session.py) drives it through SnippetRunner and never asks which it has.

What a snippet declared and how it failed is the session's, whichever JVM ran it: a runner tells the session through
SnippetRecords, which the session hands it with each snippet. Class updates after a rebuild (worker/classes) are the
runner's too: they apply to the JVM where the snippets run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from gradle_repl.frames import (
    AddedLibraries,
    AddProbeRequest,
    ErrorResult,
    EvalRequest,
    Probe,
    ProbeHit,
    ProbesResult,
    ProbeState,
    SessionDescription,
    SuccessResult,
    TestProgressFrame,
    TestRunRequest,
    TestRunResult,
    UpdateResult,
)
from gradle_repl.worker.java import JavaObject
from gradle_repl.worker.results.outcomes import ExplainFailedUse
from gradle_repl.worker.results.output_frames import Send
from gradle_repl.worker.results.probe_records import HitRecord, ProbeSetSpec, RunCounts

__all__ = [
    "AppProbeChannel",
    "ArmedProbes",
    "CallProbes",
    "ClassUpdates",
    "DeclaringSnippet",
    "Describe",
    "POLL_INTERVAL_MS",
    "ProbeError",
    "RerunProbes",
    "SessionProbes",
    "SnippetRecords",
    "SnippetRunner",
    "StoredValue",
    "TestProgress",
    "ValueReader",
]

# How often a runner looks at a running snippet (its output, its cancel, its deadline): short enough that ordering
# across threads stays tight, long enough not to burn a core.
POLL_INTERVAL_MS = 20


@dataclass(frozen=True)
class StoredValue:
    """Where a val's or var's value is held, by name: a field of a snippet class (static on 2.3, of the snippet's
    instance on 2.2). What a session attached to another JVM asks that JVM to read."""

    snippet_class: str
    field: str
    value_class: str | None = (
        None  # the value class its field holds unboxed (a Duration's long), boxed before it is read
    )


# Reads the values of the given fields, in order, each as describe shows it (capped, or why it can't be read).
ValueReader = Callable[[list[StoredValue]], list[str]]
# The session's declarations described, their values read by the reader given (None: here, in this JVM).
Describe = Callable[[ValueReader | None], SessionDescription]
# Where a test run's progress goes, a frame as each test finishes.
TestProgress = Callable[[TestProgressFrame], None]
# A snippet's Java class and instance (the instance None when it lives in another JVM), when it has them.
DeclaringSnippet = Callable[[], tuple[JavaObject, JavaObject] | None]


class SnippetRecords(Protocol):
    """What the session keeps of each snippet a runner ran: its failures (which later errors are explained by) and its
    declarations (which describe, completion and those explanations read)."""

    def explainer(self, code: str, number: int) -> ExplainFailedUse:
        """Explains a runtime error of snippet `number` by the failed snippets it met."""
        ...

    def remember(self, number: int, code: str, result: ErrorResult, *, compiled: bool, ran: bool = True) -> ErrorResult:
        """Keeps snippet `number` as failed; its result, with the session's hints where they apply."""
        ...

    def record(self, snippet: DeclaringSnippet, code: str, number: int, *, failed: bool) -> None:
        """Records what the snippet declared; never raises (describing less must not cost the snippet its reply)."""
        ...


class ProbeError(Exception):
    """A probe that can't be set, in one sentence (worker/probes): the call fails before anything runs."""


class ArmedProbes(Protocol):
    """A call's probes while it runs; what they recorded once it ended."""

    def hits(self) -> list[ProbeHit]:
        """The hits, in the order they happened, as many as fit a reply; notes() then says how many more there were."""
        ...

    def every_hit(self) -> list[ProbeHit]:
        """Every hit recorded, however many (what the worker itself reads: an explained failure's frames)."""
        ...

    def notes(self) -> list[str]: ...


class CallProbes(Protocol):
    """Sets a call's probes in the JVM where snippets run and takes them out after it (worker/probes)."""

    def during(self, probes: list[Probe], afresh: JavaObject | None = None) -> AbstractContextManager[ArmedProbes]:
        """The probes set for the with-statement's body; a ProbeError before it runs when one can't be set. The
        classes `afresh` loads (RerunProbes.rerun_loader's) get them as they load, never retransformed."""
        ...


class RerunProbes(CallProbes, Protocol):
    """A call's probes where a failed test can be run again with its own classes loaded afresh (explainFailures)."""

    def rerun_loader(self, probes: list[Probe], test_outputs: list[str]) -> JavaObject | None:
        """A loader that loads the probed classes of `test_outputs` (the test class first) afresh, or None: the rerun
        runs in the session's loader, its probes retransformed in (gradlerepl.probes.RerunLoader says when)."""
        ...


class SessionProbes(CallProbes, Protocol):
    """A call's probes, and the session's probes that outlive calls (add_kotlin_probe): in the session's own JVM, or in
    the app a session is attached to."""

    def add(self, request: AddProbeRequest) -> ProbesResult:
        """Sets the probe until it is removed, reaches its maxHits or expires; a ProbeError when it can't be set."""
        ...

    def read(self, probe_id: int | None) -> ProbesResult:
        """The hits since the last read (of one probe, or of all) and every probe's state."""
        ...

    def remove(self, probe_id: int) -> ProbesResult:
        """Takes the probe out of the code; its last hits."""
        ...

    def states(self) -> list[ProbeState]:
        """The session's probes, for describe."""
        ...

    def after_reply(self) -> None:
        """What closing probes left to do once a reply is out (this JVM's classes back to their own bytes)."""
        ...


class AppProbeChannel(Protocol):
    """What probes in an attached app ask of its agent (worker/attach/probe_channel.py answers; worker/probes/
    app_probes.py asks). Each call waits for its answer; a lost connection raises the attach room's AgentGone."""

    @property
    def hook_package(self) -> str:
        """The package of the agent's build of gradlerepl.both (`gradlerepl.agent.v1a2b.both`)."""
        ...

    def class_bytes(self, names: list[str], *, nested: bool) -> list[tuple[str, int, bytes | None]]:
        """Each class's name, the version of its bytes and the bytes it runs now (None: the app has no such class)."""
        ...

    def reserve_sites(self, count: int) -> int:
        """The first of `count` site ids no other probe in the app uses."""
        ...

    def set_probes(self, spec: ProbeSetSpec) -> str | None:
        """None when the set is in the app's code, else why not (`changed:NAME`: read the class again)."""
        ...

    def collect(self, run: int, *, close: bool) -> tuple[list[HitRecord], RunCounts, list[str]]:
        """A set's hits and notes since the last collect and its probes' counts; with `close`, taken out first."""
        ...


class ClassUpdates(Protocol):
    """The project's rebuilt classes brought into the JVM where snippets run (worker/classes/class_updates.py)."""

    def update(self) -> UpdateResult: ...


class SnippetRunner(Protocol):
    """Runs a session's snippets in one JVM, chosen at boot."""

    @property
    def exit_code(self) -> int | None:
        """Set once the JVM the snippets run in is gone (System.exit here, an attached JVM that exited): the worker
        replies, then exits with it."""
        ...

    def run(
        self, request: EvalRequest, send: Send, cancel: threading.Event, records: SnippetRecords
    ) -> SuccessResult | ErrorResult:
        """Runs one snippet, sending what it prints and shows as it comes; its result, with what the limits cut
        (`truncated_bytes`) and a heap warning when there is one. A timeout or a set `cancel` stops it."""
        ...

    def describe(self, request_id: int, describe: Describe) -> SessionDescription | ErrorResult:
        """The session's declarations with their values, read where they live."""
        ...

    def libraries(self) -> AddedLibraries:
        """What @file:DependsOn added to the session."""
        ...

    def update(self) -> UpdateResult:
        """Brings the project's rebuilt classes into the JVM the snippets run in, or says why not."""
        ...

    def run_tests(
        self, request: TestRunRequest, progress: TestProgress, cancel: threading.Event
    ) -> TestRunResult | ErrorResult:
        """Runs the project's tests in the JVM the snippets run in, sending progress as tests finish; the result, or
        an error saying why this session can't."""
        ...
