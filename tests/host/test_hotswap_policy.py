"""Keep or restart after a rebuild, and replay, decided by the host (host/hotswap.py, host/replay.py): pure decisions
and the real manager against fake workers (tests/support/fakeworker.py), in milliseconds. test_hotswap.py proves the same
on real builds and JVMs."""

from __future__ import annotations

import pytest

from gradle_repl.host.hotswap import restart_reason
from gradle_repl.host.manager import Resolver, SessionLimits, SessionManager
from gradle_repl.target import SessionTarget
from support.fakeworker import FakeLauncher, FakeResolved, fake_resolver

pytestmark = pytest.mark.anyio


BASE = fake_resolver("/p").environment


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"sources_stamp": 5.0}, None),
        ({"sources_stamp": 5.0, "build_inputs_hash": "other"}, None),
        ({"classpath": ["/other.jar"]}, "the classpath changed"),
        ({"java_home": "/other-jdk"}, "the JDK changed"),
        ({"compiler_plugin_options": ["plugin:x:y=z"]}, "the compiler plugins' options changed"),
        ({"kotlin_version": "2.2.21"}, "the Kotlin version changed"),
        ({"repositories": ["https://repo.example"]}, "the build's environment changed"),
    ],
)
def test_only_a_rebuild_of_the_same_environment_is_tried_in_place(
    change: dict[str, object], reason: str | None
) -> None:
    """A rebuild's stamps alone (sources compiled again, build files edited without effect) leave the JVM's world as
    it was: try in place; a JDK, Kotlin, classpath, plugin or option change needs a new JVM, named in the notice."""
    assert restart_reason(BASE, BASE.model_copy(update=change)) == reason


def _rebuilt() -> tuple[list[int], Resolver]:
    builds = [0]

    def resolver(project_root: str, **_: object) -> FakeResolved:
        return FakeResolved(
            fake_resolver(project_root).environment.model_copy(update={"sources_stamp": float(builds[0])})
        )

    return builds, resolver


def _manager(launcher: FakeLauncher, resolver: Resolver) -> SessionManager:
    return SessionManager(limits=SessionLimits(spare_worker=False), launcher=launcher, resolver=resolver)


async def test_a_rebuild_of_only_classes_keeps_the_worker_and_says_what_was_updated() -> None:
    """The same worker serves the next snippet, its earlier snippets still counted, and the reply names the classes."""
    builds, resolver = _rebuilt()
    launcher = FakeLauncher()
    m = _manager(launcher, resolver)
    await m.run_snippet(SessionTarget("/p", session_id="s"), code="val a = 1")
    builds[0] += 1
    reply = await m.run_snippet(SessionTarget("/p", session_id="s"), code="a")
    assert len(launcher.spawned) == 1 and launcher.spawned[0].updates_seen == 1
    assert [n.kind for n in reply.notices] == ["updated"], reply.notices
    assert "updated in place: sample.Changed" in reply.notices[0].text and m.list()[0].snippets_run == 2
    await m.run_snippet(SessionTarget("/p", session_id="s"), code="again")
    assert launcher.spawned[0].updates_seen == 1, "an unchanged build asks nothing"
    await m.close_all()


async def test_a_refused_update_restarts_with_the_reason_and_the_names_that_were_lost() -> None:
    """The worker's refusal (the JVM can't add a method) is the restart's reason, and what the old JVM held is named."""
    builds, resolver = _rebuilt()
    launcher = FakeLauncher()
    m = _manager(launcher, resolver)
    await m.run_snippet(SessionTarget("/p", session_id="s"), code="first")
    launcher.spawned[0].update_refusal = "sample.Foo: a method was added: bar()V"
    builds[0] += 1
    reply = await m.run_snippet(SessionTarget("/p", session_id="s"), code="second")
    assert len(launcher.spawned) == 2
    text = next(n.text for n in reply.notices if n.kind == "restarted")
    assert "(sample.Foo: a method was added: bar()V)" in text and "lost: val first" in text, text


async def test_replay_on_restart_runs_the_successful_snippets_in_order_and_stops_at_the_first_failure() -> None:
    """Failed snippets are not part of the history; the replay stops at the first snippet that fails again and says
    how many ran; a later reset with replay runs what the session holds now."""
    builds, resolver = _rebuilt()
    launcher = FakeLauncher()
    m = _manager(launcher, resolver)
    for code in ("one", "fail not kept", "two"):
        await m.run_snippet(SessionTarget("/p", session_id="s"), code=code, replay="on_restart")
    launcher.spawned[0].update_refusal = "sample.Foo was deleted"
    builds[0] += 1
    reply = await m.run_snippet(SessionTarget("/p", session_id="s"), code="three")
    assert launcher.spawned[1].requests_seen[-3:] == ["one", "two", "three"]
    assert [n.text for n in reply.notices if n.kind == "replayed"] == ["[replayed 2 of 2 earlier snippet(s)]"]
    await m.run_snippet(SessionTarget("/p", session_id="s"), code="fail boom")
    await m.run_snippet(SessionTarget("/p", session_id="s"), code="four")
    notices = await m.reset_and_replay("s")
    assert launcher.spawned[2].requests_seen[-4:] == ["one", "two", "three", "four"]
    assert [n.text for n in notices if n.kind == "replayed"] == ["[replayed 4 of 4 earlier snippet(s)]"]
    await m.close_all()


async def test_a_replay_stops_at_a_snippet_that_fails_this_time() -> None:
    """A snippet that succeeded before and fails in the new JVM ends the replay there; later ones don't run."""
    launcher = FakeLauncher()
    m = _manager(launcher, fake_resolver)
    for code in ("one", "flaky", "two"):
        await m.run_snippet(SessionTarget("/p", session_id="s"), code=code)
    launcher.failing = {"flaky"}
    notices = await m.reset_and_replay("s")
    text = next(n.text for n in notices if n.kind == "replayed")
    assert (
        text
        == "[replayed 1 of 3 earlier snippet(s); snippet 2 failed and the replay stopped there: flaky failed this time]"
    )
    await m.close_all()


async def test_a_plain_reset_forgets_the_history() -> None:
    """reset without replay is a fresh start the user asked for: nothing is left to replay."""
    launcher = FakeLauncher()
    m = _manager(launcher, fake_resolver)
    await m.run_snippet(SessionTarget("/p", session_id="s"), code="one")
    assert await m.reset("s")
    await m.run_snippet(SessionTarget("/p", session_id="s"), code="two")
    await m.reset_and_replay("s")
    assert launcher.spawned[-1].requests_seen[-1:] == ["two"] and "one" not in launcher.spawned[-1].requests_seen
    await m.close_all()


async def test_a_session_whose_jvm_ended_is_started_again_and_replayed() -> None:
    """After the JVM ended under a snippet (System.exit, a crash), restart and run all brings back what ran before."""
    launcher = FakeLauncher()
    m = _manager(launcher, fake_resolver)
    await m.run_snippet(SessionTarget("/p", session_id="s"), code="one")
    ended = await m.run_snippet(SessionTarget("/p", session_id="s"), code="exit 1")
    assert ended.state_lost
    notices = await m.reset_and_replay("s")
    assert [n.text for n in notices if n.kind == "replayed"] == ["[replayed 1 of 1 earlier snippet(s)]"]
    assert launcher.spawned[-1].requests_seen == ["one"]
    await m.close_all()
