"""The worker's side of the attach agent's channel (jvm-worker/runs-in-app/agent: AttachedSession.java, Wire.java).

Every message's fields are the agent's WireTable.java, the one table both sides check each message against as they
write or read it (wire_table.py here); below is what the fields mean.

Frames are an int length and that many bytes; inside, big-endian numbers and strings as an int byte count (-1: null)
and UTF-8. On connecting, the agent says hello: `H` its build (the package of
its classes, named by their content: agent_jar.py), app-loader text, Java version, pid (long), the JVM's run (a random
id, one per run) and its uptime (long, ms by its own clock; -1 unknown). The worker sends
`E` (evaluate): id (long), output limit (int), snippet class, result field (or null), the result's declared Kotlin type
(or null; a value class's value is boxed by it), class count (int), then each class's binary name and bytes (int
length, bytes); `K` (keep a snippet stopped while it compiled: it never runs,
but later snippets may name its classes): id, snippet class, then its classes as in `E`, unanswered; and `C`
(cancel): id, grace (long, ms: how long the interrupted snippet may take to end).

While a snippet runs, the agent sends what its thread prints and shows, in that order (jvm-worker SnippetSink.java):
`O` (printed): id, stream (int: 1 stdout, 2 stderr), text (complete lines, or what waited a moment for its line's
end); `I` (a display item): id, display kind (display_kinds.py), MIME type, text (null for an image), bytes (int
length, -1: none; an image's encoded bytes). Then, once per evaluation: `L` (cut by the output limit, only when
anything was): id, bytes (long); and one closing answer: `V` (a value): id, its text, its runtime class (null for
null), the eval method's generic return type; `M` (a value shown as an image): id, display kind, MIME type, text
(null), bytes, runtime class, return type; `U` (Unit): id; `X` (a throwable): id, cause count, each cause's class,
message and frames (class, method, file, line: int); `S` (stopped or left running after a cancel): id, what happened.

Between snippets the worker may send `D` (describe): id, the longest value text wanted (int, chars), how long one
value may take and all of them (long, ms each), value count (int), then each value's snippet class, field name and
value class (or null: the Kotlin name of the value class the field holds unboxed).
The agent answers `D`: id, value count, then per value its state (int: 0 read, 1 its reading threw, 2 not finished in
time, 3 no such snippet or field), a text (the value's first characters, the throwable's class, or what is missing)
and a number (the value's whole length in chars, or the ms waited).

Before its first snippet, a session attached to an app without Kotlin sends `R` (the Kotlin runtime for snippets): id,
jar count (int), each jar's name and bytes; the agent defines them in a loader of the session's own, unless the app has
Kotlin of its own. It answers `R`: id, state (int: 0 loaded, 1 the app's own Kotlin kept, 2 failed), and why it failed
(or null).

Over TCP, a first look at the app reads its class path: `J`: id, answered `J`: id, then per entry its path in the app,
size (long) and SHA-256 (hex, null: not there); `F` (a piece of an entry): id, entry index (int), offset (long),
length (int), answered `F`: id, the bytes (null: the entry can't be read). Before any message a TCP connection gives
its token in one line (TokenGate.java; WireTable's AUTH_* lines); a Unix socket needs none.

Probes (worker/probes/app_probes.py): the worker sends `B` (a class's bytes as a probe goes into them): id, nested (int:
1 adds the loaded classes nested in those named), class count, each binary name; the agent answers `B`: id, then per
class its name, the version of its bytes (int: it moves each time a probe changes them) and the bytes it runs now (null:
not found). `A` (site ids): id, count; answered `A`: id, the first id reserved. `P` (set probes): id, run (long, the
worker's number for this set), value limit (int, chars), expiry (long, ms; 0 none), then each probe's index, maxHits,
line, last line, has-when, capture count and no-local-names (ints), its sites (id, class, method, its locals' names and
declared Kotlin types, the compiled `when`/`capture` class and its package's door class, both null for none), then the
classes' instrumented bytes (name, the version read, bytes); answered `P`: id, null when set or why not (`changed:NAME`:
another session changed a class meanwhile). `Q` (collect): id, run, close (int: 1 takes the set out first); answered
`Q`: id, the hits since the last `Q` (probe, hit, thread, stack frames, locals as name, type, text, length and error,
`this` as zero or one text, the captured values as text with their runtime class, the `when`'s error, no-local-names),
each probe's hit count and whether it is active, and the notes since the last `Q`.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import secrets
import socket
import struct
from dataclasses import dataclass
from typing import Literal

from gradle_repl.errors import GradleReplError
from gradle_repl.worker.byte_cursor import ByteCursor
from gradle_repl.worker.link.agent_address import AgentAddress
from gradle_repl.worker.link.agent_options import agent_token_env
from gradle_repl.worker.link.wire_table import FieldType, WireCheck, agent_constant
from gradle_repl.worker.results.probe_records import HitRecord, ProbeSetSpec, ProbeText, RunCounts
from gradle_repl.worker.results.report import StackFrame, ThrowableInfo

__all__ = [
    "CONNECT_TIMEOUT_SECONDS",
    "AgentGone",
    "AgentHello",
    "AgentOutput",
    "AgentDisplay",
    "AgentCut",
    "AgentValue",
    "AgentImageValue",
    "AgentUnit",
    "AgentError",
    "AgentStopped",
    "AgentAnswer",
    "AgentReply",
    "AgentConnection",
    "AgentRead",
    "AgentValues",
    "ReadState",
    "AgentRuntime",
    "RuntimeState",
    "AgentClassBytes",
    "AgentClassPath",
    "AgentPiece",
    "ClassPathEntry",
    "AgentSites",
    "AgentProbesSet",
    "AgentProbeHits",
]

# The agent's stream numbers (SnippetSink.STDOUT, STDERR), as frames name them.
_STREAMS: dict[int, Literal["stdout", "stderr"]] = {1: "stdout", 2: "stderr"}


# Connecting to a listening agent and reading its hello: it answers at once unless the JVM is stopped or hung (or, over
# TCP, the network drops what is sent).
CONNECT_TIMEOUT_SECONDS = 10.0

# A message to the agent fits the socket's buffer unless the app has stopped reading (SIGSTOP, a hung JVM): then the
# connection is given up rather than the worker blocked for good.
SEND_TIMEOUT_SECONDS = 30.0


class AgentGone(GradleReplError):
    """The agent's end of the channel closed (the attached JVM exited), or it took nothing for SEND_TIMEOUT_SECONDS."""


