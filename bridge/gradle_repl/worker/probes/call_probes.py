"""Probes for one call of a session in its own JVM: set before the snippet or the tests run, recording nothing once
they end, whatever happened (worker/repl/local_runner.py wraps each call in `LocalProbes.during`), and taken out of
the classes once the call's reply is out (`after_reply`).

Setting a probe: its `at` located among the project's sources (locations.py), the class files compiled from that
source read from the session's class outputs for where the line starts in each method (gradlerepl.probes.
ProbeClassFiles), its `when` and `capture` compiled for each of those places (expressions.py), then a class file
transformer set through the session's agent (gradlerepl.probes.ProbeCall): the loaded classes are retransformed, the
others get the probe when they load. Nothing stops a thread; a class goes back to its own bytes after the call's reply.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import AddProbeRequest, Probe, ProbeHit, ProbesResult, ProbeState
from gradle_repl.settings import DEFAULTS
from gradle_repl.worker.java import JavaObject, java_class, nullable_byte_arrays, object_array, string_array
from gradle_repl.worker.probes.expressions import CompiledSites, compile_sites
from gradle_repl.worker.probes.hits import jvm_record, probe_hit
from gradle_repl.worker.probes.locations import ProbeLocation, locate, nearest_lines, source_of_class
from gradle_repl.worker.results.probe_records import HitRecord, RunCounts
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.results.value_text import VALUE_LIMIT_CHARS
from gradle_repl.worker.runner import ProbeError

__all__ = [
    "ArmedRun",
    "LocalProbes",
    "Planned",
    "ProbeSessions",
    "SetProbes",
    "compile_planned",
    "last_line",
    "left_out_notes",
    "plan_probes",
    "source_roots",
]

_AGENT = "gradlerepl.classupdates.ClassUpdates"
# What one reply carries of hits, in JSON characters: well inside the frame limit, with the result beside it.
HITS_LIMIT_CHARS = 100_000


class ArmedRun(Protocol):
    """A set of probes in the code: where it runs (this JVM, an attached app) is its maker's."""

    def drain(self) -> tuple[list[HitRecord], list[str]]:
        """The hits and notes since the last drain, in order."""
        ...

    def counts(self) -> RunCounts:
        """Each probe's hits so far (up to its maxHits) and whether it is still in the code."""
        ...

    def close(self) -> None:
        """Takes the set out of the code; a drain after it still gives the hits recorded before."""
        ...


class SetProbes:
    """The probes of a call while it runs; their hits and notes once it ended."""

    def __init__(self, run: ArmedRun | None, probes: list[Probe], notes: list[str] | None = None) -> None:
        self._run = run
        self._probes = probes
        self._set_notes = notes or []
        self._left_out = 0
        self._drained: tuple[list[HitRecord], list[str]] | None = None

    def _records(self) -> tuple[list[HitRecord], list[str]]:
        """Everything the set recorded, read once (after the call ended and the set was taken out)."""
        if self._drained is None:
            self._drained = ([], []) if self._run is None else self._run.drain()
        return self._drained

    def hits(self) -> list[ProbeHit]:
        """The hits in order, as many as fit the reply (HITS_LIMIT_CHARS); notes() says how many more there were."""
        kept: list[ProbeHit] = []
        used = 0
        records = self._records()[0]
        for record in records:
            hit = probe_hit(record, self._probes)
            used += len(hit.model_dump_json())
            if used > HITS_LIMIT_CHARS:
                break
            kept.append(hit)
        self._left_out = len(records) - len(kept)
        return kept

    def every_hit(self) -> list[ProbeHit]:
        """Every hit recorded, in order, with no reply's limit."""
        return [probe_hit(record, self._probes) for record in self._records()[0]]

    def notes(self) -> list[str]:
        """What happened to the probes besides their hits; after hits(), how many hits the reply's limit left out."""
        notes = [*self._set_notes, *self._records()[1]]
        if self._left_out:
            notes.append(
                f"{self._left_out} more hits left out (the reply's {HITS_LIMIT_CHARS}-character limit for hits): "
                "a `when` or a lower maxHits keeps the ones that matter"
            )
        return notes


