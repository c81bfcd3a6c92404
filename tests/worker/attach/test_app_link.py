"""How an attached session names its app and what it says when the link is lost (worker/attach/app_link.py): by pid
here, or by its agent's address, always one sentence saying what happened and how to go on."""

from __future__ import annotations

from gradle_repl.environment import Attached, AttachedOverTcp
from gradle_repl.worker.attach.app_link import AppLink, capitalized
from gradle_repl.worker.link.agent_wire import AgentGone
from support.sentences import is_a_sentence

OVER_TCP = AttachedOverTcp(address="127.0.0.1:5006", token="t" * 43, run="r1")


def test_the_app_is_named_by_its_pid_or_its_agents_address() -> None:
    assert AppLink(Attached(pid=4242)).name == "the attached JVM (pid 4242)"
    assert AppLink(OVER_TCP).name == "the app at 127.0.0.1:5006"
    assert capitalized(AppLink(OVER_TCP).name) == "The app at 127.0.0.1:5006"


def test_a_lost_tcp_link_says_the_app_runs_on_and_how_to_attach_again_without_the_token() -> None:
    """Nothing here can tell a cut port-forward from an app gone: the sentence says both, and how the session goes on
    (the next call attaches again, or attach_kotlin_session with the address); the token never shows."""
    said = AppLink(OVER_TCP).lost(AgentGone("the connection was closed at the other end"))
    assert is_a_sentence(said), said
    assert said.startswith(
        "The connection to the app at 127.0.0.1:5006 was lost (the connection was closed at the other end): the app, "
        "if it runs, runs on untouched"
    )
    assert "attach_kotlin_session with address 127.0.0.1:5006" in said and OVER_TCP.token not in said
    assert OVER_TCP.token not in repr(OVER_TCP)