@dataclass(frozen=True)
class AgentHello:
    agent: str  # the build's package: a worker talks only to the build it loaded
    app_loader: str
    java_version: str
    pid: int  # in the app's own pid namespace: a container's app is often 1
    run: str = ""  # this run of the app's JVM (random): an attach again tells the same run from a restarted one
    uptime_ms: int = -1  # how long the app has run, by its own clock (-1: unknown)


@dataclass(frozen=True)
class AgentOutput:
    """A chunk of what the snippet's thread printed on one stream, sent while it runs."""

    id: int
    stream: Literal["stdout", "stderr"]
    text: str


@dataclass(frozen=True)
class AgentDisplay:
    """Something the snippet showed (display, markdown, html, image), in order with what it printed."""

    id: int
    kind: str
    mime: str
    text: str | None
    data: bytes | None


@dataclass(frozen=True)
class AgentCut:
    """How many bytes of output and display items the agent dropped past the snippet's output limit."""

    id: int
    dropped: int


@dataclass(frozen=True)
class AgentValue:
    id: int
    text: str
    runtime_class: str | None
    return_type: str


@dataclass(frozen=True)
class AgentImageValue:
    """A value shown as an image (a BufferedImage, encoded PNG or JPEG bytes)."""

    id: int
    shown: AgentDisplay
    runtime_class: str | None
    return_type: str


