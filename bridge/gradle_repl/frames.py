"""The newline-delimited JSON frames a server and its worker exchange, one model per kind.

Requests go server → worker on the worker's stdin; frames come back on a private pipe that nothing
a snippet or the JVM prints can reach. Every eval request carries an id; it is answered by zero or
more stdout/stderr/display frames and exactly one result frame, all carrying that id, so a reply
can never be taken for another request's. A cancel request names the eval it cancels. The one
exception to "exactly one result": an exiting frame says the snippet's System.exit is ending the
JVM, and the process's end (its exit status) is the answer.

A request the worker answers after its start is a `WorkerRequest[TheResult]`: the type declares what answers it (that
result or an error) and whether a cancel reaches it while it runs; the worker's table and the host's one send read
that declaration.

A result is one of eight kinds, told apart by `type`: a snippet's success (its value), an error (a snippet's, or the
worker's), a session's description (the answer to a describe request), a check's diagnostics, a completion's
candidates, an update's classes, a test run's counts or an edit's compile. Describe, check and complete requests run
nothing and change nothing; an update request redefines the project's changed classes in place (or changes nothing and
says why).
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, Field, TypeAdapter

from gradle_repl.display_kinds import DisplayKind
from gradle_repl.environment import SessionSpec
from gradle_repl.file_annotations import depends_on
from gradle_repl.settings import DEFAULTS

__all__ = [
    "DEFAULT_HEAP_MB",
    "DEFAULT_OUTPUT_LIMIT_BYTES",
    "DEFAULT_FRAME_LIMIT_BYTES",
    "WorkerOptions",
    "StartRequest",
    "WorkerRequest",
    "EvalRequest",
    "CancelRequest",
    "DescribeRequest",
    "CheckRequest",
    "CompleteRequest",
    "UpdateRequest",
    "TestRunRequest",
    "CompileRequest",
    "Probe",
    "ProbeLocal",
    "ProbeCapture",
    "ProbeHit",
    "FailureFrame",
    "ProbeState",
    "ProbesResult",
    "AddProbeRequest",
    "ReadProbesRequest",
    "RemoveProbeRequest",
    "CompileResult",
    "Request",
    "Declaration",
    "CompilerDiagnostic",
    "SessionDescription",
    "AddedLibraries",
    "ReadyFrame",
    "StreamFrame",
    "DisplayFrame",
    "ExitingFrame",
    "Result",
    "SnippetTimes",
    "SnippetResult",
    "SuccessResult",
    "ErrorResult",
    "DescriptionResult",
    "CodeDiagnostic",
    "CheckResult",
    "Completion",
    "CompletionKind",
    "TextEdit",
    "CompletionResult",
    "UpdateResult",
    "TestProgressFrame",
    "TestFailureDetail",
    "TestRunResult",
    "ResultFrame",
    "ErrorKind",
    "Frame",
    "encode",
    "decode_frame",
    "decode_request",
]

# The worker's defaults are the settings' (settings.py says why each is what it is).
DEFAULT_HEAP_MB = DEFAULTS.heap_mb
DEFAULT_OUTPUT_LIMIT_BYTES = DEFAULTS.output_limit_bytes
DEFAULT_FRAME_LIMIT_BYTES = DEFAULTS.frame_limit_bytes

ErrorKind = Literal[
    "compile", "runtime", "timeout", "cancelled", "exited", "out_of_memory", "internal", "protocol", "probe"
]


class WorkerOptions(BaseModel):
    """Per-worker limits chosen by the server."""

    heap_mb: int = Field(default=DEFAULT_HEAP_MB, ge=64)
    output_limit_bytes: int = Field(default=DEFAULT_OUTPUT_LIMIT_BYTES, ge=1_000)
    frame_limit_bytes: int = Field(default=DEFAULT_FRAME_LIMIT_BYTES, ge=1_000)
    class_data_sharing: bool = Field(
        default=DEFAULTS.class_data_sharing,
        description="map the JDK's archive of the compiler's classes (see classdata)",
    )
    full_jit: bool = Field(
        default=DEFAULTS.full_jit, description="C2 as well as C1: slower starts, faster long-running snippet code"
    )
    code_cache_mb: int = Field(
        default=DEFAULTS.code_cache_mb, ge=16, description="the JVM's code cache (-XX:ReservedCodeCacheSize)"
    )
    idle_warm_up_compiles: int = Field(
        default=DEFAULTS.idle_warm_up_compiles, ge=0, description="throwaway compiles to warm the compiler while idle"
    )


class StartRequest(BaseModel):
    op: Literal["start"] = "start"
    spec: SessionSpec
    heap_mb: int = DEFAULT_HEAP_MB
    output_limit_bytes: int = DEFAULT_OUTPUT_LIMIT_BYTES
    frame_limit_bytes: int = DEFAULT_FRAME_LIMIT_BYTES
    class_data_sharing: bool = DEFAULTS.class_data_sharing
    full_jit: bool = DEFAULTS.full_jit
    code_cache_mb: int = DEFAULTS.code_cache_mb
    idle_warm_up_compiles: int = DEFAULTS.idle_warm_up_compiles
    # A training worker writes the class-data archive once ready, then exits: it never runs snippets.
    train_class_data: bool = False
    # A preparing worker compiles the facade and its add-ons for the environment's Kotlin, sends 'ready' and exits: it
    # runs no snippets (host/preparation.py starts one while a first build still runs).
    prepare_only: bool = False
    # Whether the worker compiles the warm-up snippet before 'ready' (worker/boot.py), so its first snippet answers as
    # fast as later ones. A worker a call waits for skips it: that call's snippet loads the compiler instead, once,
    # and its compile doesn't count against its timeout (deadlines.FIRST_COMPILE_SECONDS). An attached session's start
    # warms up against the app whatever this says; its 'ready' tells the host which it did (first_compile_pending).
    warm_up: bool = True


class CancelRequest(BaseModel):
    """Stops the eval with this id the way a timeout does; ignored when that eval already answered."""

    op: Literal["cancel"] = "cancel"
    id: int


class ReadyFrame(BaseModel):
    event: Literal["ready"] = "ready"
    pid: int
    kotlin_version: str
    java_version: str
    facade_compiled: bool = Field(description="true when this start compiled the jvm-worker facade")
    startup_ms: int
    class_data_archive: str | None = Field(default=None, description="the class-data archive the JVM was told to map")
    history_indexed: bool = Field(
        default=False,
        description="compilations read earlier snippets from the facade's index, not by walking the REPL's history",
    )
    first_compile_pending: bool = Field(
        default=False,
        description="it ran no warm-up (StartRequest.warm_up): its first compile loads the compiler, and an eval's "
        "timeout counts from that compile's end (deadlines.FIRST_COMPILE_SECONDS)",
    )


class StreamFrame(BaseModel):
    event: Literal["stdout", "stderr"]
    id: int = 0
    data: str


class DisplayFrame(BaseModel):
    event: Literal["display"] = "display"
    id: int = 0
    kind: DisplayKind
    mime: str
    data: str = Field(description="text, or base64 for images")
    meta: dict[str, str] = Field(default_factory=dict)


DeclarationKind = Literal[
    "val", "var", "fun", "class", "data class", "object", "interface", "enum class", "annotation class", "typealias"
]


class Declaration(BaseModel):
    """One name a session's snippets declared, as the REPL resolves it now (the newest definition)."""

    kind: DeclarationKind
    name: str
    signature: str = Field(
        description="e.g. `val total: kotlin.Int`, `fun f(kotlin.Int): kotlin.String`, `data class Point`"
    )
    value: str | None = Field(default=None, description="a val's or var's current value, rendered and capped")
    snippet: int = Field(description="the number of the snippet that declared it (1 = the session's first)")


