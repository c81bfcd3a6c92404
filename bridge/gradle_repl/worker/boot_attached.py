"""How boot.py starts a session attached to a running JVM: the attach agent's display API, Spring's helpers and a
connection to the agent; its snippets run with worker/attach/attached_runner.py.

A module of its own, imported only when a session is attached: a session in its own JVM (most of them) then never
imports the attach and probe modules, ~70 ms of every worker's start (bench/README.md, "A worker's start").
"""

from __future__ import annotations

import sys
from pathlib import Path

from gradle_repl.environment import Attached, AttachedOverTcp
from gradle_repl.errors import WorkerFailed
from gradle_repl.frames import StartRequest
from gradle_repl.worker import java
from gradle_repl.worker.attach.app_link import AppLink
from gradle_repl.worker.attach.attached_runner import ATTACHED_LIBRARIES_UNAVAILABLE, AttachedRunner
from gradle_repl.worker.attach.display_api import attached_display_api
from gradle_repl.worker.attach.probe_channel import ProbeChannel
from gradle_repl.worker.attach.snippet_mirror import SnippetMirror
from gradle_repl.worker.attach.spring_helpers import spring_helpers
from gradle_repl.worker.attach.warm_up import warm_up_attached
from gradle_repl.worker.java import JavaObject, ReplDriver
from gradle_repl.worker.probes.app_probes import AppProbes
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.runner import SnippetRunner
from gradle_repl.worker.snippet_names import WARM_UP_SNIPPET, SnippetCounter

__all__ = ["AttachedKind"]


class AttachedKind:
    """A session whose snippets run in a running JVM (its AppLink: by pid here, or over TCP), compiled here: no class
    updates (the app's classes are its own), no output capture or exit guard (nothing runs here), no @file:DependsOn
    (the app's classpath is fixed)."""

    libraries_unavailable = ATTACHED_LIBRARIES_UNAVAILABLE

    def __init__(self, request: StartRequest, placement: Attached | AttachedOverTcp) -> None:
        self._request = request
        self._link = AppLink(placement)
        self._probe_classes: tuple[JavaObject, list[str]] | None = None  # the facade's loader, the compile classpath
        self.probes: AppProbes | None = None  # made with the runner, on the agent's connection

    def jvm_options(self) -> list[str]:
        return []

    def facade_addons(self, facade_jar: Path, annotations: list[str]) -> list[str]:
        return []

    def snippet_addons(self, compile_classpath: list[str]) -> tuple[list[str], list[str]]:
        return [], []  # no test runner: an attached session's snippets run in the app, which has no test classes

    def before_driver(
        self, facade_loader: JavaObject, compile_classpath: list[str]
    ) -> tuple[list[str], list[str], JavaObject]:
        """What snippets compile against besides the app's classpath: Spring's helpers (compiled against, never loaded
        here) and the agent's display calls, which run in the app."""
        env = self._request.spec.environment
        self._probe_classes = (facade_loader, compile_classpath)
        spring = spring_helpers(compile_classpath, env.kotlin_version)
        if spring.unavailable is not None:
            print(f"[gradle-repl] {spring.unavailable}", file=sys.stderr, flush=True)
        display_classpath, display_imports = attached_display_api(env.java_home)
        return [*spring.classpath, *display_classpath], [*spring.imports, *display_imports], None

    def runner(
        self, driver: ReplDriver, snippet_loader: JavaObject, snippets: SnippetCounter, renderer: java.Renderer
    ) -> tuple[SnippetRunner, str]:
        """The runner, connected to the agent and after the warm-up ran there; and the app's Java version."""
        env = self._request.spec.environment
        connection = self._link.connect(env)
        mirror = SnippetMirror(snippet_loader)
        shared = {jstr(name): bytes(data) for name, data in driver.stateObjectClassFiles().items()}
        warm_up_attached(snippets, connection, WARM_UP_SNIPPET, mirror, shared)
        assert self._probe_classes is not None
        facade_loader, compile_classpath = self._probe_classes
        self.probes = AppProbes(
            env, ProbeChannel(connection, self._link.name), facade_loader, snippet_loader, compile_classpath
        )
        runner = AttachedRunner(
            self._request,
            snippets,
            renderer,
            connection=connection,
            link=self._link,
            mirror=mirror,
            probes=self.probes,
        )
        return runner, connection.hello.java_version

    def train(self, snippets: SnippetCounter) -> None:
        raise WorkerFailed("an attached session never trains a class-data archive")
