"""Probes in an attached app, the parts that need no app: a set's hits kept across collects and its last ones taken
with its close (worker/probes/app_probes.py's run), and a source file's name refused in one sentence where the session
has no sources. Set in a real app, end to end: tests/worker/attach (test_attach.py, test_attach_java.py,
test_attach_spring.py)."""

from __future__ import annotations

import re

import pytest

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import Probe
from gradle_repl.worker.probes.app_probes import AppProbes, _AppRun
from gradle_repl.worker.results.probe_records import HitRecord, ProbeSetSpec, ProbeText, RunCounts
from gradle_repl.worker.runner import ProbeError


def _hit(number: int) -> HitRecord:
    return HitRecord(
        probe=0,
        hit=number,
        thread="main",
        stack=(),
        locals=[],
        self=ProbeText("Cart()", 6),
        captured=[],
        when_error=None,
        no_local_names=False,
    )


class _Agent:
    """The agent's answers to collects, as a real one gives them: the hits since the last, then none once closed."""

    def __init__(self) -> None:
        self.pending = [_hit(1)]
        self.closed = False
        self.collects = 0

    @property
    def hook_package(self) -> str:
        return "gradlerepl.agent.v1.both"

    def class_bytes(self, names: list[str], *, nested: bool) -> list[tuple[str, int, bytes | None]]:
        raise AssertionError("not asked here")

    def reserve_sites(self, count: int) -> int:
        raise AssertionError("not asked here")

    def set_probes(self, spec: ProbeSetSpec) -> str | None:
        raise AssertionError("not asked here")

    def collect(self, run: int, *, close: bool) -> tuple[list[HitRecord], RunCounts, list[str]]:
        assert run == 3 and not self.closed
        self.collects += 1
        self.closed = close
        hits, self.pending = self.pending, []
        return hits, RunCounts([len(hits) + self.collects - 1], [not close]), []


def test_a_sets_hits_come_with_each_collect_and_its_last_ones_with_its_close() -> None:
    agent = _Agent()
    run = _AppRun(agent, 3, 1)
    assert [hit.hit for hit in run.drain()[0]] == [1]
    agent.pending = [_hit(2)]
    run.close()
    assert [hit.hit for hit in run.drain()[0]] == [2]  # recorded before the close, read after it
    assert run.drain() == ([], []) and run.counts().active == [False]
    run.close()
    assert agent.collects == 2  # a second close asks nothing


def test_a_source_files_name_is_refused_in_one_sentence_where_the_session_has_no_sources() -> None:
    unknown = ReplEnvironment(
        build_tool=None,
        project_root="/app",
        kotlin_version="2.3.21",
        classpath=[],
        java_home="/jdk",
        java_executable="/jdk/bin/java",
    )
    probes = AppProbes(unknown, _Agent(), None, None, [])
    expected = (
        "`Shop.kt:13`: this session was attached without its project, so the app's sources are unknown here: "
        "name the class (`shop.Cart:18`), or attach with the project's projectRoot"
    )
    with pytest.raises(ProbeError, match=f"^{re.escape(expected)}$"), probes.during([Probe(at="Shop.kt:13")]):
        pass