@dataclass(frozen=True)
class AgentUnit:
    id: int


@dataclass(frozen=True)
class AgentError:
    id: int
    chain: list[ThrowableInfo]


@dataclass(frozen=True)
class AgentStopped:
    id: int
    note: str


AgentAnswer = AgentValue | AgentImageValue | AgentUnit | AgentError | AgentStopped  # the one closing message
AgentReply = AgentOutput | AgentDisplay | AgentCut | AgentAnswer

ReadState = Literal["read", "threw", "unfinished", "missing"]
_READ_STATES: tuple[ReadState, ...] = ("read", "threw", "unfinished", "missing")


@dataclass(frozen=True)
class AgentRead:
    """One value a describe asked for: its first characters and whole length (read), the class of what its reading
    threw (threw), the ms waited for it (unfinished), or what the agent could not find (missing)."""

    state: ReadState
    text: str
    number: int


@dataclass(frozen=True)
class AgentValues:
    """The answer to a describe: one AgentRead per value asked for, in order."""

    id: int
    values: list[AgentRead]


RuntimeState = Literal["loaded", "app's own", "failed"]
_RUNTIME_STATES: tuple[RuntimeState, ...] = ("loaded", "app's own", "failed")


@dataclass(frozen=True)
class AgentRuntime:
    """The answer to `R`: whether the snippets' Kotlin runtime was loaded, the app's own kept, or why it failed."""

    id: int
    state: RuntimeState
    detail: str | None


@dataclass(frozen=True)
class ClassPathEntry:
    """One entry of the app's class path as its agent lists it: its path there, size, and SHA-256 (None: not there)."""

    path: str
    size: int
    digest: str | None


@dataclass(frozen=True)
class AgentClassPath:
    """The answer to `J`: the app's class path, in order."""

    id: int
    entries: list[ClassPathEntry]


@dataclass(frozen=True)
class AgentPiece:
    """The answer to `F`: a piece of an entry's bytes (None: the entry can't be read)."""

    id: int
    data: bytes | None


@dataclass(frozen=True)
class AgentClassBytes:
    """The answer to `B`: each class's name, the version of its bytes, and the bytes it runs now (None: not found)."""

    id: int
    classes: list[tuple[str, int, bytes | None]]


@dataclass(frozen=True)
class AgentSites:
    """The answer to `A`: the first of the site ids reserved."""

    id: int
    base: int


@dataclass(frozen=True)
class AgentProbesSet:
    """The answer to `P`: None when the probes are set, else why not."""

    id: int
    failure: str | None


@dataclass(frozen=True)
class AgentProbeHits:
    """The answer to `Q`: the hits and notes since the last one, and each probe's count and state."""

    id: int
    hits: list[HitRecord]
    counts: RunCounts
    notes: list[str]