class ProbeState(BaseModel):
    """A probe that outlives a call (add_kotlin_probe), as the session holds it."""

    probe_id: int
    at: str
    hits: int = Field(description="how often it fired so far (up to its maxHits)")
    active: bool = Field(description="still in the code: not past its maxHits or its expiry, not removed")


class SessionDescription(BaseModel):
    declarations: list[Declaration] = Field(default_factory=list)
    imports: list[str] = Field(default_factory=list)
    libraries: list[str] = Field(default_factory=list, description="coordinates added with @file:DependsOn, in order")
    probes: list[ProbeState] = Field(default_factory=list, description="the session's probes (add_kotlin_probe)")

    def summary(self, session_id: str) -> str:
        """One line per import and declaration, oldest first, each with the snippet that made it."""
        if not self.declarations and not self.imports and not self.libraries:
            return f"Session {session_id!r} holds no declarations, imports or added libraries yet."
        lines = [f"Session {session_id!r}: {len(self.declarations)} declaration(s), {len(self.imports)} import(s)"]
        lines += [depends_on(coordinate) for coordinate in self.libraries]
        lines += [f"import {name}" for name in self.imports]
        for declaration in self.declarations:
            value = f" = {declaration.value}" if declaration.value is not None else ""
            lines.append(f"{declaration.signature}{value}    // snippet {declaration.snippet}")
        return "\n".join(lines)


