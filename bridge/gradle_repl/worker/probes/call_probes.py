"""Probes for one call of a session in its own JVM: set before the snippet or the tests run, taken out when they end,
whatever happened (worker/repl/local_runner.py wraps each call in `LocalProbes.during`).

Setting a probe: its `at` located among the project's sources (locations.py), the class files compiled from that
source read from the session's class outputs for where the line starts in each method (gradlerepl.probes.
ProbeClassFiles), its `when` and `capture` compiled for each of those places (expressions.py), then a class file
transformer set through the session's agent (gradlerepl.probes.ProbeCall): the loaded classes are retransformed, the
others get the probe when they load. Nothing stops a thread; a class goes back to its own bytes when the call ends.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import AddProbeRequest, Probe, ProbeHit, ProbesResult, ProbeState
from gradle_repl.settings import DEFAULTS
from gradle_repl.worker.java import JavaObject, java_class, nullable_byte_arrays, object_array, string_array
from gradle_repl.worker.probes.expressions import compile_sites
from gradle_repl.worker.probes.hits import probe_hit
from gradle_repl.worker.probes.locations import ProbeLocation, locate, nearest_lines, source_of_class
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.results.value_text import VALUE_LIMIT_CHARS
from gradle_repl.worker.runner import ProbeError

__all__ = ["LocalProbes", "SetProbes"]

_AGENT = "gradlerepl.classupdates.ClassUpdates"
# What one reply carries of hits, in JSON characters: well inside the frame limit, with the result beside it.
HITS_LIMIT_CHARS = 100_000


class SetProbes:
    """The probes of a call while it runs; their hits and notes once it ended."""

    def __init__(self, call: JavaObject | None, probes: list[Probe], notes: list[str] | None = None) -> None:
        self._call = call
        self._probes = probes
        self._set_notes = notes or []
        self._left_out = 0

    def hits(self) -> list[ProbeHit]:
        """The hits in order, as many as fit the reply (HITS_LIMIT_CHARS); notes() says how many more there were."""
        if self._call is None:
            return []
        kept: list[ProbeHit] = []
        used = 0
        records = list(self._call.getRun().hits())
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
        return [] if self._call is None else [probe_hit(record, self._probes) for record in self._call.getRun().hits()]

    def notes(self) -> list[str]:
        """What happened to the probes besides their hits; after hits(), how many hits the reply's limit left out."""
        notes = [
            *self._set_notes,
            *([] if self._call is None else [jstr(note) for note in self._call.getRun().notes()]),
        ]
        if self._left_out:
            notes.append(
                f"{self._left_out} more hits left out (the reply's {HITS_LIMIT_CHARS}-character limit for hits): "
                "a `when` or a lower maxHits keeps the ones that matter"
            )
        return notes


