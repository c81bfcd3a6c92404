"""A compiled snippet run in the attached app: its classes sent to the agent, what it prints and shows forwarded as it
comes, and its one answer waited for, with a cancel sent at the deadline or on the client's word."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Literal

from gradle_repl.frames import DisplayFrame
from gradle_repl.worker.deadlines import INTERRUPT_GRACE_SECONDS, REPLY_SECONDS
from gradle_repl.worker.link.agent_wire import (
    AgentAnswer,
    AgentConnection,
    AgentCut,
    AgentDisplay,
    AgentOutput,
    AgentReply,
)
from gradle_repl.worker.results.output_frames import Send, SnippetOutput
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.runner import POLL_INTERVAL_MS

__all__ = ["POLL_SECONDS", "Ran", "run_in_app", "shown", "snippet_classes"]

# After a cancel, how long the agent may take to say how the snippet ended: its grace, and a margin that ends before
# the host gives up on this worker (deadlines.STOPPED_ANSWER_SECONDS).
_CANCEL_ANSWER_SECONDS = INTERRUPT_GRACE_SECONDS + REPLY_SECONDS - 1.0
POLL_SECONDS = POLL_INTERVAL_MS / 1000


@dataclass(frozen=True)
class Ran:
    reply: AgentAnswer | None  # None: the agent said nothing, even after the cancel
    stopped: bool  # a cancel was sent (the client's, or the timeout's)
    dropped: int  # bytes of output the agent's output limit cut (what the frame limit cut, `output` counts)


def snippet_classes(script: Any) -> dict[str, bytes]:
    """The compiled snippet's classes by binary name, from the REPL's in-memory module (the module of this snippet
    alone: earlier snippets' classes are already in the target)."""
    files = script.getCompiledModule().getCompilerOutputFiles()
    classes: dict[str, bytes] = {}
    for entry in files.entrySet():
        path = jstr(entry.getKey())
        if path.endswith(".class"):
            classes[path.removesuffix(".class").replace("/", ".")] = bytes(entry.getValue())
    return classes


def run_in_app(
    connection: AgentConnection,
    request_id: int,
    script: Any,
    *,
    output_limit: int,
    deadline: float,
    cancel: threading.Event | None = None,
    output: SnippetOutput | None = None,
    send: Send | None = None,
    shared: dict[str, bytes] | None = None,
) -> Ran:
    """Sends the compiled snippet to the agent and waits for its one answer, forwarding what it prints and shows as
    it comes (frames fitted by `output`; without it, as during warm-up, they are dropped); at the deadline or on a
    cancel, asks the agent to stop it and waits for its word on that. `shared`: class files the snippet's loader
    defines besides its own (the first snippet's: the REPL's state object)."""
    result_field = script.getResultField()
    connection.evaluate(
        request_id,
        output_limit=output_limit,
        class_name=jstr(script.getScriptClassFQName()),
        result_field=jstr(result_field.getFirst()) if result_field is not None else None,
        # Kotlin 2.3+ records the value's declared type; the agent boxes a value class's value by it (2.2: by the mangled body).
        result_type=jstr(result_field.getSecond().getTypeName()) if result_field is not None else None,
        classes={**snippet_classes(script), **(shared or {})},
    )
    stopped_at: float | None = None
    dropped = 0
    printed = _Printed(output, send)
    while True:
        if not connection.buffered():
            printed.flush()  # before waiting: what arrived is sent as it arrived
        message = connection.receive(POLL_SECONDS)
        now = time.monotonic()
        # Checked whatever came: a snippet that prints all the time must still meet its deadline.
        if stopped_at is None and ((cancel is not None and cancel.is_set()) or now > deadline):
            connection.cancel(request_id, grace_seconds=INTERRUPT_GRACE_SECONDS)
            stopped_at = now
        elif stopped_at is not None and now - stopped_at > _CANCEL_ANSWER_SECONDS:
            return Ran(None, True, dropped)
        if not isinstance(message, AgentReply) or message.id != request_id:
            continue  # nothing yet, a describe's values, or the late answer of a snippet given up on earlier
        if isinstance(message, AgentOutput):
            printed.add(message)
            continue
        printed.flush()
        if isinstance(message, AgentCut):
            dropped += message.dropped
        elif isinstance(message, AgentDisplay):
            if output is not None and send is not None:
                send(shown(output, message))
        else:
            return Ran(message, stopped_at is not None, dropped)


class _Printed:
    """Chunks of one stream that arrived back to back, sent together once no more are waiting or a frame's worth has
    gathered: the agent sends a chunk per line, and a snippet printing thousands of lines would otherwise cost a frame
    each. SnippetOutput.streams splits the merged text into frames within the limit, so merging never makes a cut."""

    def __init__(self, output: SnippetOutput | None, send: Send | None) -> None:
        self._output = output
        self._send = send
        self._stream: Literal["stdout", "stderr"] = "stdout"
        self._parts: list[str] = []
        self._chars = 0

    def add(self, chunk: AgentOutput) -> None:
        if chunk.stream != self._stream or (self._output is not None and self._chars >= self._output.frame_limit):
            self.flush()
        self._stream = chunk.stream
        self._parts.append(chunk.text)
        self._chars += len(chunk.text)

    def flush(self) -> None:
        if self._parts and self._output is not None and self._send is not None:
            for frame in self._output.streams(self._stream, "".join(self._parts)):
                self._send(frame)
        self._parts = []
        self._chars = 0


def shown(output: SnippetOutput, item: AgentDisplay) -> DisplayFrame:
    """A display item the agent sent, as a frame fitted to the frame limit."""
    return output.item(item.kind, item.mime, item.text, item.data)