class AddedLibraries(BaseModel):
    """What a session's snippets added with `@file:Repository` and `@file:DependsOn`, in order, as the worker's
    resolver recorded it: a session restarted for a changed build gets them again."""

    repositories: list[str] = Field(default_factory=list, description="repository URLs snippets named")
    coordinates: list[str] = Field(default_factory=list, description="`group:artifact:version` of each library added")


class ExitingFrame(BaseModel):
    """The snippet called System.exit and the JVM is shutting down: no result follows; the worker process's end
    (its exit status, or the signal that ended it when native exit handlers tore the JVM down) is the answer."""

    event: Literal["exiting"] = "exiting"
    id: int = 0


class Result(BaseModel):
    """What every result frame carries; one of its kinds below closes each request."""

    event: Literal["result"] = "result"
    id: int = 0
    duration_ms: int = 0


class CompilerDiagnostic(BaseModel):
    """One of the compiler's errors or warnings on a snippet, where it points (1-based, in the snippet's own text)."""

    severity: Literal["error", "warning"]
    message: str
    line: int | None = None
    column: int | None = None


class Probe(BaseModel):
    """A probe for one call: where it fires, when, what it records and how often (worker/probes)."""

    at: str = Field(description="`File.kt:LINE`, `dir/File.kt:LINE` (a path suffix) or `fully.qualified.Class:LINE`")
    when: str | None = Field(
        default=None, description="a Kotlin Boolean expression: the probe records only when it holds"
    )
    capture: list[str] = Field(default_factory=list, description="Kotlin expressions recorded at each hit")
    max_hits: int = Field(
        default=DEFAULTS.probe_max_hits, description="checked by the worker, which says what's allowed"
    )


class ProbeLocal(BaseModel):
    """A local variable live where a probe fired."""

    name: str
    type: str = Field(description="its declared type, in Kotlin")
    value: str = Field(description="its text at the hit, as a result's value reads (capped)")


class ProbeCapture(BaseModel):
    """One `capture` expression's value at a hit, or what it threw."""

    expression: str
    value: str | None = None
    type: str | None = Field(default=None, description="the value's class, in Kotlin")
    error: str | None = Field(default=None, description="what evaluating it threw: exception class and message")


