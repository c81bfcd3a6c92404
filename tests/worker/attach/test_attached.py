"""The worker's loop over an attached snippet's messages (worker/attach/run_in_app.py), against a fake agent
connection that plays the agent's messages on cue: what reaches the session as frames, and when a cancel is sent.
The real agent is tested end to end in test_attach.py; these are the orderings a real app can't be made to
produce on demand (output that never pauses, chunks already waiting back to back)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any, cast

from gradle_repl.frames import StreamFrame
from gradle_repl.worker.attach.run_in_app import run_in_app
from gradle_repl.worker.link.agent_wire import (
    AgentConnection,
    AgentCut,
    AgentHello,
    AgentOutput,
    AgentRead,
    AgentReply,
    AgentStopped,
    AgentUnit,
    AgentValues,
)
from gradle_repl.worker.results.output_frames import SnippetOutput

REQUEST = 7


class _Script:
    """A compiled snippet as `run_in_app` reads it: a class name, no result field, no classes."""

    class _Module:
        def getCompilerOutputFiles(self) -> Any:
            return cast(Any, type("Files", (), {"entrySet": lambda self: []}))()

    def getResultField(self) -> None:
        return None

    def getScriptClassFQName(self) -> str:
        return "_3_repl"

    def getCompiledModule(self) -> _Module:
        return self._Module()


class _Agent:
    """Plays `waiting` messages as if they had already arrived (buffered), then `later` ones one per receive, each
    after a pause; `printing` makes it print a line on every receive until it is cancelled, then answer stopped."""

    def __init__(
        self,
        waiting: list[AgentReply],
        later: Sequence[AgentReply | AgentHello | AgentValues],
        *,
        printing: bool = False,
    ) -> None:
        self.waiting = deque(waiting)
        self.later = deque(later)
        self.printing = printing
        self.cancels: list[int] = []
        self.receives = 0

    def evaluate(self, request_id: int, **_: Any) -> None:
        assert request_id == REQUEST

    def cancel(self, request_id: int, *, grace_seconds: float) -> None:
        self.cancels.append(request_id)

    def buffered(self) -> bool:
        return bool(self.waiting)

    def receive(self, timeout: float) -> AgentReply | AgentHello | AgentValues | None:
        self.receives += 1
        if self.printing:
            assert self.receives < 1_000, "no cancel was sent while output kept arriving"
            return AgentStopped(REQUEST, "stopped") if self.cancels else AgentOutput(REQUEST, "stdout", "tick\n")
        if self.waiting:
            return self.waiting.popleft()
        return self.later.popleft() if self.later else None


def _run(agent: _Agent, *, deadline: float) -> tuple[Any, list[Any]]:
    sent: list[Any] = []
    output = SnippetOutput(cast(Any, None), frame_limit=200_000)
    ran = run_in_app(
        cast(AgentConnection, agent),
        REQUEST,
        _Script(),
        output_limit=1_000_000,
        deadline=deadline,
        output=output,
        send=sent.append,
    )
    return ran, sent


def test_output_that_never_pauses_still_meets_the_deadline() -> None:
    """A snippet printing on every poll is asked to stop once its deadline passed; its stop is the answer."""
    agent = _Agent([], [], printing=True)
    ran, sent = _run(agent, deadline=0.0)
    assert agent.cancels == [REQUEST] and ran.stopped and isinstance(ran.reply, AgentStopped)
    assert sent and all(isinstance(frame, StreamFrame) and frame.data.startswith("tick\n") for frame in sent)


def test_chunks_waiting_back_to_back_make_one_frame_per_stream_and_a_pause_ends_one() -> None:
    """Chunks already received one after another go as one frame until the stream changes; one that came after a
    pause is a frame of its own; the limit's cut is counted, the answer ends the run."""
    waiting: list[AgentReply] = [
        AgentOutput(REQUEST, "stdout", "a\n"),
        AgentOutput(REQUEST, "stdout", "b\n"),
        AgentOutput(REQUEST, "stderr", "c\n"),
        AgentOutput(REQUEST, "stderr", "d\n"),
    ]
    later: list[AgentReply] = [AgentOutput(REQUEST, "stderr", "e\n"), AgentCut(REQUEST, 12), AgentUnit(REQUEST)]
    ran, sent = _run(_Agent(waiting, later), deadline=float("inf"))
    assert [(frame.event, frame.data) for frame in sent] == [
        ("stdout", "a\nb\n"),
        ("stderr", "c\nd\n"),
        ("stderr", "e\n"),
    ]
    assert ran.dropped == 12 and isinstance(ran.reply, AgentUnit) and not ran.stopped


def test_chunks_merged_past_the_frame_limit_arrive_whole_in_frames_within_it() -> None:
    """500 KB of lines of 2-byte characters waiting back to back (more bytes than the merge counts characters): split
    into frames of at most the frame limit, each ending with a whole line, nothing cut."""
    lines = [f"{n:09d}{'é' * 495}\n" for n in range(500)]  # 1,000 bytes each
    waiting: list[AgentReply] = [AgentOutput(REQUEST, "stdout", line) for line in lines]
    ran, sent = _run(_Agent(waiting, [AgentUnit(REQUEST)]), deadline=float("inf"))
    assert "".join(frame.data for frame in sent) == "".join(lines) and isinstance(ran.reply, AgentUnit)
    assert len(sent) == 3 and all(len(frame.data.encode()) <= 200_000 and frame.data.endswith("\n") for frame in sent)


def test_a_late_answer_of_an_earlier_snippet_is_dropped() -> None:
    """Messages of another request (a snippet given up on earlier) never reach this snippet's frames or answer."""
    later: list[AgentReply] = [
        AgentOutput(REQUEST - 1, "stdout", "old\n"),
        AgentUnit(REQUEST - 1),
        AgentOutput(REQUEST, "stdout", "new\n"),
        AgentUnit(REQUEST),
    ]
    ran, sent = _run(_Agent([], later), deadline=float("inf"))
    assert [frame.data for frame in sent] == ["new\n"] and isinstance(ran.reply, AgentUnit) and ran.reply.id == REQUEST


def test_a_describes_values_of_the_same_id_are_never_the_snippets_answer() -> None:
    """Only a snippet's own closing message answers it: the values of a describe (or a hello) that arrive while it
    runs, even under its id, are passed over, and the snippet's answer is the one that ends the run."""
    values = AgentValues(REQUEST, [AgentRead("read", "1", 1)])
    later: list[AgentReply | AgentHello | AgentValues] = [
        values,
        AgentHello("gradlerepl.agent.v0", "app", "21", 1),
        AgentUnit(REQUEST),
    ]
    ran, sent = _run(_Agent([], later), deadline=float("inf"))
    assert isinstance(ran.reply, AgentUnit) and sent == []
