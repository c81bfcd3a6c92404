"""Probes in the app a session is attached to: located and compiled here as in the session's own JVM
(call_probes.py), put into the app's classes here too, and run there by the agent.

The worker reads each probed class's bytes as the app runs them from the agent (a loaded class's, or one not loaded
yet through the app's loader: a fat jar's classes as well), finds where the line starts with the compiler's ASM,
compiles `when` and `capture`, puts the hook's calls in (the agent's own build of gradlerepl.both.ProbeHook, whose
package the compiled code is renamed into) and hands the bytes back: the agent only swaps bytes (ProbeClasses.java)
and runs what a probe records with the same Java the worker's own JVM runs (gradlerepl.both.ProbeRun). Nothing
stops a thread; the app's classes go back to their own bytes when no probe is left in them.
"""

from __future__ import annotations

import itertools
import os

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import Probe
from gradle_repl.worker.java import (
    JavaObject,
    byte_array,
    byte_arrays,
    int_array,
    java_class,
    object_array,
    string_array,
)
from gradle_repl.worker.probes.call_probes import (
    ArmedRun,
    Planned,
    ProbeSessions,
    compile_planned,
    last_line,
    left_out_notes,
    plan_probes,
    source_roots,
)
from gradle_repl.worker.probes.locations import ProbeLocation
from gradle_repl.worker.results.probe_records import HitRecord, ProbeSetSpec, RunCounts, SetProbe, SetSite
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.results.value_text import VALUE_LIMIT_CHARS
from gradle_repl.worker.runner import AppProbeChannel, ProbeError

__all__ = ["AppProbes"]

# How often a set is tried again when another session changed one of its classes between the read and the set.
_SET_ATTEMPTS = 3
# What a source file's name in `at` is answered with when the session was attached without its project.
_WITHOUT_SOURCES = (
    "this session was attached without its project, so the app's sources are unknown here: name the class "
    "(`shop.Cart:18`), or attach with the project's projectRoot"
)
# The package compiled probe code implements ProbeCode from, renamed into the agent's build for the app.
_BOTH_INTERNAL = "gradlerepl/both/"


class _AppRun:
    """A set of probes in the app: its hits come with each collect; the last ones with its close."""

    def __init__(self, channel: AppProbeChannel, run: int, probes: int) -> None:
        self._channel = channel
        self._run = run
        self._closed = False
        self._last = RunCounts([0] * probes, [True] * probes)
        self._kept: tuple[list[HitRecord], list[str]] = ([], [])

    def drain(self) -> tuple[list[HitRecord], list[str]]:
        if not self._closed:
            hits, self._last, notes = self._channel.collect(self._run, close=False)
            self._kept = (self._kept[0] + hits, self._kept[1] + notes)
        drained, self._kept = self._kept, ([], [])
        return drained

    def counts(self) -> RunCounts:
        return self._last

    def close(self) -> None:
        if not self._closed:
            hits, counts, notes = self._channel.collect(self._run, close=True)
            self._closed = True
            self._kept = (self._kept[0] + hits, self._kept[1] + notes)
            self._last = RunCounts(counts.hits or self._last.hits, [False] * len(self._last.active))