class ProbeHit(BaseModel):
    """One time a probe's line was reached (and its `when` held)."""

    at: str = Field(description="the frame: `shop.Cart.total(Cart.kt:16)`")
    probe: int = Field(description="the probe's index in the call's list")
    hit: int = Field(description="1, 2, … for this probe")
    thread: str
    locals: list[ProbeLocal] = Field(default_factory=list)
    this: str | None = Field(default=None, description="`this` as text; none in a static method")
    captured: list[ProbeCapture] = Field(default_factory=list)
    stack: list[str] = Field(default_factory=list, description="the project's and snippet's frames, outermost last")
    notes: list[str] = Field(default_factory=list, description="what the hit could not record, one sentence each")


class SnippetTimes(BaseModel):
    """Where a snippet's time went in the worker's JVM, wall clock (the facade's ReplDriver): the steps a warm call
    can't do without. bench/profile.py sets them beside the rest of a call's time; users aren't shown them."""

    compile_ms: float
    evaluate_ms: float = Field(description="running the compiled snippet; 0 when it didn't compile")
    render_ms: float = Field(description="its value as text or an image; 0 when it has none")
    depended_modules: int = Field(
        default=-1,
        description="the modules the compile depended on (libraries', and snippet modules kept for their classes), "
        "each one more that every class lookup asks; -1 when the worker can't say",
    )


class SnippetResult(Result):
    """What an eval's result carries, whether the snippet succeeded or not."""

    diagnostics: list[CompilerDiagnostic] = Field(
        default_factory=list,
        description="the compiler's errors and warnings with their positions (as data; the text is in message and compile_warnings)",
    )
    compile_warnings: list[str] = Field(
        default_factory=list,
        description="the compiler's warnings on the snippet, each `warning: …`; shown before the result",
    )
    heap_warning: str | None = Field(
        default=None,
        description="said when the session's heap is nearly full after the snippet; shown after the result",
    )
    truncated_bytes: int = 0
    declared: int | None = Field(
        default=None, description="how many names the session holds after this snippet, when known"
    )
    libraries: AddedLibraries | None = Field(
        default=None, description="what the session's snippets added after this one; None when the worker can't say"
    )
    probe_hits: list[ProbeHit] = Field(default_factory=list, description="the call's probes' hits, in order")
    probe_notes: list[str] = Field(default_factory=list, description="what happened to a probe besides its hits")
    times: SnippetTimes | None = Field(
        default=None, description="compile, evaluate, render in this JVM; None for a snippet run elsewhere or stopped"
    )


class SuccessResult(SnippetResult):
    type: Literal["success"] = "success"
    value: DisplayFrame | None = Field(default=None, description="the last expression, rendered")
    value_type: str | None = None


class ErrorResult(SnippetResult):
    """A snippet that failed, or a request the worker could not serve (then only the message matters)."""

    type: Literal["error"] = "error"
    error_kind: ErrorKind
    message: str = ""
    stack: str = ""
    state_lost: bool = Field(default=False, description="the session's JVM is gone, and its state with it")


class DescriptionResult(Result):
    """The answer to a describe request."""

    type: Literal["description"] = "description"
    description: SessionDescription
    declared: int = Field(description="how many names the session holds")


class CodeDiagnostic(CompilerDiagnostic):
    """One of the compiler's errors or warnings on checked code, with the text a run would show for it."""

    text: str = Field(
        description="as run_kotlin_snippet shows it: `error: … (line L, col C)`, the offending line and a caret"
    )


class CheckResult(Result):
    """The answer to a check request: what compiling the code in the session's state reported."""

    type: Literal["check"] = "check"
    diagnostics: list[CodeDiagnostic] = Field(default_factory=list)
    compiled: bool = Field(description="true when the code compiles (warnings allowed)")
    value_type: str | None = Field(default=None, description="the last expression's type, when it compiles and has one")


CompletionKind = Literal[
    "function",
    "property",
    "variable",
    "class",
    "interface",
    "object",
    "enum",
    "typealias",
    "package",
    "keyword",
    "parameter",
]