class _Reader(ByteCursor):
    """An agent's message, each field checked against WireTable.java as it is read."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data, error=GradleReplError, ends_early="the attach agent sent a truncated message")
        self._size = len(data)
        self._check: WireCheck | None = None

    def kind(self) -> str:
        kind = self.take(1).decode("ascii")
        self._check = WireCheck(kind, "agent")
        return kind

    def _field(self, kind: FieldType, *, null: bool = False, count: int = 0) -> None:
        assert self._check is not None, "kind() is read first"
        self._check.next(kind, null=null, count=count)

    def number(self) -> int:
        self._field("long")
        return self.unpack(">q")

    def count(self) -> int:
        value = self.unpack(">i")
        self._field("int", count=value)
        return value

    def text(self) -> str | None:
        size = self.unpack(">i")
        self._field("text", null=size < 0)
        return None if size < 0 else self.take(size).decode("utf-8", errors="replace")

    def required_text(self) -> str:
        return self.text() or ""

    def data(self) -> bytes | None:
        size = self.unpack(">i")
        self._field("bytes", null=size < 0)
        return None if size < 0 else self.take(size)

    def end(self, kind: str) -> None:
        """The message read whole: every field the table has, and no byte more."""
        assert self._check is not None, "kind() is read first"
        self._check.end()
        if (left := self._size - self._at) > 0:
            raise GradleReplError(
                f"the attach agent sent {left} bytes more than its message {kind} has (WireTable.java)"
            )


class _Writer:
    """A message to the agent, each field checked against WireTable.java as it is written."""

    def __init__(self, kind: str) -> None:
        self._check = WireCheck(kind, "worker")
        self._parts = [kind.encode("ascii")]

    def number(self, value: int) -> _Writer:
        self._check.next("long")
        self._parts.append(struct.pack(">q", value))
        return self

    def count(self, value: int) -> _Writer:
        self._check.next("int", count=value)
        self._parts.append(struct.pack(">i", value))
        return self

    def _sized(self, data: bytes | None) -> _Writer:
        self._parts.append(struct.pack(">i", -1 if data is None else len(data)))
        if data is not None:
            self._parts.append(data)
        return self

    def raw(self, data: bytes) -> _Writer:
        self._check.next("bytes")
        return self._sized(data)

    def nullable(self, data: bytes | None) -> _Writer:
        self._check.next("bytes", null=data is None)
        return self._sized(data)

    def text(self, value: str | None) -> _Writer:
        self._check.next("text", null=value is None)
        return self._sized(None if value is None else value.encode("utf-8"))

    def classes(self, classes: dict[str, bytes]) -> _Writer:
        """A snippet's classes: their count, then each one's binary name and bytes."""
        self.count(len(classes))
        for name, data in classes.items():
            self.text(name).raw(data)
        return self

    def frame(self) -> bytes:
        self._check.end()
        body = b"".join(self._parts)
        return struct.pack(">i", len(body)) + body


AgentMessage = (
    AgentReply
    | AgentHello
    | AgentValues
    | AgentRuntime
    | AgentClassPath
    | AgentPiece
    | AgentClassBytes
    | AgentSites
    | AgentProbesSet
    | AgentProbeHits
)


def _decode(data: bytes) -> AgentMessage:
    """An agent's message, read whole as WireTable.java has it (GradleReplError when it isn't)."""
    message = _Reader(data)
    decoded = _decode_fields(message)
    message.end(data[:1].decode("ascii"))
    return decoded


def _decode_fields(message: _Reader) -> AgentMessage:
    kind = message.kind()
    if kind == "H":
        return AgentHello(
            message.required_text(),
            message.required_text(),
            message.required_text(),
            message.number(),
            message.required_text(),
            message.number(),
        )
    reply_id = message.number()
    if kind == "O":
        stream = message.count()
        if stream not in _STREAMS:
            raise GradleReplError(f"the attach agent sent output of unknown stream {stream}")
        return AgentOutput(reply_id, _STREAMS[stream], message.required_text())
    if kind == "I":
        return _display(reply_id, message)
    if kind == "L":
        return AgentCut(reply_id, message.number())
    if kind == "V":
        return AgentValue(reply_id, message.required_text(), message.text(), message.required_text())
    if kind == "M":
        return AgentImageValue(reply_id, _display(reply_id, message), message.text(), message.required_text())
    if kind == "U":
        return AgentUnit(reply_id)
    if kind == "S":
        return AgentStopped(reply_id, message.required_text())
    if kind == "D":
        return AgentValues(
            reply_id,
            [
                AgentRead(_READ_STATES[message.count()], message.required_text(), message.number())
                for _ in range(message.count())
            ],
        )
    if kind == "R":
        return AgentRuntime(reply_id, _RUNTIME_STATES[message.count()], message.text())
    if kind == "J":
        return AgentClassPath(
            reply_id,
            [ClassPathEntry(message.required_text(), message.number(), message.text()) for _ in range(message.count())],
        )
    if kind == "F":
        return AgentPiece(reply_id, message.data())
    if kind == "B":
        return AgentClassBytes(
            reply_id, [(message.required_text(), message.count(), message.data()) for _ in range(message.count())]
        )
    if kind == "A":
        return AgentSites(reply_id, message.count())
    if kind == "P":
        return AgentProbesSet(reply_id, message.text())
    if kind == "Q":
        hits = [_hit(message) for _ in range(message.count())]
        counts = RunCounts()
        for _ in range(message.count()):
            counts.hits.append(message.count())
            counts.active.append(message.count() != 0)
        return AgentProbeHits(reply_id, hits, counts, [message.required_text() for _ in range(message.count())])
    if kind == "X":
        chain = []
        for _ in range(message.count()):
            class_name, text = message.required_text(), message.text()
            frames = tuple(_frame(message) for _ in range(message.count()))
            chain.append(ThrowableInfo(class_name, text, frames))
        return AgentError(reply_id, chain)
    raise GradleReplError(f"the attach agent sent a message of unknown kind {kind!r}")


def _hit(message: _Reader) -> HitRecord:
    probe, hit, thread = message.count(), message.count(), message.required_text()
    stack = tuple(_frame(message) for _ in range(message.count()))
    local_values = [
        (message.required_text(), message.required_text(), _probe_text(message)) for _ in range(message.count())
    ]
    self_text = [_probe_text(message) for _ in range(message.count())]
    captured = [(_probe_text(message), message.text()) for _ in range(message.count())]
    return HitRecord(
        probe=probe,
        hit=hit,
        thread=thread,
        stack=stack,
        locals=local_values,
        self=self_text[0] if self_text else None,
        captured=captured,
        when_error=message.text(),
        no_local_names=message.count() != 0,
    )


def _probe_text(message: _Reader) -> ProbeText:
    return ProbeText(message.required_text(), message.count(), message.text())


def _frame(message: _Reader) -> StackFrame:
    return StackFrame(
        class_name=message.required_text(), method=message.required_text(), file=message.text(), line=message.count()
    )


def _display(reply_id: int, message: _Reader) -> AgentDisplay:
    return AgentDisplay(reply_id, message.required_text(), message.required_text(), message.text(), message.data())


# The agent's lines before the wire starts are short (TokenGate.java): longer is something else talking.
_LONGEST_LINE = 1024
# TCP keep-alive here with the agent's own timings (AttachAgent.java: a silent peer probed after 15 s, every 5 s, given
# up after 3), each socket option beside the agent's constant; and data unacknowledged for 30 s ends the connection
# (Linux), so a cut link is a lost connection in about half a minute.
_KEEPALIVE = (
    ("TCP_KEEPIDLE", "KEEPALIVE_IDLE_SECONDS"),
    ("TCP_KEEPINTVL", "KEEPALIVE_INTERVAL_SECONDS"),
    ("TCP_KEEPCNT", "KEEPALIVE_PROBES"),
)
_UNACKNOWLEDGED_MS = 30_000


def _tcp_options(sock: socket.socket) -> None:
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, constant in _KEEPALIVE:
        if hasattr(socket, option):
            sock.setsockopt(
                socket.IPPROTO_TCP, getattr(socket, option), int(agent_constant("AttachAgent.java", constant))
            )
    if hasattr(socket, "TCP_USER_TIMEOUT"):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, _UNACKNOWLEDGED_MS)


def _proof(token: str, side: str, first: str, second: str) -> str:
    """HMAC-SHA256(token, side + first nonce + second nonce), as TokenGate.java computes it: a side's proof that it
    holds the token, which never crosses the wire itself."""
    return hmac.new(token.encode(), f"{side}{first}{second}".encode(), hashlib.sha256).hexdigest()


def _prove(sock: socket.socket, address: AgentAddress, token: str) -> str | None:
    """The token proven to the agent and the agent's proof checked (TokenGate.java): None, or why not as a sentence."""
    challenge = agent_constant("WireTable.java", "AUTH_CHALLENGE")
    line = _line(sock, address, "greet")
    words = line.split(" ")
    if len(words) != 2 or words[0] != challenge:
        in_container = (
            "; an app in a container must listen on its own interfaces (listen=0.0.0.0:PORT) for a published port "
            "to reach it"
            if not line
            else ""
        )
        return (
            f"{address} is not gradle-repl's agent listening on TCP: it said {line[:60]!r} where the agent greets"
            f"{in_container}"
        )
    mine = secrets.token_hex(32)
    sock.sendall(
        f"{agent_constant('WireTable.java', 'AUTH_GREETING')} {mine} {_proof(token, 'worker', words[1], mine)}\n".encode()
    )
    answer = _line(sock, address, "answer the token")
    refused = agent_constant("WireTable.java", "AUTH_REFUSED")
    if answer.startswith(refused):
        return (
            f"the agent at {address} refused the token ({answer.removeprefix(refused).strip()}): give the one its "
            f"app was started with (token, tokenFile, or {agent_token_env()})"
        )
    said = answer.split(" ")
    ok = agent_constant("WireTable.java", "AUTH_OK")
    if len(said) != 2 or said[0] != ok or not hmac.compare_digest(said[1], _proof(token, "agent", mine, words[1])):
        # Whatever listens there took the proof without holding the token: nothing more is sent to it.
        return (
            f"{address} answered as gradle-repl's agent but can't prove it holds the token: it is not the app's agent"
        )
    return None