class AppProbes(ProbeSessions):
    """Sets probes in the attached app: a call's, and those that outlive calls, for code a request runs."""

    def __init__(
        self,
        environment: ReplEnvironment,
        channel: AppProbeChannel,
        facade_loader: JavaObject,
        snippet_loader: JavaObject,
        compile_classpath: list[str],
    ) -> None:
        super().__init__(environment, facade_loader, snippet_loader, compile_classpath)
        self._channel = channel
        self._runs = itertools.count(1)

    def _armed(
        self, probes: list[Probe], expires_seconds: float | None, afresh: JavaObject | None = None
    ) -> tuple[ArmedRun, list[str]]:
        # `afresh` is for a test's rerun in a session's own JVM: an app's classes are its own, probed where they are.
        for _ in range(_SET_ATTEMPTS):
            armed = self._try_arm(probes, expires_seconds)
            if armed is not None:
                return armed
        raise ProbeError(
            f"the probes could not be set: other sessions kept changing the probed classes ({_SET_ATTEMPTS} tries)"
        )

    def _try_arm(self, probes: list[Probe], expires_seconds: float | None) -> tuple[ArmedRun, list[str]] | None:
        """The set in the app's code; None when another session changed a class between the read and the set."""
        read: dict[str, tuple[int, bytes]] = {}  # each class's version and bytes, as the agent gave them
        entries = [entry for entry in self._environment.classpath if os.path.exists(entry)]

        def class_files(location: ProbeLocation) -> JavaObject:
            # Asked for only once a probe's `at` is located: one that can't be is refused before any of this runs.
            files = java_class("gradlerepl.probes.ProbeClassFiles", loader=self._facade_loader)
            on_class_path = string_array(entries)
            on_disk = (
                files.ofClass(on_class_path, location.class_name)
                if location.class_name is not None
                else files.ofSourceFile(on_class_path, location.package.replace(".", "/"), location.file_name)
            )
            # Only the classes the line is in are read from the app: reading a loaded class's bytes retransforms it,
            # and a method running then (the app's main loop) would show "Unknown Source" in its stack traces after.
            with_line = sorted(
                {jstr(site.getClassName()) for site in on_disk.sites(location.line, last_line(location))}
            )
            # A class named by `at` that no class path entry here holds: the agent names it and its loaded nested ones.
            nested = not list(on_disk.classNames()) and location.class_name is not None
            asked = [location.class_name] if nested and location.class_name is not None else with_line
            live = self._channel.class_bytes(asked, nested=nested)
            for name, version, data in live:
                if data is not None:
                    read[name] = (version, data)
            return on_disk.replacing(byte_arrays([data for _, _, data in live if data is not None]))

        outputs = ", ".join(entries[:3]) + (f" and {len(entries) - 3} more" if len(entries) > 3 else "")
        planned = plan_probes(
            probes, source_roots(self._environment), class_files, outputs, without_sources=_WITHOUT_SOURCES
        )
        compiled = compile_planned(planned, self._compile_classpath, self._snippet_loader, self._facade_loader)
        kept = {
            entry.index: [n for n in range(len(entry.sites)) if (entry.index, n) not in compiled.left_out]
            for entry in planned
        }
        count = sum(len(numbers) for numbers in kept.values())
        base = self._channel.reserve_sites(count)
        ids = itertools.count(base)
        site_ids = {(entry.index, n): next(ids) for entry in planned for n in kept[entry.index]}
        run = next(self._runs)
        spec = ProbeSetSpec(
            run=run,
            value_limit=VALUE_LIMIT_CHARS,
            expires_ms=int(expires_seconds * 1000) if expires_seconds is not None else 0,
            probes=[self._set_probe(entry, kept[entry.index], site_ids, compiled.codes) for entry in planned],
            classes=self._instrumented(planned, kept, site_ids, read),
        )
        failure = self._channel.set_probes(spec)
        if failure is not None and failure.startswith("changed:"):
            return None
        if failure is not None:
            raise ProbeError(f"the probes could not be set: {failure}")
        notes = [note for entry in planned for note in left_out_notes(entry, compiled.left_out)]
        return _AppRun(self._channel, run, len(probes)), notes

    def _set_probe(
        self,
        entry: Planned,
        numbers: list[int],
        site_ids: dict[tuple[int, int], int],
        codes: dict[tuple[int, int], bytes],
    ) -> SetProbe:
        types = java_class("gradlerepl.probes.ProbeTypes", loader=self._facade_loader)
        shared = java_class("gradlerepl.both.ProbeCodes", loader=self._facade_loader)
        made = java_class("gradlerepl.probes.ProbeClassBytes", loader=self._facade_loader)
        package = self._channel.hook_package.replace(".", "/") + "/"
        sites = []
        for n in numbers:
            site = entry.sites[n]
            class_name = jstr(site.getClassName())
            code = codes.get((entry.index, n))
            sites.append(
                SetSite(
                    id=site_ids[(entry.index, n)],
                    class_name=class_name,
                    method=jstr(site.getMethod()),
                    locals=[(jstr(local.getName()), jstr(types.shownType(local))) for local in site.getLocals()],
                    code=bytes(made.renamed(byte_array(code), _BOTH_INTERNAL, package)) if code is not None else None,
                    door=bytes(made.door(shared.doorName(class_name))) if code is not None else None,
                )
            )
        return SetProbe(
            index=entry.index,
            max_hits=entry.probe.max_hits,
            line=entry.location.line,
            last_line=last_line(entry.location),
            has_when=entry.probe.when is not None,
            captures=len(entry.probe.capture),
            no_local_names=bool(entry.files.lacksLocalNames(entry.location.line)),
            sites=sites,
        )

    def _instrumented(
        self,
        planned: list[Planned],
        kept: dict[int, list[int]],
        site_ids: dict[tuple[int, int], int],
        read: dict[str, tuple[int, bytes]],
    ) -> list[tuple[str, int, bytes]]:
        """Each probed class's bytes with the hook's calls at its sites, and the version of the bytes they came from."""
        by_class: dict[str, list[tuple[int, JavaObject]]] = {}
        for entry in planned:
            for n in kept[entry.index]:
                site = entry.sites[n]
                by_class.setdefault(jstr(site.getClassName()), []).append((site_ids[(entry.index, n)], site))
        instrumenter = java_class("gradlerepl.probes.ProbeInstrumenter", loader=self._facade_loader)
        site_class = java_class("gradlerepl.probes.ProbeSite", loader=self._facade_loader)
        hook = self._channel.hook_package.replace(".", "/") + "/ProbeHook"
        classes = []
        for name, sites in by_class.items():
            if name not in read:
                raise ProbeError(
                    f"the app's agent could not read the bytes of {name}, where the probe's line is: is the class "
                    "modifiable and visible to the app's class loader?"
                )
            version, data = read[name]
            made = instrumenter.instrumentAt(
                byte_array(data),
                int_array([site_id for site_id, _ in sites]),
                object_array(site_class, [site for _, site in sites]),
                hook,
            )
            if made is not None:
                classes.append((name, version, bytes(made)))
        return classes