class TextEdit(BaseModel):
    """Replace `code[start:end]` by `text` (an insertion when they are equal); offsets into the code as it was sent."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str


class Completion(BaseModel):
    """One candidate: what to insert in place of the prefix before the cursor, and what it is."""

    text: str
    kind: CompletionKind
    detail: str = Field(default="", description="a function's signature, a property's type, a class's package")
    edits: list[TextEdit] = Field(
        default_factory=list,
        description="edits to make with this one, before the cursor: the import a class not imported yet needs "
        "(as an IDE's auto-import adds it), in the code as it was sent",
    )


class CompletionResult(Result):
    """The answer to a complete request: candidates, best first."""

    type: Literal["completion"] = "completion"
    items: list[Completion] = Field(default_factory=list)
    prefix_start: int = Field(
        description="where the prefix each candidate replaces starts (a character offset into the code)"
    )
    unavailable: str | None = Field(
        default=None, description="why completion can't be offered in this session, when it can't"
    )


class UpdateResult(Result):
    """The answer to an update request: the classes redefined in place, or why the session must restart."""

    type: Literal["update"] = "update"
    redefined: list[str] = Field(default_factory=list, description="loaded classes whose new bytes the JVM now runs")
    reloaded: int = Field(default=0, description="changed classes not loaded yet: they load from the new class files")
    added: list[str] = Field(default_factory=list, description="class files that appeared: loadable from now on")
    initialisers: list[str] = Field(
        default_factory=list, description="redefined classes whose static initialiser changed (it does not run again)"
    )
    refused: str | None = Field(default=None, description="why the classes can't be updated in place; nothing changed")


class TestProgressFrame(BaseModel):
    """A test of a running test run finished: `12/40 shop.CartTest.oneItem`."""

    event: Literal["test_progress"] = "test_progress"
    id: int = 0
    line: str


class FailureFrame(BaseModel):
    """What one frame of a failure's stack held the last time it reached its line before the failure (an explained
    failure's: the test run again alone with probes at its frames)."""

    at: str = Field(description="the frame: `shop.Cart.total(Cart.kt:16)`")
    locals: list[ProbeLocal] = Field(default_factory=list)
    this: str | None = None


class TestFailureDetail(BaseModel):
    """One failed test (or a container that failed whole, as a class whose @BeforeAll threw)."""

    __test__ = False  # a model, not a pytest test class

    test: str = Field(
        description="as a selector names it: `shop.CartTest.discount`; an invocation adds its display name in brackets"
    )
    display_name: str
    message: str = Field(description="the exception's class and message")
    stack: list[str] = Field(
        default_factory=list,
        description="the exception's frames in the project's own code, each `Class.method(File.kt:12)`",
    )
    output: str = Field(default="", description="what the test printed while it ran")
    frames: list[FailureFrame] = Field(
        default_factory=list,
        description="explained failures only: each project frame from the test method to the throwing one, with what "
        "it held the last time it reached its line",
    )


class TestRunResult(Result):
    """The answer to a test request: the counts and each failure."""

    __test__ = False

    type: Literal["tests"] = "tests"
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    aborted: int = Field(default=0, description="tests that ended on a failed assumption")
    failures: list[TestFailureDetail] = Field(default_factory=list)
    stopped: str | None = Field(
        default=None, description="why the run ended before its tests did (a timeout, a cancel)"
    )
    state_lost: bool = Field(
        default=False, description="the session's JVM is gone (a test called System.exit, or would not stop)"
    )
    notices: list[str] = Field(
        default_factory=list, description="what the run could not apply of the build's test settings"
    )
    failed_only_notes: list[str] = Field(
        default_factory=list,
        description="which tests known to fail a failed-only run ran, which dropped out, or that none was known",
    )
    known_failing: list[str] = Field(
        default_factory=list, description="the tests known to fail after this run (TestRunRequest.known_failing)"
    )
    probe_hits: list[ProbeHit] = Field(default_factory=list, description="the call's probes' hits, in order")
    probe_notes: list[str] = Field(default_factory=list, description="what happened to a probe besides its hits")