@dataclass
class _SessionProbe:
    """A probe that outlives its call: its run, its hits read from it and not yet sent, when it ends."""

    probe_id: int
    probe: Probe
    run: ArmedRun
    expires_at: float  # time.monotonic()
    pending: list[ProbeHit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    closed: bool = False
    last: RunCounts = field(default_factory=RunCounts)

    def collect(self) -> None:
        """The hits and notes recorded since the last collect, kept here until read; a hit named by the probe's id."""
        if not self.closed:
            records, notes = self.run.drain()
            self.pending += [
                probe_hit(record, [self.probe]).model_copy(update={"probe": self.probe_id}) for record in records
            ]
            self.notes += [note.replace("probe 0 ", f"probe {self.probe_id} ", 1) for note in notes]
            self.last = self.run.counts()

    def close(self) -> None:
        """Taken out of the code, then its last hits collected: none recorded in between is lost."""
        if not self.closed:
            self.run.close()
            self.collect()
            self.closed = True

    def state(self) -> ProbeState:
        self.collect()
        active = not self.closed and bool(self.last.active[0]) and time.monotonic() < self.expires_at
        return ProbeState(probe_id=self.probe_id, at=self.probe.at, hits=self.last.hits[0], active=active)


class _JvmRun:
    """A set of probes in this JVM (gradlerepl.probes.ProbeCall)."""

    def __init__(self, call: JavaObject) -> None:
        self._call = call

    def drain(self) -> tuple[list[HitRecord], list[str]]:
        run = self._call.getRun()
        return [jvm_record(record) for record in run.drainHits()], [jstr(note) for note in run.drainNotes()]

    def counts(self) -> RunCounts:
        run = self._call.getRun()
        return RunCounts([int(n) for n in run.hitCounts()], [bool(a) for a in run.activity()])

    def close(self) -> None:
        self._call.close()


class ProbeSessions:
    """A session's probes: a call's (during), and those that outlive calls (add, read, remove). Where they are set is
    the subclass's (_armed); what they are located and compiled with is the session's, here."""

    def __init__(
        self,
        environment: ReplEnvironment,
        facade_loader: JavaObject,
        snippet_loader: JavaObject,
        compile_classpath: list[str],
    ) -> None:
        self._environment = environment
        self._facade_loader = facade_loader
        self._snippet_loader = snippet_loader
        # What snippets compile against: the project's, Kotlin's stdlib where it has none, the facade (ProbeCode).
        self._compile_classpath = compile_classpath
        self._session: dict[int, _SessionProbe] = {}
        self._next_id = 1

    def _armed(
        self, probes: list[Probe], expires_seconds: float | None, afresh: JavaObject | None = None
    ) -> tuple[ArmedRun, list[str]]:
        """The probes set in the code, and what was left out of where; a ProbeError when one can't be set. The classes
        `afresh` loads get them as they load."""
        raise NotImplementedError

    def add(self, request: AddProbeRequest) -> ProbesResult:
        """A probe set until it is removed, reaches its maxHits or expires (add_kotlin_probe)."""
        self._end_expired()
        held = sum(1 for probe in self._session.values() if not probe.closed)
        if held >= DEFAULTS.probes_per_call:
            raise ProbeError(
                f"the session holds {held} probes, the most it may: remove one (remove_kotlin_probe) or let one expire"
            )
        run, notes = self._armed([request.probe], request.expires_seconds)
        probe_id = self._next_id
        self._next_id += 1
        self._session[probe_id] = _SessionProbe(
            probe_id,
            request.probe,
            run,
            time.monotonic() + request.expires_seconds,
            notes=[note.replace("probe 0 ", f"probe {probe_id} ", 1) for note in notes],
        )
        return ProbesResult(probe_id=probe_id, probes=self.states())

    def read(self, probe_id: int | None) -> ProbesResult:
        """The hits since the last read, as many as fit a reply; the rest wait for the next read."""
        self._end_expired()
        chosen = [self._probe(probe_id)] if probe_id is not None else list(self._session.values())
        states = self.states()  # each probe's hits collected first: one look at each (in an app, one request)
        hits: list[ProbeHit] = []
        notes: list[str] = []
        used = 0
        waiting = 0
        for probe in chosen:
            notes += probe.notes
            probe.notes = []
            while probe.pending:
                size = len(probe.pending[0].model_dump_json())
                if hits and used + size > HITS_LIMIT_CHARS:
                    break
                hits.append(probe.pending.pop(0))
                used += size
            waiting += len(probe.pending)
        if waiting:
            notes.append(f"{waiting} more hits wait for the next read (a reply's {HITS_LIMIT_CHARS}-character limit)")
        return ProbesResult(hits=hits, probes=states, notes=notes)

    def remove(self, probe_id: int) -> ProbesResult:
        """Takes the probe out of the code (the classes run their own bytes again); its hits not yet read."""
        probe = self._probe(probe_id)
        probe.close()
        del self._session[probe_id]
        return ProbesResult(hits=probe.pending, probes=self.states(), notes=probe.notes)

    def states(self) -> list[ProbeState]:
        return [probe.state() for probe in self._session.values()]

    def after_reply(self) -> None:
        """Nothing here: an app takes its classes' probes out as a set closes, in its own JVM."""

    def _probe(self, probe_id: int) -> _SessionProbe:
        if probe_id not in self._session:
            held = ", ".join(str(n) for n in self._session) or "none"
            raise ProbeError(f"the session has no probe {probe_id} (its probes: {held})")
        return self._session[probe_id]

    def _end_expired(self) -> None:
        """Probes past their expiry taken out of the code; kept, inactive, for their hits and state until removed."""
        now = time.monotonic()
        for probe in self._session.values():
            if now >= probe.expires_at:
                probe.close()

    @contextmanager
    def during(self, probes: list[Probe], afresh: JavaObject | None = None) -> Iterator[SetProbes]:
        """The probes set for the body of the with-statement and taken out after it; a ProbeError before it runs when
        one can't be set."""
        if not probes:
            yield SetProbes(None, [])
            return
        run, notes = self._armed(probes, None, afresh)
        try:
            yield SetProbes(run, probes, notes)
        finally:
            run.close()


@dataclass(frozen=True)
class Planned:
    """A probe located: its index in its set, where it is, the classes compiled from its source, its sites in them."""

    index: int
    probe: Probe
    location: ProbeLocation
    files: JavaObject  # gradlerepl.probes.ProbeClassFiles
    sites: list[JavaObject]  # gradlerepl.probes.ProbeSite


class LocalProbes(ProbeSessions):
    """Sets probes in this JVM — a call's, and the session's that outlive calls: the session's project classes, its
    compiler and its agent."""

    _probe_call: JavaObject | None = None  # gradlerepl.probes.ProbeCall, once a reply has asked for it

    def _armed(
        self, probes: list[Probe], expires_seconds: float | None, afresh: JavaObject | None = None
    ) -> tuple[ArmedRun, list[str]]:
        instrumentation = java_class(_AGENT).instrumentation()
        if instrumentation is None:
            raise ProbeError("probes need the session's agent, which this session started without")
        directories = string_array(class_directories(self._environment))
        files = java_class("gradlerepl.probes.ProbeClassFiles", loader=self._facade_loader)

        def class_files(location: ProbeLocation) -> JavaObject:
            if location.class_name is not None:
                return files.ofClass(directories, location.class_name)
            return files.ofSourceFile(directories, location.package.replace(".", "/"), location.file_name)

        planned = plan_probes(
            probes, source_roots(self._environment), class_files, ", ".join(class_directories(self._environment))
        )
        compiled = compile_planned(planned, self._compile_classpath, self._snippet_loader, self._facade_loader)
        call = java_class("gradlerepl.probes.ProbeCall", loader=self._facade_loader)(
            instrumentation, VALUE_LIMIT_CHARS, expires_seconds is not None
        )
        if expires_seconds is not None:
            call.getRun().expireIn(expires_seconds)
        if afresh is not None:
            call.loadsAfresh(afresh)
        notes = []
        for entry in planned:
            kept = [n for n in range(len(entry.sites)) if (entry.index, n) not in compiled.left_out]
            notes += left_out_notes(entry, compiled.left_out)
            call.add(
                entry.index,
                entry.probe.max_hits,
                entry.location.line,
                last_line(entry.location),
                entry.probe.when is not None,
                len(entry.probe.capture),
                bool(entry.files.lacksLocalNames(entry.location.line)),
                object_array(
                    java_class("gradlerepl.probes.ProbeSite", loader=self._facade_loader),
                    [entry.sites[n] for n in kept],
                ),
                nullable_byte_arrays([compiled.codes.get((entry.index, n)) for n in kept]),
            )
        if (failure := call.arm()) is not None:
            raise ProbeError(f"the probes could not be set: {jstr(failure)}")
        return _JvmRun(call), notes

    def rerun_loader(self, probes: list[Probe], test_outputs: list[str]) -> JavaObject | None:
        """A loader of the probed test classes afresh, for a failed test's rerun (probes at its frames, `Class:line`,
        the test method's first), or None where the rerun must run in the session's loader."""
        outers = list(dict.fromkeys(probe.at.partition(":")[0].split("$", 1)[0] for probe in probes))
        made: JavaObject | None = java_class("gradlerepl.probes.RerunLoader", loader=self._facade_loader).of(
            string_array(outers), string_array(test_outputs), self._snippet_loader
        )
        return made

    def after_reply(self) -> None:
        """The classes of the sets closed during the call go back to their own bytes now, after its reply: their
        retransform stops this JVM for tens of ms (ProbeCall.close). A next request waits for it."""
        if self._probe_call is None:
            self._probe_call = java_class("gradlerepl.probes.ProbeCall", loader=self._facade_loader)
        self._probe_call.takeOutEnded()


def plan_probes(
    probes: list[Probe],
    roots: list[Path],
    class_files: Callable[[ProbeLocation], JavaObject],
    outputs: str,
    *,
    without_sources: str | None = None,
) -> list[Planned]:
    """Each probe located among the sources (`roots`) and the classes compiled from them (`class_files` reads them;
    `outputs` names where, for a message), with the sites its line starts at; a ProbeError for the first that can't be.
    `without_sources` is what a source file's name is answered with where there are no roots (locations.locate)."""
    check_counts(probes)
    planned: list[Planned] = []
    for index, probe in enumerate(probes):
        location = locate(probe.at, roots, without_sources=without_sources)
        files = class_files(location)
        if location.class_name is not None:
            classes = [jstr(name) for name in files.classNames()]
            if not classes:
                raise ProbeError(f"`{probe.at}`: no class {location.class_name} among the project's class outputs")
            location = source_of_class(location, jstr(files.sourceFileName()), roots)
        if not list(files.classNames()):
            raise ProbeError(
                f"`{probe.at}`: no class compiled from {location.file_name} is among the session's class outputs "
                f"({outputs or 'none'}): is it compiled by this module?"
            )
        sites = list(files.sites(location.line, last_line(location)))
        if not sites:
            with_code = [int(n) for n in files.linesWithCode(last_line(location))]
            raise ProbeError(
                f"`{probe.at}`: line {location.line} has no code a probe can stop at (blank, a comment or a "
                f"declaration only); {nearest_lines(location.line, with_code)}"
            )
        planned.append(Planned(index, probe, location, files, sites))
    return planned


def compile_planned(
    planned: list[Planned], compile_classpath: list[str], snippet_loader: JavaObject, facade_loader: JavaObject
) -> CompiledSites:
    """The probes' `when` and `capture` compiled for each of their sites (expressions.py)."""
    return compile_sites(
        [(entry.index, entry.probe, entry.sites) for entry in planned],
        compile_classpath,
        _compile_views(planned),
        snippet_loader,
        java_class("gradlerepl.probes.ProbeTypes", loader=facade_loader),
    )


def left_out_notes(entry: Planned, left_out: dict[tuple[int, int], str]) -> list[str]:
    """A note for each site of the probe its code doesn't compile at."""
    return [
        f"probe {entry.index} is left out of {jstr(site.getMethod())}: {left_out[(entry.index, n)]}"
        for n, site in enumerate(entry.sites)
        if (entry.index, n) in left_out
    ]


def class_directories(environment: ReplEnvironment) -> list[str]:
    """The session's class outputs, in class path order: gradle-repl's own first, then the build's."""
    return [entry for entry in environment.classpath if os.path.isdir(entry)]


def source_roots(environment: ReplEnvironment) -> list[Path]:
    """The project's source roots, main and test, that exist."""
    roots: list[str] = []
    for sources in (
        environment.edit_sources,
        environment.edit_sources.main_sources if environment.edit_sources else None,
    ):
        if sources is not None:
            roots += sources.roots
    roots += environment.input_dirs
    return [Path(r) for r in dict.fromkeys(roots) if Path(r).is_dir()]


def _compile_views(planned: list[Planned]) -> dict[str, bytes]:
    """Each probed class (and the classes it is nested in) as the probes' code compiles against it."""
    views: dict[str, bytes] = {}
    for entry in planned:
        if not (entry.probe.when or entry.probe.capture):
            continue
        for site in entry.sites:
            name = jstr(site.getClassName())
            parts = name.split("$")
            for outer in ("$".join(parts[: n + 1]) for n in range(len(parts))):
                if outer not in views and (view := entry.files.compileView(outer)) is not None:
                    views[outer] = bytes(view)
    return views


def check_counts(probes: list[Probe]) -> None:
    if len(probes) > DEFAULTS.probes_per_call:
        raise ProbeError(f"{len(probes)} probes: a call may set at most {DEFAULTS.probes_per_call}")
    for index, probe in enumerate(probes):
        if not 1 <= probe.max_hits <= DEFAULTS.probe_max_hits_cap:
            raise ProbeError(
                f"probes[{index}].maxHits is {probe.max_hits}: it must be from 1 to {DEFAULTS.probe_max_hits_cap}"
            )


def last_line(location: ProbeLocation) -> int:
    """The last line of the probe's source; with its source unknown, every line counts as its own."""
    return location.last_line or 1_000_000
