"""Session policy (cap, spare, idle eviction, the limits read from the settings) and the worker handle against
fake workers: the races of cancel, timeout, crash, close, eviction and restart, in milliseconds.

The fakes (tests/support/fakeworker.py) speak the real frame protocol over in-memory pipes, so these tests run
the real SessionManager and WorkerHandle; only the JVM is missing. The same policy seen through the MCP
server is in test_server.py; real-JVM tests of these paths are in test_server.py and test_reliability.py.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import anyio
import pytest

from gradle_repl.environment import Attached, BuildToolChoice, ReplJarsReady
from gradle_repl.errors import GradleReplError
from gradle_repl.frames import CheckResult, CompletionResult, ErrorResult, SuccessResult, WorkerOptions
from gradle_repl.host import handle
from gradle_repl.host.manager import SessionLimits, SessionManager
from gradle_repl.host.notices import Notice
from gradle_repl.host.preparation import WorkerPreparation
from gradle_repl.host.spawned import SpawnedWorkers
from gradle_repl.options import SessionOptions
from gradle_repl.settings import DEFAULTS, Settings
from gradle_repl.target import SessionTarget
from gradle_repl.worker.artifacts.facade_jars import class_phases_addon_path, facade_jar_path
from support.fakeworker import FakeLauncher, FakeResolved, fake_resolver
from support.workers import wait_until

pytestmark = pytest.mark.anyio


def manager(launcher: FakeLauncher, **limits: Any) -> SessionManager:  # SessionLimits checks them
    return SessionManager(
        limits=SessionLimits(**{"spare_worker": False, **limits}),
        launcher=launcher,
        resolver=fake_resolver,
    )


async def run(
    m: SessionManager, code: str, session: str = "s", build_tool: BuildToolChoice = "auto", **extra: object
) -> str:
    reply = await m.run_snippet(SessionTarget("/p", build_tool=build_tool, session_id=session), code=code, **extra)  # type: ignore[arg-type]
    result = reply.result
    if isinstance(result, ErrorResult):
        return f"{result.error_kind}: {result.message}"
    return result.value.data if result.value is not None else "<no value>"


async def until_state(m: SessionManager, state: str, session: str = "s") -> None:
    """Waits until the session is listed in state: an observable fact, not a guess at how long it takes."""
    while not any(s.session_id == session and s.state == state for s in m.list()):
        await asyncio.sleep(0.005)


async def cancel_when(m: SessionManager, state: str, coroutine: Awaitable[object], session: str = "s") -> None:
    """Starts the call, cancels it once its session is listed in state, and requires the cancel to end it."""
    task = asyncio.ensure_future(coroutine)
    await until_state(m, state, session)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_cancelled_call_never_hands_its_reply_to_the_next_one() -> None:
    """The cancel reaches the snippet; the next call gets its own answer, the session its state."""
    launcher = FakeLauncher()
    m = manager(launcher)
    assert await run(m, "first") == "first"
    # Far longer than the host's wait for a cancelled snippet's answer: only a delivered cancel ends it in time.
    await cancel_when(m, "running", run(m, "sleep 60:A"))
    assert await asyncio.wait_for(run(m, "B"), timeout=handle.CANCEL_ANSWER_SECONDS / 2) == "B"
    assert await run(m, "C") == "C"
    assert len(launcher.spawned) == 1, "an honoured cancel keeps the worker"
    await m.close_all()


async def test_a_cancelled_call_whose_snippet_answers_late_still_reads_its_own_reply() -> None:
    """A snippet that ignores the cancel but then finishes: its late reply is read and dropped, not shifted."""
    m = manager(FakeLauncher())
    await cancel_when(m, "running", run(m, "stubborn 0.3:A"))
    assert await run(m, "B") == "B"
    await m.close_all()


async def test_a_cancelled_snippet_that_never_answers_costs_the_worker_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the cancel grace the worker is killed; the next call starts fresh and is told the state is gone."""
    monkeypatch.setattr(handle, "CANCEL_ANSWER_SECONDS", 0.1)
    launcher = FakeLauncher()
    m = manager(launcher)
    await cancel_when(m, "running", run(m, "hang"))
    reply = await m.run_snippet(SessionTarget("/p", session_id="s"), code="B")
    assert isinstance(reply.result, SuccessResult) and reply.result.value is not None and reply.result.value.data == "B"
    assert any(
        n.kind == "state_lost" and "cancelled snippet" in n.text and "state is lost" in n.text for n in reply.notices
    ), reply.notices
    assert len(launcher.live()) == 1 and launcher.spawned[0].returncode is not None
    await m.close_all()