class ProbesResult(Result):
    """The answer to a session probe's request: the probe added, or the hits since the last read, with each probe's
    state."""

    type: Literal["probes"] = "probes"
    probe_id: int | None = Field(default=None, description="the probe an add request set")
    hits: list[ProbeHit] = Field(default_factory=list, description="since the last read, in order; `probe` is its id")
    probes: list[ProbeState] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="what happened to a probe besides its hits")


class CompileResult(Result):
    """The answer to a compile request: the class files written, the edited files' errors, or why the build tool must
    build instead (nothing was written)."""

    type: Literal["compile"] = "compile"
    classes: list[str] = Field(default_factory=list, description="the classes written to the output directory")
    errors: list[str] = Field(
        default_factory=list, description="`file:line:column: message`, as the build tool reports them"
    )
    fall_back: str | None = Field(
        default=None, description="why the build tool must build instead; nothing was written"
    )


# Covariant: a WorkerRequest[CheckResult] is a request answered by a Result, as the host's one send takes it.
AnswerT = TypeVar("AnswerT", bound=Result, covariant=True)


class WorkerRequest(BaseModel, Generic[AnswerT]):
    """A request the worker answers with exactly one result frame: of the kind its type names (`WorkerRequest[
    CheckResult]`), or an error. Declared once here, it is handled once in the worker (worker/handlers.py's table) and
    sent by one method on the host (host/handle.py's `_ask`, which checks the answer's kind against this declaration).
    """

    op: str  # each kind's Literal, the union's discriminator
    id: int = 0
    # Whether a cancel reaches it while it runs (the worker reads cancels on a thread of its own and stops it): a
    # snippet and a test run. The others run on the worker's main loop to their end; the host waits for their answer.
    interruptible: ClassVar[bool] = False

    @classmethod
    def answer_types(cls) -> tuple[type[Result], ...]:
        """The result kinds that may answer it: its declared one and an error."""
        for base in cls.__mro__:
            metadata = getattr(base, "__pydantic_generic_metadata__", None)
            if metadata is not None and metadata["origin"] is WorkerRequest and metadata["args"]:
                return (metadata["args"][0], ErrorResult)
        raise TypeError(f"{cls.__name__} declares no answer (subclass WorkerRequest[TheResult])")


class EvalRequest(WorkerRequest[SuccessResult]):
    """Runs one snippet: zero or more stream and display frames, then its result."""

    interruptible: ClassVar[bool] = True
    op: Literal["eval"] = "eval"
    code: str
    timeout_ms: int = int(DEFAULTS.snippet_timeout_seconds * 1000)
    probes: list[Probe] = Field(default_factory=list, description="set before the snippet runs, gone when it ends")


class DescribeRequest(WorkerRequest[DescriptionResult]):
    """Asks what the session holds; answered by a result frame carrying a description."""

    op: Literal["describe"] = "describe"


class CheckRequest(WorkerRequest[CheckResult]):
    """Compiles code as the session's next snippet without running it or keeping it; answered by a check result."""

    op: Literal["check"] = "check"
    code: str


class CompleteRequest(WorkerRequest[CompletionResult]):
    """Asks what may be written at `cursor` (a character offset into `code`) in the session's current state."""

    op: Literal["complete"] = "complete"
    code: str
    cursor: int = Field(ge=0)


class UpdateRequest(WorkerRequest[UpdateResult]):
    """The project was rebuilt with only its classes changed: update the loaded ones in place, or say why not."""

    op: Literal["update"] = "update"