@dataclass
class _SessionProbe:
    """A probe that outlives its call: its ProbeCall, its hits read from it and not yet sent, when it ends."""

    probe_id: int
    probe: Probe
    call: JavaObject
    expires_at: float  # time.monotonic()
    pending: list[ProbeHit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    closed: bool = False

    def collect(self) -> None:
        """The hits and notes recorded since the last collect, kept here until read; a hit named by the probe's id."""
        if not self.closed:
            self.pending += [
                probe_hit(record, [self.probe]).model_copy(update={"probe": self.probe_id})
                for record in self.call.getRun().drainHits()
            ]
            self.notes += [
                jstr(note).replace("probe 0 ", f"probe {self.probe_id} ", 1) for note in self.call.getRun().drainNotes()
            ]

    def close(self) -> None:
        """Taken out of the code, then its last hits collected: none recorded in between is lost."""
        if not self.closed:
            self.call.close()
            self.collect()
            self.closed = True

    def state(self) -> ProbeState:
        run = self.call.getRun()
        active = not self.closed and bool(run.activity()[0]) and time.monotonic() < self.expires_at
        return ProbeState(probe_id=self.probe_id, at=self.probe.at, hits=int(run.hitCounts()[0]), active=active)


class LocalProbes:
    """Sets probes in this JVM — a call's, and the session's that outlive calls: the session's project classes, its
    compiler and its agent."""

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

    def add(self, request: AddProbeRequest) -> ProbesResult:
        """A probe set until it is removed, reaches its maxHits or expires (add_kotlin_probe)."""
        self._end_expired()
        held = sum(1 for probe in self._session.values() if not probe.closed)
        if held >= DEFAULTS.probes_per_call:
            raise ProbeError(
                f"the session holds {held} probes, the most it may: remove one (remove_kotlin_probe) or let one expire"
            )
        call, notes = self._armed([request.probe])
        call.getRun().expireIn(request.expires_seconds)
        probe_id = self._next_id
        self._next_id += 1
        self._session[probe_id] = _SessionProbe(
            probe_id,
            request.probe,
            call,
            time.monotonic() + request.expires_seconds,
            notes=[note.replace("probe 0 ", f"probe {probe_id} ", 1) for note in notes],
        )
        return ProbesResult(probe_id=probe_id, probes=self.states())

    def read(self, probe_id: int | None) -> ProbesResult:
        """The hits since the last read, as many as fit a reply; the rest wait for the next read."""
        self._end_expired()
        chosen = [self._probe(probe_id)] if probe_id is not None else list(self._session.values())
        for probe in chosen:
            probe.collect()
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
        return ProbesResult(hits=hits, probes=self.states(), notes=notes)

    def remove(self, probe_id: int) -> ProbesResult:
        """Takes the probe out of the code (the classes run their own bytes again); its hits not yet read."""
        probe = self._probe(probe_id)
        probe.close()
        del self._session[probe_id]
        return ProbesResult(hits=probe.pending, probes=self.states(), notes=probe.notes)

    def states(self) -> list[ProbeState]:
        return [probe.state() for probe in self._session.values()]

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
    def during(self, probes: list[Probe]) -> Iterator[SetProbes]:
        """The probes set for the body of the with-statement and taken out after it; a ProbeError before it runs when
        one can't be set."""
        if not probes:
            yield SetProbes(None, [])
            return
        call, notes = self._armed(probes)
        try:
            yield SetProbes(call, probes, notes)
        finally:
            call.close()

    def _armed(self, probes: list[Probe]) -> tuple[JavaObject, list[str]]:
        """The probes set in the code, and what was left out of where (a site where a probe's code doesn't compile)."""
        _check_counts(probes)
        instrumentation = java_class(_AGENT).instrumentation()
        if instrumentation is None:
            raise ProbeError("probes need the session's agent, which this session started without")
        roots = self._source_roots()
        directories = string_array(self._class_directories())
        planned: list[tuple[int, Probe, ProbeLocation, JavaObject, list[JavaObject]]] = []
        for index, probe in enumerate(probes):
            location = locate(probe.at, roots)
            files = self._class_files(location, directories)
            if location.class_name is not None:
                classes = [jstr(name) for name in files.classNames()]
                if not classes:
                    raise ProbeError(f"`{probe.at}`: no class {location.class_name} among the project's class outputs")
                location = source_of_class(location, jstr(files.sourceFileName()), roots)
            if not list(files.classNames()):
                raise ProbeError(
                    f"`{probe.at}`: no class compiled from {location.file_name} is among the session's class outputs "
                    f"({', '.join(self._class_directories()) or 'none'}): is it compiled by this module?"
                )
            sites = list(files.sites(location.line, _last(location)))
            if not sites:
                with_code = [int(n) for n in files.linesWithCode(_last(location))]
                raise ProbeError(
                    f"`{probe.at}`: line {location.line} has no code a probe can stop at (blank, a comment or a "
                    f"declaration only); {nearest_lines(location.line, with_code)}"
                )
            planned.append((index, probe, location, files, sites))
        compiled = compile_sites(
            [(index, probe, sites) for index, probe, _, _, sites in planned],
            self._compile_classpath,
            _compile_views(planned),
            self._snippet_loader,
            java_class("gradlerepl.probes.ProbeTypes", loader=self._facade_loader),
        )
        call = java_class("gradlerepl.probes.ProbeCall", loader=self._facade_loader)(instrumentation, VALUE_LIMIT_CHARS)
        notes = []
        for index, probe, location, files, every_site in planned:
            numbers = [n for n in range(len(every_site)) if (index, n) not in compiled.left_out]
            sites = [every_site[n] for n in numbers]
            notes += [
                f"probe {index} is left out of {jstr(every_site[n].getMethod())}: {compiled.left_out[(index, n)]}"
                for n in range(len(every_site))
                if (index, n) in compiled.left_out
            ]
            call.add(
                index,
                probe.max_hits,
                location.line,
                _last(location),
                probe.when is not None,
                len(probe.capture),
                bool(files.lacksLocalNames(location.line)),
                object_array(java_class("gradlerepl.probes.ProbeSite", loader=self._facade_loader), sites),
                nullable_byte_arrays([compiled.codes.get((index, number)) for number in numbers]),
            )
        if (failure := call.arm()) is not None:
            raise ProbeError(f"the probes could not be set: {jstr(failure)}")
        return call, notes

    def _class_files(self, location: ProbeLocation, directories: JavaObject) -> JavaObject:
        files = java_class("gradlerepl.probes.ProbeClassFiles", loader=self._facade_loader)
        if location.class_name is not None:
            return files.ofClass(directories, location.class_name)
        return files.ofSourceFile(directories, location.package.replace(".", "/"), location.file_name)

    def _class_directories(self) -> list[str]:
        """The session's class outputs, in class path order: gradle-repl's own first, then the build's."""
        return [entry for entry in self._environment.classpath if os.path.isdir(entry)]

    def _source_roots(self) -> list[Path]:
        env = self._environment
        roots: list[str] = []
        for sources in (env.edit_sources, env.edit_sources.main_sources if env.edit_sources else None):
            if sources is not None:
                roots += sources.roots
        roots += env.input_dirs
        return [Path(r) for r in dict.fromkeys(roots) if Path(r).is_dir()]


def _compile_views(planned: list[tuple[int, Probe, ProbeLocation, JavaObject, list[JavaObject]]]) -> dict[str, bytes]:
    """Each probed class (and the classes it is nested in) as the probes' code compiles against it."""
    views: dict[str, bytes] = {}
    for _, probe, _, files, sites in planned:
        if not (probe.when or probe.capture):
            continue
        for site in sites:
            name = jstr(site.getClassName())
            parts = name.split("$")
            for outer in ("$".join(parts[: n + 1]) for n in range(len(parts))):
                if outer not in views and (view := files.compileView(outer)) is not None:
                    views[outer] = bytes(view)
    return views


def _check_counts(probes: list[Probe]) -> None:
    if len(probes) > DEFAULTS.probes_per_call:
        raise ProbeError(f"{len(probes)} probes: a call may set at most {DEFAULTS.probes_per_call}")
    for index, probe in enumerate(probes):
        if not 1 <= probe.max_hits <= DEFAULTS.probe_max_hits_cap:
            raise ProbeError(
                f"probes[{index}].maxHits is {probe.max_hits}: it must be from 1 to {DEFAULTS.probe_max_hits_cap}"
            )


def _last(location: ProbeLocation) -> int:
    """The last line of the probe's source; with its source unknown, every line counts as its own."""
    return location.last_line or 1_000_000
