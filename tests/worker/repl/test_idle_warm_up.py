"""An idle worker warms its compiler with throwaway compiles (worker/repl/idle_warm_up.py): only while no request waits,
each taken back, so the session and its numbering read as if none had run."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import WorkerOptions
from gradle_repl.settings import DEFAULTS, IDLE_WARM_UP_ENV
from gradle_repl.worker.repl.idle_warm_up import TYPICAL_SNIPPETS, IdleWarmUp
from support.workers import running_worker


class _Compiles:
    """What the warm-up compiled, in order; optionally a request put in the queue on the nth compile, or a failure."""

    def __init__(self, pending: queue.Queue[bytes], *, request_on: int = 0, fail_on: int = 0) -> None:
        self.codes: list[str] = []
        self._pending = pending
        self._request_on = request_on
        self._fail_on = fail_on

    def __call__(self, code: str) -> str | None:
        self.codes.append(code)
        if len(self.codes) == self._request_on:
            self._pending.put(b"came-while-compiling")
        return "it did not compile" if len(self.codes) == self._fail_on else None


def _answer_when(condition: threading.Event, pending: queue.Queue[bytes]) -> threading.Thread:
    """Puts b"later" once `condition` is set; b"gave-up" (which fails the test's comparison at once) if it never is."""

    def put() -> None:
        pending.put(b"later" if condition.wait(60) else b"gave-up")

    thread = threading.Thread(target=put, daemon=True)
    thread.start()
    return thread


def test_a_waiting_request_is_answered_before_any_compile() -> None:
    pending: queue.Queue[bytes] = queue.Queue()
    compiles = _Compiles(pending)
    pending.put(b"first")
    assert IdleWarmUp(compiles, 5, idle_seconds=0.01).next_request(pending) == b"first"
    assert compiles.codes == []


def test_an_idle_worker_runs_its_compiles_then_only_waits() -> None:
    pending: queue.Queue[bytes] = queue.Queue()
    done = threading.Event()

    def compile_one(code: str) -> None:
        if warm_up.left == 1:
            done.set()

    warm_up = IdleWarmUp(compile_one, 4, idle_seconds=0.01)
    _answer_when(done, pending)
    assert warm_up.next_request(pending) == b"later"
    assert warm_up.left == 0


def test_the_typical_snippets_are_compiled_in_turn() -> None:
    pending: queue.Queue[bytes] = queue.Queue()
    compiles = _Compiles(pending, request_on=len(TYPICAL_SNIPPETS) + 1)
    IdleWarmUp(compiles, 10, idle_seconds=0.01).next_request(pending)
    assert compiles.codes == [*TYPICAL_SNIPPETS, TYPICAL_SNIPPETS[0]]


def test_a_request_that_comes_while_compiling_is_next_and_the_rest_waits_for_idleness() -> None:
    pending: queue.Queue[bytes] = queue.Queue()
    compiles = _Compiles(pending, request_on=2)
    warm_up = IdleWarmUp(compiles, 6, idle_seconds=0.01)
    assert warm_up.next_request(pending) == b"came-while-compiling"
    assert (len(compiles.codes), warm_up.left) == (2, 4)
    pending.put(b"queued")
    assert warm_up.next_request(pending) == b"queued"  # answered at once: no compile ahead of it
    assert warm_up.left == 4


def test_a_compile_that_fails_ends_the_warm_up() -> None:
    pending: queue.Queue[bytes] = queue.Queue()
    compiles = _Compiles(pending, fail_on=2)
    warm_up = IdleWarmUp(compiles, 6, idle_seconds=0.01)
    ended = threading.Event()

    def watch() -> None:
        deadline = time.monotonic() + 60
        while warm_up.left != 0 and time.monotonic() < deadline:  # polled: an observable state, never a fixed sleep
            time.sleep(0.001)
        ended.set()

    threading.Thread(target=watch, daemon=True).start()
    _answer_when(ended, pending)
    assert warm_up.next_request(pending) == b"later"
    assert len(compiles.codes) == 2


def test_a_compile_that_raises_ends_the_warm_up_and_the_request_is_still_answered() -> None:
    pending: queue.Queue[bytes] = queue.Queue()

    def broken(code: str) -> str | None:
        pending.put(b"still answered")
        raise RuntimeError("the JVM could not start a thread")

    warm_up = IdleWarmUp(broken, 6, idle_seconds=0.01)
    assert warm_up.next_request(pending) == b"still answered"
    assert warm_up.left == 0


def test_the_suite_runs_its_workers_without_it() -> None:
    """tests/conftest.py turns it off for every worker the suite starts but this module's own; it spells the variable
    out (it runs before gradle_repl may be imported), so this ties its spelling to settings.IDLE_WARM_UP_ENV."""
    assert DEFAULTS.idle_warm_up_compiles == 0
    assert IDLE_WARM_UP_ENV == "GRADLE_REPL_IDLE_WARM_UP_COMPILES"


@pytest.mark.jvm
def test_throwaway_compiles_leave_the_session_as_it_was(sample_env: ReplEnvironment) -> None:
    """A request sent while the worker warms up is answered right; the warm-up's snippets declare nothing the session
    sees and take no snippet number; it goes on at the next idle pause until its count is done. A check and a
    completion come first, so the completion add-on's compiler extensions are registered while it compiles."""
    with running_worker(sample_env, WorkerOptions(heap_mb=512, idle_warm_up_compiles=40)) as worker:
        log = worker.process.log_path()
        assert log is not None
        assert worker.value("val answer = 40\nanswer") == "40"
        assert worker.check("answer + 1").value_type == "kotlin.Int"
        assert any(item.text == "answer" for item in worker.complete("answ").items)
        _wait(
            lambda: "idle: warming the compiler with 40 throwaway compiles" in _text(log), "the warm-up to begin", log
        )
        assert "idle: warmed the compiler" not in _text(log), "the warm-up ended before the test's request was sent"
        second = worker.succeeded("answer + 2")
        assert second.value is not None and second.value.data == "42"
        _wait(
            lambda: "idle: warmed the compiler with 40 throwaway compiles in" in _text(log), "the warm-up to end", log
        )
        # The next snippet is the user's third (a failure names it so), and the warm-up's classes were taken back.
        third = worker.failed('error("third")')
        assert "snippet 3" in (third.stack or ""), third.stack
        unknown = worker.failed("TypicalPoint(1)")
        assert "Unresolved reference" in unknown.message, unknown.message
        assert [d.name for d in worker.describe().declarations] == ["answer"]


def _text(log: Path) -> str:
    return log.read_text(errors="replace") if log.exists() else ""


def _wait(condition: Callable[[], bool], what: str, log: Path, seconds: float = 120.0) -> None:
    """Polls an observable state (every 10 ms) until it holds; fails naming `what` after `seconds`, or at once when
    the worker's log says the warm-up stopped."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert "warm-up stopped" not in _text(log), _text(log)[-2000:]
        assert time.monotonic() < deadline, f"waited {seconds:g} s for {what}"
        time.sleep(0.01)