class TestRunRequest(WorkerRequest[TestRunResult]):
    """Runs the project's tests in the session (a session of a test source set): progress frames as tests finish, then
    its result; cancelled and timed out as an eval is."""

    __test__ = False
    interruptible: ClassVar[bool] = True
    op: Literal["test"] = "test"
    selectors: list[str] = Field(
        default_factory=list, description="classes, methods, packages (`shop.*`); none = every test"
    )
    failed_only: bool = Field(
        default=False, description="the tests known to fail (of the selection) again; none known: the selection"
    )
    known_failing: list[str] = Field(
        default_factory=list,
        description="JUnit unique ids of the tests known to fail: failed in a run and not seen passing since",
    )
    timeout_ms: int = int(DEFAULTS.snippet_timeout_seconds * 1000)
    probes: list[Probe] = Field(default_factory=list, description="set before the tests run, gone when they end")
    explain_failures: bool = Field(
        default=False, description="run each failed test (the first few) again alone, with probes at its frames"
    )


class AddProbeRequest(WorkerRequest[ProbesResult]):
    """Sets a probe that stays until it is removed, reaches its maxHits or expires (add_kotlin_probe): for code that
    runs when no call does (a thread a snippet started, a server's requests)."""

    op: Literal["add_probe"] = "add_probe"
    probe: Probe
    expires_seconds: float = Field(gt=0)


class ReadProbesRequest(WorkerRequest[ProbesResult]):
    """The hits of one session probe (or of all) since the last read, and every probe's state; nothing waits here."""

    op: Literal["read_probes"] = "read_probes"
    probe_id: int | None = None


class RemoveProbeRequest(WorkerRequest[ProbesResult]):
    """Takes a session probe out of the code; its last hits come back."""

    op: Literal["remove_probe"] = "remove_probe"
    probe_id: int


class CompileRequest(WorkerRequest[CompileResult]):
    """Sources of the session's own module were edited: compile them with the session's compiler into `output_dir`
    (gradle-repl's, ahead of the build's output on the class path), unless the result could differ from the build's."""

    op: Literal["compile"] = "compile"
    files: list[str] = Field(description="the edited .kt and .java files")
    output_dir: str
    module_name: str = Field(description="-module-name: the build's, so that `internal` resolves as it does there")
    friend_dirs: list[str] = Field(
        default_factory=list, description="-Xfriend-paths: outputs whose internals are visible"
    )
    hidden_dirs: list[str] = Field(
        default_factory=list, description="class path entries left out of this compile (test outputs, for main sources)"
    )


Request = Annotated[
    StartRequest
    | EvalRequest
    | CancelRequest
    | DescribeRequest
    | CheckRequest
    | CompleteRequest
    | UpdateRequest
    | TestRunRequest
    | CompileRequest
    | AddProbeRequest
    | ReadProbesRequest
    | RemoveProbeRequest,
    Field(discriminator="op"),
]


ResultFrame = Annotated[
    SuccessResult
    | ErrorResult
    | DescriptionResult
    | CheckResult
    | CompletionResult
    | UpdateResult
    | TestRunResult
    | CompileResult
    | ProbesResult,
    Field(discriminator="type"),
]
Frame = Annotated[
    ReadyFrame | StreamFrame | DisplayFrame | ExitingFrame | TestProgressFrame | ResultFrame,
    Field(discriminator="event"),
]

_FRAME = TypeAdapter(Frame)
_REQUEST = TypeAdapter(Request)


def encode(model: BaseModel) -> bytes:
    """One frame as a single line; JSON escapes every newline inside strings."""
    return model.model_dump_json().encode("utf-8") + b"\n"


def decode_frame(
    line: bytes | str,
) -> (
    ReadyFrame
    | StreamFrame
    | DisplayFrame
    | ExitingFrame
    | TestProgressFrame
    | SuccessResult
    | ErrorResult
    | DescriptionResult
    | CheckResult
    | CompletionResult
    | UpdateResult
    | TestRunResult
    | CompileResult
    | ProbesResult
):
    return _FRAME.validate_json(line)


def decode_request(line: bytes | str) -> Request:
    return _REQUEST.validate_json(line)