def _line(sock: socket.socket, address: AgentAddress, doing: str) -> str:
    """The peer's next line without its newline ("" when it closed first)."""
    line = b""
    while not line.endswith(b"\n"):
        try:
            chunk = sock.recv(1)
        except TimeoutError:
            raise GradleReplError(
                f"the agent at {address} did not {doing} in time (is the app stopped or hung?)"
            ) from None
        except OSError as error:
            raise GradleReplError(
                f"the connection to {address} broke before the agent could {doing} ({error})"
            ) from None
        if not chunk:
            return line.decode("utf-8", "replace").strip()
        line += chunk
        if len(line) > _LONGEST_LINE:
            raise GradleReplError(f"{address} is not gradle-repl's agent: it sent no line where the agent greets")
    return line.decode("utf-8", "replace").strip()


class AgentConnection:
    """One session's connection to the agent in the attached JVM; closing it releases the session's state there."""

    def __init__(self, sock: socket.socket, hello: AgentHello) -> None:
        self._socket = sock
        self.hello = hello
        # What arrived and isn't a whole message yet: a bytearray, grown in place and cut from the front, so a large
        # message (a probe's many hits) read in chunks costs its size, not its size squared.
        self._buffer = bytearray()

    @classmethod
    def connect(cls, path: str, *, agent: str, timeout: float) -> AgentConnection:
        """Connects to the agent's Unix socket and reads its hello; OSError when nothing listens there. An agent of
        another build than `agent` (its package) is refused: its code and wire may differ from what this worker speaks."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect(path)
        except BaseException:
            sock.close()
            raise
        return cls._greeted(sock, f"on {path}", agent=agent, timeout=timeout, restart="restart the application")

    @classmethod
    def connect_tcp(cls, address: AgentAddress, token: str, *, agent: str, timeout: float) -> AgentConnection:
        """Connects to an agent listening on TCP, gives it the token (its first line: TokenGate.java) and reads its
        hello; one sentence (GradleReplError) saying what to do when any of that fails."""
        try:
            sock = socket.create_connection((address.host, address.port), timeout=timeout)
        except socket.gaierror as error:
            raise GradleReplError(f"can't find the host {address.host!r} ({error.strerror})") from None
        except TimeoutError:
            raise GradleReplError(
                f"{address} did not answer within {timeout:g} s: is the port published or forwarded, and the app running?"
            ) from None
        except OSError as error:
            raise GradleReplError(
                f"nothing listens at {address} ({error.strerror or error}): start the app with the option `gradle-repl "
                "agent-path --listen PORT` prints, and publish or forward that port"
            ) from None
        try:
            # Small frames both ways: Nagle's wait would add to every reply. Keep-alive finds a peer that vanished.
            _tcp_options(sock)
            sock.settimeout(timeout)
            answer = _prove(sock, address, token)
        except BaseException:
            sock.close()
            raise
        if answer is not None:
            sock.close()
            raise GradleReplError(answer)
        try:
            return cls._greeted(
                sock,
                f"at {address}",
                agent=agent,
                timeout=timeout,
                restart="start the app with this gradle-repl's agent jar",
            )
        except OSError as error:
            raise GradleReplError(f"the agent at {address} closed the connection before its hello ({error})") from None

    @classmethod
    def _greeted(cls, sock: socket.socket, where: str, *, agent: str, timeout: float, restart: str) -> AgentConnection:
        """The connection once the agent's hello named this worker's build."""
        try:
            connection = cls(sock, AgentHello("", "", "", 0))
            try:
                hello = connection.receive(timeout)
            except AgentGone:
                raise
            except GradleReplError as error:  # an agent from before hellos named their build says less
                hello = AgentHello(f"an agent whose hello does not decode ({error})", "", "", 0)
        except BaseException:
            sock.close()
            raise
        if not isinstance(hello, AgentHello):
            sock.close()
            raise GradleReplError("the attach agent did not say hello")
        if hello.agent != agent:
            sock.close()
            raise GradleReplError(
                f"refused the attach agent {where}: it is {hello.agent or 'of an unknown build'}, not this gradle-repl's {agent}; "
                f"{restart} to attach to it"
            )
        connection.hello = hello
        return connection

    def evaluate(
        self,
        request_id: int,
        *,
        output_limit: int,
        class_name: str,
        result_field: str | None,
        result_type: str | None,
        classes: dict[str, bytes],
    ) -> None:
        self._send(
            _Writer("E")
            .number(request_id)
            .count(output_limit)
            .text(class_name)
            .text(result_field)
            .text(result_type)
            .classes(classes)
            .frame(),
        )

    def runtime(self, request_id: int, jars: list[tuple[str, bytes]]) -> None:
        """Sends the Kotlin runtime snippets were compiled for (each jar's name and bytes), answered with AgentRuntime."""
        message = _Writer("R").number(request_id).count(len(jars))
        for name, data in jars:
            message.text(name).raw(data)
        self._send(message.frame())

    def class_path(self, request_id: int) -> None:
        """Asks for the app's class path, answered with AgentClassPath."""
        self._send(_Writer("J").number(request_id).frame())

    def piece(self, request_id: int, entry: int, offset: int, length: int) -> None:
        """Asks for `length` bytes of a class path entry from `offset`, answered with AgentPiece."""
        self._send(_Writer("F").number(request_id).count(entry).number(offset).count(length).frame())

    def keep(self, request_id: int, *, class_name: str, classes: dict[str, bytes]) -> None:
        """Brings a snippet that will never run into the session's classes in the app (it was stopped while it
        compiled, and the REPL keeps it in its history): later snippets find its classes; it has no instance."""
        self._send(_Writer("K").number(request_id).text(class_name).classes(classes).frame())

    def cancel(self, request_id: int, *, grace_seconds: float) -> None:
        self._send(_Writer("C").number(request_id).number(int(grace_seconds * 1000)).frame())

    def describe(
        self,
        request_id: int,
        values: list[tuple[str, str, str | None]],
        *,
        limit_chars: int,
        value_seconds: float,
        total_seconds: float,
    ) -> None:
        """Asks for the text of each (snippet class, field, value class) value, answered with AgentValues."""
        message = (
            _Writer("D")
            .number(request_id)
            .count(limit_chars)
            .number(int(value_seconds * 1000))
            .number(int(total_seconds * 1000))
        )
        message.count(len(values))
        for snippet_class, field, value_class in values:
            message.text(snippet_class).text(field).text(value_class)
        self._send(message.frame())

    def class_bytes(self, request_id: int, names: list[str], *, nested: bool) -> None:
        """Asks for the bytes of the classes named as a probe goes into them, answered with AgentClassBytes."""
        message = _Writer("B").number(request_id).count(int(nested)).count(len(names))
        for name in names:
            message.text(name)
        self._send(message.frame())

    def reserve_sites(self, request_id: int, count: int) -> None:
        """Asks for `count` site ids no other probe in the app uses, answered with AgentSites."""
        self._send(_Writer("A").number(request_id).count(count).frame())

    def set_probes(self, request_id: int, spec: ProbeSetSpec) -> None:
        """Sets a set of probes in the app, answered with AgentProbesSet."""
        message = _Writer("P").number(request_id).number(spec.run).count(spec.value_limit).number(spec.expires_ms)
        message.count(len(spec.probes))
        for probe in spec.probes:
            message.count(probe.index).count(probe.max_hits).count(probe.line).count(probe.last_line)
            message.count(int(probe.has_when)).count(probe.captures).count(int(probe.no_local_names))
            message.count(len(probe.sites))
            for site in probe.sites:
                message.count(site.id).text(site.class_name).text(site.method).count(len(site.locals))
                for name, kind in site.locals:
                    message.text(name).text(kind)
                message.nullable(site.code).nullable(site.door)
        message.count(len(spec.classes))
        for name, version, data in spec.classes:
            message.text(name).count(version).raw(data)
        self._send(message.frame())

    def collect_probes(self, request_id: int, run: int, *, close: bool) -> None:
        """Asks for a set's hits and notes since the last ask (taking the set out first with `close`), answered with
        AgentProbeHits."""
        self._send(_Writer("Q").number(request_id).number(run).count(int(close)).frame())

    def buffered(self) -> bool:
        """Whether a whole message has arrived and waits to be received: receive() returns it without waiting."""
        return len(self._buffer) >= 4 and len(self._buffer) >= 4 + struct.unpack(">i", self._buffer[:4])[0]

    def receive(self, timeout: float) -> AgentMessage | None:
        """The next message, or None when none came within the timeout; AgentGone when the agent's end closed."""
        self._socket.settimeout(timeout)
        try:
            while not self.buffered():
                chunk = self._socket.recv(1 << 16)
                if not chunk:
                    raise AgentGone("the connection was closed at the other end")
                self._buffer += chunk
                self._socket.settimeout(timeout)
        except (TimeoutError, BlockingIOError) as error:
            if error.errno is not None and error.errno != errno.EAGAIN:  # TCP's own timeout: keep-alive found no peer
                raise AgentGone(f"the connection to the attached JVM broke ({error.strerror})") from error
            return None
        except OSError as error:  # reset, a broken pipe, a network or host gone
            raise AgentGone(f"the connection broke ({error})") from error
        size = struct.unpack(">i", self._buffer[:4])[0]
        data = bytes(self._buffer[4 : 4 + size])
        del self._buffer[: 4 + size]
        return _decode(data)

    def _send(self, frame: bytes) -> None:
        try:
            self._socket.settimeout(SEND_TIMEOUT_SECONDS)
            self._socket.sendall(frame)
        except TimeoutError as error:
            # Part of the message may have gone: the channel can't be trusted any more.
            raise AgentGone(
                f"the attached JVM took no data for {SEND_TIMEOUT_SECONDS:g} s (stopped or hung)"
            ) from error
        except OSError as error:
            raise AgentGone(f"the connection broke ({error})") from error

    def close(self) -> None:
        self._socket.close()