@pytest.mark.parametrize("misbehaviour", ["huge", "garbage", "wrong-id"])
async def test_a_broken_frame_stops_the_worker_and_the_next_call_is_answered_by_its_own(misbehaviour: str) -> None:
    """An oversized, undecodable or misaddressed frame is fatal for that worker, said plainly, never shifted."""
    launcher = FakeLauncher()
    m = manager(launcher)
    broken = await run(m, misbehaviour)
    assert broken.startswith("protocol: ") and "state is lost" in broken, broken
    assert await run(m, "next") == "next"
    assert await run(m, "after") == "after"
    assert len(launcher.live()) == 1
    await m.close_all()


async def test_a_worker_that_stops_answering_is_killed_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host waits a snippet's timeout and a margin for its answer, then kills the worker. A worker started without
    the warm-up (as a session's is when a call waits for it) gets FIRST_COMPILE_SECONDS more, until an eval's answer
    shows it compiled: that compile loaded the compiler, which the worker doesn't count against the timeout."""
    monkeypatch.setattr(handle, "RESULT_MARGIN_SECONDS", 0.05)
    monkeypatch.setattr(handle, "FIRST_COMPILE_SECONDS", 0.4)
    launcher = FakeLauncher()
    m = manager(launcher)
    started = time.monotonic()
    assert (await run(m, "hang", timeout_seconds=0.05)).startswith("timeout: ")
    assert time.monotonic() - started >= 0.05 + 0.05 + 0.4, "the first compile's allowance was not waited"
    assert launcher.spawned[0].returncode is not None
    assert await run(m, "fresh") == "fresh"  # a new worker, without the warm-up: this eval compiled
    monkeypatch.setattr(handle, "FIRST_COMPILE_SECONDS", 600.0)
    # Without the allowance the host gives up after 0.1 s; with it, only after 600 s.
    assert (await asyncio.wait_for(run(m, "hang", timeout_seconds=0.05), 60)).startswith("timeout: ")
    await m.close_all()


async def test_a_check_before_any_eval_may_take_the_first_compiles_allowance(monkeypatch: pytest.MonkeyPatch) -> None:
    """A session's first request may be a check (or a completion): its compile then loads the compiler, which can't
    be interrupted, so the host waits FIRST_COMPILE_SECONDS more for it, as for a first eval."""
    monkeypatch.setattr(handle, "RESULT_MARGIN_SECONDS", 0.05)
    monkeypatch.setattr(handle, "FIRST_COMPILE_SECONDS", 30.0)
    m = manager(FakeLauncher(), default_timeout_seconds=0.05)
    analysis = await m.check_snippet(SessionTarget("/p", session_id="s"), code="compiling 0.3")
    assert isinstance(analysis.result, CheckResult), analysis.result
    await m.close_all()


async def test_a_worker_gone_silent_after_a_heap_warning_is_reported_as_likely_out_of_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A JVM stuck collecting garbage never answers; the reply says the heap was the likely cause, not just 'timeout'."""
    monkeypatch.setattr(handle, "RESULT_MARGIN_SECONDS", 0.05)
    m = manager(FakeLauncher())
    assert await run(m, "heap fine") == "fine"
    silent = await run(m, "hang", timeout_seconds=0.05)
    assert silent.startswith("timeout: ") and "heap was nearly full" in silent and "91% full" in silent, silent
    await m.close_all()


async def test_a_worker_that_exits_mid_snippet_is_reported_and_replaced() -> None:
    launcher = FakeLauncher()
    m = manager(launcher)
    assert "exited with code 3" in await run(m, "exit 3")
    assert await run(m, "again") == "again"
    assert len(launcher.spawned) == 2 and len(launcher.live()) == 1
    await m.close_all()


async def test_a_snippets_system_exit_is_named_even_when_a_signal_ends_the_worker() -> None:
    """The worker's exiting frame, not a line in its log, tells the host why its process ended: a System.exit
    whose code a signal lost still reads as the snippet's System.exit."""
    m = manager(FakeLauncher())
    said = await run(m, "system-exit")
    assert said.startswith("exited: The snippet called System.exit") and "signal SIGABRT" in said, said
    assert await run(m, "again") == "again"
    await m.close_all()


async def test_a_describe_answered_with_a_snippets_result_is_a_broken_protocol() -> None:
    """Each request has its own kinds of answer; another kind is never passed on as if it were one."""
    launcher = FakeLauncher()
    m = manager(launcher)
    await run(m, "1")
    launcher.spawned[0].describe_as_snippet = True
    with pytest.raises(GradleReplError, match="answered a describe request with a success result"):
        await m.describe("s")
    await m.close_all()


async def test_cancelling_during_a_jvm_start_leaves_no_worker() -> None:
    """The launch is cut short and its process stopped: nothing unlisted keeps running."""
    launcher = FakeLauncher(start_delay=0.5)
    m = manager(launcher)
    await cancel_when(m, "starting", run(m, "1"))
    assert launcher.spawned and launcher.live() == []
    assert m.list() == []
    await m.close_all()


async def test_closing_a_session_while_its_jvm_starts_stops_that_jvm() -> None:
    launcher = FakeLauncher(start_delay=0.3)
    m = manager(launcher)
    call = asyncio.ensure_future(run(m, "1"))
    await until_state(m, "starting")
    assert await m.close("s")
    with pytest.raises(GradleReplError, match="closed while its JVM started"):
        await call
    assert launcher.live() == [] and m.list() == []
    await m.close_all()


async def test_closing_a_session_mid_snippet_ends_the_call_with_a_clear_reply() -> None:
    launcher = FakeLauncher()
    m = manager(launcher)
    call = asyncio.ensure_future(run(m, "sleep 5:A"))
    await until_state(m, "running")
    assert await m.close("s")
    assert "was closed while this snippet ran" in await call
    assert launcher.live() == []
    await m.close_all()


async def test_sessions_starting_at_once_never_exceed_the_cap() -> None:
    """Two starts race for the last slot: one gets it, the other is told why not; never two JVMs."""
    launcher = FakeLauncher(start_delay=0.2)
    m = manager(launcher, max_sessions=1)
    results = await asyncio.gather(run(m, "a", "one"), run(m, "b", "two"), return_exceptions=True)
    errors = [r for r in results if isinstance(r, GradleReplError)]
    assert len(errors) == 1 and "sessions are busy" in str(errors[0]), results
    assert len(launcher.spawned) == 1
    await m.close_all()


async def test_the_least_recently_used_idle_session_makes_room_and_is_told() -> None:
    launcher = FakeLauncher()
    m = manager(launcher, max_sessions=1)
    await run(m, "a", "old")
    await run(m, "b", "new")
    assert [s.session_id for s in m.list()] == ["new"] and len(launcher.live()) == 1
    reply = await m.run_snippet(SessionTarget("/p", session_id="old"), code="c")
    assert any(n.kind == "evicted" and "'old' was closed to make room" in n.text for n in reply.notices)
    await m.close_all()


async def test_an_idle_session_is_closed_at_the_idle_timeout_and_its_next_call_is_told() -> None:
    """The eviction poll closes a session idle past the timeout (it is no longer listed, its worker is gone); the
    session's next call starts a fresh worker and says why the state is gone."""
    launcher = FakeLauncher()
    m = manager(launcher, idle_timeout_seconds=0.05, eviction_poll_seconds=0.01)
    m.start_eviction()
    await run(m, "1")
    with anyio.fail_after(5):  # the idle timeout plus a poll, observed through the listing and the workers
        while m.list() or launcher.live():
            await asyncio.sleep(0.005)
    reply = await m.run_snippet(SessionTarget("/p", session_id="s"), code="2")
    assert any(
        n.kind == "evicted"
        and n.text.startswith("[session 's' was closed after")
        and "idle (--idle-timeout 0.05)" in n.text
        for n in reply.notices
    ), reply.notices
    await m.close_all()


async def test_an_evicted_attached_session_leaves_nothing_behind() -> None:
    """Idle eviction ends an attached session whole: it is no longer attached (nor listed, nor described), and the
    session's next call naming a project runs that project's environment, not the JVM it was attached to."""
    launcher = FakeLauncher()
    m = manager(launcher, idle_timeout_seconds=0.05, eviction_poll_seconds=0.01)
    await m.attach("s", fake_resolver("/app").environment, Attached(pid=4242))
    assert m.attached_pid("s") == 4242 and [s.attached_pid for s in m.list()] == [4242]
    m.start_eviction()
    with anyio.fail_after(5):  # the idle timeout plus a poll, observed through the listing and the workers
        while m.list() or launcher.live():
            await asyncio.sleep(0.005)
    assert m.attached_pid("s") is None and m.attached_environment("s") is None
    with pytest.raises(GradleReplError, match="there is no session 's'"):
        await m.describe("s")
    reply = await m.run_snippet(SessionTarget("/p", session_id="s"), code="2")
    assert any(n.kind == "evicted" for n in reply.notices), reply.notices
    assert [(s.project_root, s.attached_pid) for s in m.list()] == [("/p", None)]
    await m.close_all()


async def test_a_closed_attached_session_is_detached() -> None:
    """close detaches: the session id names no attached JVM afterwards, and a new session of that id is its project's."""
    m = manager(FakeLauncher())
    await m.attach("s", fake_resolver("/app").environment, Attached(pid=4242))
    assert await m.close("s")
    assert m.attached_pid("s") is None and m.list() == []
    await run(m, "1")
    assert [(s.project_root, s.attached_pid) for s in m.list()] == [("/p", None)]
    await m.close_all()


async def test_a_new_session_takes_the_warmed_spare() -> None:
    launcher = FakeLauncher()
    m = manager(launcher, spare_worker=True)
    await run(m, "1", "first")
    await wait_until(lambda: len(launcher.spawned) == 2, "a spare started after the first call")
    spare = launcher.spawned[1]
    await run(m, "2", "second")
    second = next(s for s in m.list() if s.session_id == "second")
    assert second.worker_pid == spare.pid
    await m.close_all()
    assert launcher.live() == []


async def test_the_spare_starts_once_the_call_that_started_a_session_is_answered() -> None:
    """The call's snippet is its worker's first compile, which loads the compiler (no warm-up in a worker a call waits
    for): a spare's JVM starting beside it on the same cores would make that answer later."""
    launcher = FakeLauncher()
    m = manager(launcher, spare_worker=True)
    call = asyncio.ensure_future(run(m, "sleep 0.3:done", "first"))
    await until_state(m, "running", "first")
    assert len(launcher.spawned) == 1, "no spare while the first call runs"
    assert await call == "done"
    await wait_until(lambda: len(launcher.spawned) == 2, "a spare started after the first call")
    await m.close_all()


async def test_a_worker_a_call_waits_for_skips_the_warm_up_and_one_opened_ahead_or_spare_keeps_it() -> None:
    """A call's snippet is its new worker's first compile (no warm-up before it); a session opened before any snippet
    (the terminal REPL's) and the spare warm up while nobody waits."""
    launcher = FakeLauncher()
    m = manager(launcher, spare_worker=True)
    assert await run(m, "1", "called") == "1"
    await wait_until(lambda: len(launcher.spawned) == 2, "the spare")
    assert [t.warm_up for t in launcher.spawned] == [False, True]
    await m.close_all()
    opened = FakeLauncher()
    m = manager(opened)
    await m.open_session(SessionTarget("/p", session_id="opened"))
    assert [t.warm_up for t in opened.spawned] == [True]
    await m.close_all()


async def test_close_all_during_a_sessions_first_call_starts_no_spare() -> None:
    """The spare a session's start leaves due starts when its call ends; a call that close_all ended starts none."""
    launcher = FakeLauncher()
    m = manager(launcher, spare_worker=True)
    call = asyncio.ensure_future(run(m, "sleep 5:late", "first"))
    await until_state(m, "running", "first")
    await m.close_all()
    await asyncio.gather(call, return_exceptions=True)
    for _ in range(10):  # a spare's launch would have spawned within the loop's next steps (FakeLauncher.spawn)
        await asyncio.sleep(0)
    assert len(launcher.spawned) == 1 and launcher.live() == []


async def test_a_changed_environment_restarts_the_session_and_says_so() -> None:
    launcher = FakeLauncher()
    m = manager(launcher)
    await run(m, "1")
    reply = await m.run_snippet(SessionTarget("/other", session_id="s"), code="2")
    assert any(n.kind == "restarted" and "restarted" in n.text for n in reply.notices)
    assert len(launcher.live()) == 1
    await m.close_all()


async def test_a_restart_for_a_changed_build_adds_the_reported_libraries_again() -> None:
    """The libraries the old worker reported it added (not a reading of the snippets' text) are added again in the
    new worker, as one snippet before the user's, and the reply says so."""
    launcher = FakeLauncher()
    m = manager(launcher)
    await run(m, "libraries added")
    reply = await m.run_snippet(SessionTarget("/other", session_id="s"), code="2")
    assert launcher.spawned[1].requests_seen == ['@file:DependsOn("org.example:lib:1.0")\nUnit', "2"]
    assert (
        Notice(kind="libraries", text='[added again after the restart: @file:DependsOn("org.example:lib:1.0")]')
        in reply.notices
    ), reply.notices
    await m.close_all()


async def test_checks_and_completions_use_the_live_worker_even_after_the_build_changed() -> None:
    """An edited source (here: every resolve sees a new build) restarts a session on its next run, never on a check or
    a completion: they answer from the live worker, its state kept, and don't resolve. Only a session without a live
    worker is started for them."""
    builds = itertools.count()
    resolves: list[str] = []

    def edited(project_root: str, **_: object) -> FakeResolved:
        resolves.append(project_root)
        environment = fake_resolver(project_root).environment
        return FakeResolved(environment.model_copy(update={"classpath": [f"/classes-{next(builds)}"]}))

    launcher = FakeLauncher()
    m = SessionManager(limits=SessionLimits(spare_worker=False), launcher=launcher, resolver=edited)
    first = await m.complete_snippet(SessionTarget("/p", session_id="s"), code="x")  # no worker yet: started
    assert isinstance(first.result, CompletionResult) and len(launcher.spawned) == 1 and len(resolves) == 1
    assert await run(m, "kept") == "kept"  # the build changed since: restarted, as a run is
    assert len(launcher.spawned) == 2
    worker = launcher.spawned[1]
    checked = await m.check_snippet(
        SessionTarget("/p", source_set="test", build_tool="gradle", session_id="s"), code="kept"
    )
    completed = await m.complete_snippet(SessionTarget("/other", project_path=":app", session_id="s"), code="ke")
    assert isinstance(checked.result, CheckResult) and checked.result.compiled and checked.notices == ()
    assert isinstance(completed.result, CompletionResult) and [i.text for i in completed.result.items] == ["kept"]
    assert completed.notices == () and worker.checks_seen == ["kept"]
    assert len(launcher.spawned) == 2 and launcher.live() == [worker] and len(resolves) == 2
    assert [s.worker_pid for s in m.list()] == [worker.pid]
    await m.close_all()


async def test_a_cancelled_check_is_read_to_its_end_and_the_session_keeps_its_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The worker compiles a check on its main loop, where no cancel is read: a cancel neither cuts its deadline nor
    costs the worker; the next call waits for the compile and is answered by the same worker."""
    monkeypatch.setattr(handle, "CANCEL_ANSWER_SECONDS", 0.01)
    launcher = FakeLauncher()
    m = manager(launcher)
    assert await run(m, "before") == "before"
    check = asyncio.ensure_future(m.check_snippet(SessionTarget("/p", session_id="s"), code="compiling 0.3"))
    await until_state(m, "running")
    check.cancel()
    with pytest.raises(asyncio.CancelledError):
        await check
    assert await run(m, "after") == "after"
    assert len(launcher.spawned) == 1 and launcher.live() == launcher.spawned
    assert launcher.spawned[0].checks_seen == ["compiling 0.3"]
    await m.close_all()


async def test_output_reaches_the_listener_while_the_snippet_runs() -> None:
    m = manager(FakeLauncher())
    seen: list[str] = []
    reply = await m.run_snippet(
        SessionTarget("/p", session_id="s"), code="print hello:V", on_frame=lambda f: seen.append(f.data)
    )
    assert seen == ["hello\n"] and reply.frames[0].data == "hello\n"
    await m.close_all()


async def test_twenty_interleavings_of_cancel_timeout_close_and_reset_keep_every_answer_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Random cancel/timeout/close/reset mixed with calls on three sessions: each answer is its own call's,
    the listing matches the live workers, and nothing is left after close_all."""
    monkeypatch.setattr(handle, "CANCEL_ANSWER_SECONDS", 0.1)
    monkeypatch.setattr(handle, "RESULT_MARGIN_SECONDS", 0.05)
    monkeypatch.setattr(handle, "FIRST_COMPILE_SECONDS", 0.05)  # a timeout may be a fresh worker's first eval
    launcher = FakeLauncher(start_delay=0.01)
    m = manager(launcher, max_sessions=3)
    rng = random.Random(11)
    for step in range(20):
        session = f"s{rng.randrange(3)}"
        action = rng.choice(["cancel", "cancel-hang", "timeout", "close", "reset", "call"])
        if action == "cancel":
            await cancel_when(m, "running", run(m, "sleep 5:X", session), session)
        elif action == "cancel-hang":
            await cancel_when(m, "running", run(m, "hang", session), session)
        elif action == "timeout":
            assert (await run(m, "hang", session, timeout_seconds=0.02)).startswith("timeout")
        elif action == "close":
            await m.close(session)
        elif action == "reset":
            await m.reset(session)
        answers = await asyncio.gather(*(run(m, f"answer-{step}-{k}", f"s{k}") for k in range(3)))
        assert answers == [f"answer-{step}-{k}" for k in range(3)], (step, action, answers)
        listed = {s.worker_pid for s in m.list()}
        assert listed == {t.pid for t in launcher.live()}, (step, action)
    await m.close_all()
    assert launcher.live() == []


async def test_auto_on_a_session_keeps_the_build_tool_it_runs_on() -> None:
    """A call leaving out buildTool on a Maven-resolved session resolves with Maven, not whatever auto picks."""
    asked: list[str] = []

    def resolver(project_root: str, *, build_tool: str, **_: object) -> FakeResolved:
        asked.append(build_tool)
        return fake_resolver(project_root)

    m = SessionManager(limits=SessionLimits(spare_worker=False), launcher=FakeLauncher(), resolver=resolver)
    assert await run(m, "first", build_tool="maven") == "first"
    assert await run(m, "second") == "second"
    assert await run(m, "other", session="fresh") == "other"
    assert asked == ["maven", "maven", "auto"]
    await m.close_all()


async def test_the_environments_warnings_reach_the_first_reply_of_each_jvm() -> None:
    """What the build's environment can't give snippets (e.g. plugins a REPL can't apply) is said where an agent
    reads it: once when a session's JVM starts, not on every call."""

    def warning_resolver(project_root: str, **_: object) -> FakeResolved:
        environment = fake_resolver(project_root).environment
        return FakeResolved(environment.model_copy(update={"warnings": ["plugin x does not apply to snippet classes"]}))

    m = SessionManager(limits=SessionLimits(spare_worker=False), launcher=FakeLauncher(), resolver=warning_resolver)
    first = await m.run_snippet(SessionTarget("/p", session_id="s"), code="A")
    assert first.notices == (Notice(kind="environment", text="[plugin x does not apply to snippet classes]"),)
    again = await m.run_snippet(SessionTarget("/p", session_id="s"), code="B")
    assert again.notices == ()
    await m.close_all()


async def test_a_build_tool_that_could_not_run_is_said_on_the_call_it_happened() -> None:
    """The resolver's notices (buildTool=auto fell back to the other build tool) reach that call's reply as build_tool
    notices, read from the resolved result's own field."""
    skipped = "[gradle can't run here (no Gradle 7.6+); used maven instead]"

    def falling_back(project_root: str, **_: object) -> FakeResolved:
        return FakeResolved(fake_resolver(project_root).environment, notices=(skipped,))

    m = SessionManager(limits=SessionLimits(spare_worker=False), launcher=FakeLauncher(), resolver=falling_back)
    reply = await m.run_snippet(SessionTarget("/p", session_id="s"), code="A")
    assert reply.notices == (Notice(kind="build_tool", text=skipped),)
    await m.close_all()


async def test_describe_waits_for_the_running_snippet_and_names_sessions_it_cannot_describe() -> None:
    m = manager(FakeLauncher())
    running = asyncio.ensure_future(run(m, "sleep 0.3:late"))
    await until_state(m, "running")
    described = await m.describe("s")  # answered after the snippet, so it is in the description
    assert [d.name for d in described.declarations] == ["sleep 0.3:late"]
    assert await running == "late"
    assert [s.declarations for s in m.list()] == [1]
    with pytest.raises(GradleReplError, match="no session 'other'"):
        await m.describe("other")
    await m.reset("s")
    with pytest.raises(GradleReplError, match="has no running JVM"):
        await m.describe("s")
    await m.close_all()


def test_the_settings_are_the_managers_limits_and_every_workers_options() -> None:
    """A manager built from settings takes its limits and its workers' options from them, field by field; every
    worker option has a setting, so none falls back to a default written elsewhere."""
    settings = Settings(
        snippet_timeout_seconds=7,
        heap_mb=512,
        output_limit_bytes=5_000,
        frame_limit_bytes=2_000,
        class_data_sharing=False,
        full_jit=True,
        max_sessions=2,
        idle_timeout_seconds=9,
        eviction_poll_seconds=0.5,
        spare_worker=False,
        train_class_data=False,
    )
    m = SessionManager.from_settings(settings, resolver=fake_resolver, launcher=FakeLauncher())
    assert m.limits == SessionLimits(
        idle_timeout_seconds=9,
        max_sessions=2,
        default_timeout_seconds=7,
        spare_worker=False,
        train_class_data=False,
        eviction_poll_seconds=0.5,
    )
    assert m.worker_options == WorkerOptions(
        heap_mb=512, output_limit_bytes=5_000, frame_limit_bytes=2_000, class_data_sharing=False, full_jit=True
    )
    assert set(WorkerOptions.model_fields) <= set(Settings.model_fields)
    assert SessionLimits() == SessionLimits.from_settings(DEFAULTS)


async def test_a_restart_for_new_session_options_adds_the_reported_libraries_again() -> None:
    """Libraries are the session's as its options are: new options restart the JVM, and what the old one added is
    added again in the new one before the user's snippet, saying so."""
    launcher = FakeLauncher()
    m = manager(launcher)
    await run(m, "libraries added")
    reply = await m.run_snippet(
        SessionTarget("/p", session_id="s"), code="2", options=SessionOptions(env={"MODE": "b"})
    )
    assert launcher.spawned[1].requests_seen == ['@file:DependsOn("org.example:lib:1.0")\nUnit', "2"]
    assert [n.kind for n in reply.notices] == ["options", "libraries"], reply.notices
    await m.close_all()


async def test_an_initial_heap_above_the_sessions_cap_is_refused_before_anything_starts() -> None:
    launcher = FakeLauncher()
    m = manager(launcher)
    with pytest.raises(
        GradleReplError, match=r"'-Xms64g' asks for an initial heap of 65536 MB, above the session's heap cap"
    ):
        await m.run_snippet(
            SessionTarget("/p", session_id="s"), code="1", options=SessionOptions(jvm_args=("-Xms64g",))
        )
    assert launcher.spawned == [] and m.list() == []
    await m.close_all()


async def test_session_options_apply_from_the_first_call_and_a_change_restarts_the_session_saying_so() -> None:
    """Options go to the session's worker; a later call without options, or with the same ones, keeps the worker; other
    options restart it with a notice of kind options; the spare never serves a session with options."""
    launcher = FakeLauncher()
    m = manager(launcher, spare_worker=True)
    await run(m, "1", "plain")  # a plain session starts, and a spare after its call
    await wait_until(lambda: len(launcher.spawned) == 2, "a spare started after the first call")
    chosen = SessionOptions(env={"MODE": "a"}, opt_in=("kotlin.ExperimentalUnsignedTypes",))
    first = await m.run_snippet(SessionTarget("/p", session_id="s"), code="1", options=chosen)
    assert len(launcher.spawned) == 3 and launcher.spawned[1].returncode is None, "the spare is not taken"
    assert m.session_options("s") == chosen
    kept = await m.run_snippet(SessionTarget("/p", session_id="s"), code="2")
    same = await m.run_snippet(SessionTarget("/p", session_id="s"), code="3", options=chosen)
    assert len(launcher.spawned) == 3 and kept.notices == () and same.notices == ()
    changed = await m.run_snippet(
        SessionTarget("/p", session_id="s"), code="4", options=SessionOptions(env={"MODE": "b"})
    )
    assert len(launcher.spawned) == 4 and m.session_options("s") == SessionOptions(env={"MODE": "b"})
    (notice,) = changed.notices
    assert (
        notice.kind == "options" and "restarted with new session options (envSource inherit; env MODE=b)" in notice.text
    )
    assert first.notices == ()
    await m.close_all()


async def test_jars_a_first_build_hands_over_start_one_preparing_worker_which_exit_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The manager hands its resolver the preparation's callback: jars handed over for a Kotlin whose facade is not
    compiled start one preparing worker, however many builds hand them over; it is stopped with the rest at exit."""
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(tmp_path))  # no facade compiled for any Kotlin version

    def first_build(project_root: str, *, on_repl_jars: ReplJarsReady | None = None, **_: object) -> FakeResolved:
        environment = fake_resolver(project_root).environment
        assert on_repl_jars is not None, "the manager hands its resolver no on_repl_jars"
        on_repl_jars(environment)  # twice, as two first builds on one Kotlin would
        on_repl_jars(environment)
        return FakeResolved(environment)

    launcher = FakeLauncher()
    m = SessionManager(limits=SessionLimits(spare_worker=False), launcher=launcher, resolver=first_build)
    progress: list[str] = []
    reply = await m.run_snippet(SessionTarget("/p", session_id="s"), code="1", progress=progress.append)
    assert reply.result.type == "success"
    await wait_until(lambda: len(launcher.spawned) == 2, "the preparing worker to be spawned", seconds=10)
    assert sorted(t.role for t in launcher.spawned) == ["prepare", "session"]
    told = (
        f"compiling the jvm-worker facade for Kotlin {fake_resolver('/p').environment.kotlin_version} beside the "
        "build, in a JVM of its own (first run; cached from now on)"
    )
    assert [line for line in progress if "beside the build" in line] == [told, told]
    assert all(t.returncode is None for t in launcher.spawned), "a fake preparing worker never exits on its own"
    await m.close_all()
    assert launcher.live() == [], "exit stops the preparing worker too"


async def test_jars_handed_over_with_the_facade_compiled_or_after_exit_start_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(tmp_path))
    launcher = FakeLauncher()
    workers = SpawnedWorkers(launcher, WorkerOptions())
    preparation = WorkerPreparation(workers)
    progress: list[str] = []
    handed_over = preparation.beside_build(progress.append)
    compiled = fake_resolver("/p").environment
    facade = facade_jar_path(compiled.kotlin_version)
    facade.parent.mkdir(parents=True)
    facade.write_bytes(b"compiled")
    class_phases_addon_path(compiled.kotlin_version).write_bytes(b"compiled")
    # The facade and the class phases are all a session of it would compile, and they are there: no worker, no word.
    handed_over(compiled.model_copy(update={"dependency_resolver_classpath": [], "compiler_plugin_classpath": []}))
    assert progress == []
    preparation.cancel()  # the server exits; a build that ends later still hands its jars over
    handed_over(compiled.model_copy(update={"kotlin_version": "9.9.9"}))
    await asyncio.sleep(0)  # one turn: what the callbacks scheduled runs before this resumes
    await asyncio.wait_for(preparation.wait("9.9.9"), 10)
    assert launcher.spawned == []
