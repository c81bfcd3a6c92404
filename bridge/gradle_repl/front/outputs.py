"""What the tools return as data (MCP `structuredContent`): the public schema, one pydantic model per tool that
returns data, and every model inside them.

Each model is the tool's declared `outputSchema` (the SDK derives it from the tool's return annotation,
`Annotated[CallToolResult, Model]`) and `front/content.py` fills it beside the text and image content, which
stay as they are for clients that read text only. Every model here is a `Wire`: camelCase on the wire, as the tools'
arguments are, down to list items. An item that shows an internal model (a diagnostic, a declaration, a session)
stands alone, its fields written here, so that a change inside the host or the worker never changes what clients
read; tests/repo/test_tool_schemas.py holds the published schema to its snapshot, and tests/front/test_outputs.py holds each
such item to the internal model it shows (the same field names, so each is read from it). A wire item is made from
the internal one it shows by `model_validate(internal)` (`wire_list`): the names they share are read as attributes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, TypeAlias, TypeVar

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.alias_generators import to_camel

from gradle_repl.display_kinds import DisplayKind
from gradle_repl.environment import BuildToolName
from gradle_repl.frames import CompletionKind, DeclarationKind, ErrorKind
from gradle_repl.host.notices import NoticeKind
from gradle_repl.options import SESSION_OPTIONS

__all__ = [
    "Wire",
    "SnippetDiagnostic",
    "CheckDiagnostic",
    "CodeEdit",
    "CompletionItem",
    "DeclaredName",
    "NoticeItem",
    "DisplayItem",
    "LiveSession",
    "SessionOptionValues",
    "FailureFrameItem",
    "ProbeCaptureItem",
    "ProbeStateItem",
    "SessionProbeHits",
    "ProbeHitItem",
    "ProbeLocalItem",
    "SnippetError",
    "SnippetRun",
    "SessionList",
    "SessionContents",
    "RunErrorKind",
    "CodeCheck",
    "CodeCompletions",
    "SessionReset",
    "RunningJvmItem",
    "RunningJvms",
    "SessionAttached",
    "ProjectEnvironment",
    "TestFailureItem",
    "ProjectTestRun",
    "wire_list",
]

# A snippet's error kinds, and `request`: the call could not run the snippet (bad arguments, a build that failed,
# a JVM that could not start); the session, if it had one, is as it was.
RunErrorKind = Literal[ErrorKind, "request"]


class Wire(BaseModel):
    """A model as clients read it: camelCase names, built from Python's snake_case (or from an internal model's
    attributes of the same names)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, serialize_by_alias=True, from_attributes=True
    )


_W = TypeVar("_W", bound=Wire)


def wire_list(model: type[_W], items: Iterable[object]) -> list[_W]:
    """Internal models as the wire model that shows them."""
    return [model.model_validate(item) for item in items]


class SnippetDiagnostic(Wire):
    """One of the compiler's errors or warnings."""

    severity: Literal["error", "warning"]
    message: str
    line: int | None = None
    column: int | None = None


class CheckDiagnostic(SnippetDiagnostic):
    """One of the compiler's errors or warnings, with the text a run shows for it."""

    text: str = Field(
        description="as run_kotlin_snippet shows it: `error: … (line L, col C)`, the offending line and a caret"
    )


class CodeEdit(Wire):
    """Replace `code[start:end]` by `text` (an insertion when they are equal); offsets into the code as it was sent."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str


class CompletionItem(Wire):
    """One candidate: what to insert in place of the prefix before the cursor, and what it is."""

    text: str
    kind: CompletionKind
    detail: str = Field(default="", description="a function's signature, a property's type, a class's package")
    edits: list[CodeEdit] = Field(
        default_factory=list,
        description="edits to make with this one, before the cursor: the import a class not imported yet needs "
        "(as an IDE's auto-import adds it), in the code as it was sent",
    )


class DeclaredName(Wire):
    """One name a session's snippets declared, as the REPL resolves it now (the newest definition)."""

    kind: DeclarationKind
    name: str
    signature: str = Field(
        description="e.g. `val total: kotlin.Int`, `fun f(kotlin.Int): kotlin.String`, `data class Point`"
    )
    value: str | None = Field(default=None, description="a val's or var's current value, rendered and capped")
    snippet: int = Field(description="the number of the snippet that declared it (1 = the session's first)")


class NoticeItem(Wire):
    """One thing the user must know besides the result, as text ready to show."""

    kind: NoticeKind = Field(
        description="evicted: closed for room or idleness; restarted: the build or sources changed in a way the JVM "
        "can't apply in place; updated: the rebuilt project's classes were updated in place, state kept; replayed: the "
        "session's earlier successful snippets ran again after a restart; state_lost: a "
        "cancelled snippet ended the JVM; build_tool: the other build tool was used; environment: what the build "
        "can't give snippets; libraries: added again after a restart (or not); options: changed session options "
        "restarted the session; memory: the heap is nearly full"
    )
    text: str


class LiveSession(Wire):
    """One live session, as list_kotlin_sessions shows it."""

    session_id: str
    state: Literal["starting", "idle", "running"]
    project_root: str
    project_path: str
    source_set: str
    build_tool: BuildToolName | None = Field(
        description="the build tool that resolved the session's project; null for a JVM attached to without a project"
    )
    kotlin_version: str
    java_home: str
    java_version: str | None
    snippets_run: int
    uptime_seconds: float
    idle_seconds: float
    worker_pid: int | None
    worker_rss_bytes: int | None
    declarations: int = Field(
        default=0, description="names the session's snippets declared (describe_kotlin_session lists them)"
    )
    attached_pid: int | None = Field(
        default=None, description="the running JVM the session's snippets run in, when it is attached to one by pid"
    )
    attached_address: str | None = Field(
        default=None, description="the agent (host:port) the session's snippets run behind, when attached over TCP"
    )


class DisplayItem(Wire):
    """One item a snippet showed with display(), markdown(), html() or image(), in the order shown."""

    kind: DisplayKind
    mime: str
    text: str | None = Field(
        default=None,
        description="the item's text (html as text, never to be rendered); null for an image, whose bytes are "
        "the result's image content: the images in order, after the value's own when the value is an image",
    )


# A session's options under run_kotlin_snippet's argument names: a field per option of options.SESSION_OPTIONS, of its
# type and default, made from them (so a new option needs nothing here). mypy knows it as a Wire.
if TYPE_CHECKING:
    SessionOptionValues: TypeAlias = Wire
else:
    SessionOptionValues = create_model(
        "SessionOptionValues",
        __base__=Wire,
        __doc__="A session's options under run_kotlin_snippet's argument names.",
        __module__=__name__,
        **{
            option.name: (
                option.type,
                Field(default=option.field.default, default_factory=option.field.default_factory),
            )
            for option in SESSION_OPTIONS
        },
    )


class ProbeLocalItem(Wire):
    """A local variable live where a probe fired."""

    name: str
    type: str = Field(description="its declared type, in Kotlin")
    value: str = Field(description="its text at the hit, as a result's value reads (capped)")


class ProbeCaptureItem(Wire):
    """One `capture` expression at a hit: its value and type, or what it threw."""

    expression: str
    value: str | None = None
    type: str | None = Field(default=None, description="the value's class, in Kotlin")
    error: str | None = Field(default=None, description="what evaluating it threw: exception class and message")


class ProbeHitItem(Wire):
    """One time a probe's line was reached (and its `when` held)."""

    at: str = Field(description="the frame: `shop.Cart.total(Cart.kt:16)`")
    probe: int = Field(description="the probe's index in the call's `probes`")
    hit: int = Field(description="1, 2, … for this probe")
    thread: str
    locals: list[ProbeLocalItem] = Field(default_factory=list, description="the variables live at that point")
    this: str | None = Field(default=None, description="`this` as text; null in a static method")
    captured: list[ProbeCaptureItem] = Field(default_factory=list)
    stack: list[str] = Field(
        default_factory=list, description="the project's and the snippet's frames, innermost first"
    )
    notes: list[str] = Field(default_factory=list, description="what the hit could not record")


class FailureFrameItem(Wire):
    """A frame of a failure's stack and what it held the last time it reached its line (explainFailures)."""

    at: str = Field(description="the frame: `shop.Cart.total(Cart.kt:16)`")
    locals: list[ProbeLocalItem] = Field(default_factory=list)
    this: str | None = None


class SnippetError(Wire):
    kind: RunErrorKind = Field(
        description="compile, runtime, timeout, cancelled, exited (System.exit or a crash), out_of_memory, "
        "internal, protocol (the worker broke the protocol), probe (a probe could not be set: nothing ran) or request "
        "(the call could not run the snippet)"
    )
    message: str
    stack: str = Field(default="", description="the stack trimmed to the snippet's frames, for runtime errors")
    state_lost: bool = Field(default=False, description="the session's JVM is gone, and its state with it")


class SnippetRun(Wire):
    """The result of run_kotlin_snippet."""

    ok: bool = Field(description="false exactly when the call's isError is true")
    value: str | None = Field(
        default=None,
        description="the last expression's value as text; null for no value or an image (sent as image content)",
    )
    value_type: str | None = Field(
        default=None, description="the value's Kotlin type, e.g. kotlin.collections.List<kotlin.Int>"
    )
    value_kind: DisplayKind | None = None
    value_mime: str | None = Field(
        default=None, description="the value's MIME type: text/plain, text/markdown, text/html, image/png, ..."
    )
    error: SnippetError | None = None
    diagnostics: list[SnippetDiagnostic] = Field(
        default_factory=list, description="the compiler's errors and warnings, line and column 1-based in the snippet"
    )
    stdout: str = ""
    stderr: str = ""
    display_count: int = Field(
        default=0, description="items the snippet showed with display(), markdown(), html(), image()"
    )
    displays: list[DisplayItem] = Field(default_factory=list, description="those items, in the order shown")
    truncated_bytes: int = Field(default=0, description="output cut by the output limits")
    notices: list[NoticeItem] = Field(
        default_factory=list, description="what the session went through besides the snippet"
    )
    probe_hits: list[ProbeHitItem] = Field(default_factory=list, description="the call's probes' hits, in order")
    probe_notes: list[str] = Field(
        default_factory=list, description="what happened to a probe besides its hits (taken out, hits left out)"
    )
    duration_ms: int = 0


class SessionList(Wire):
    """The result of list_kotlin_sessions."""

    sessions: list[LiveSession]


class ProbeStateItem(Wire):
    """A probe set with add_kotlin_probe, as the session holds it."""

    probe_id: int
    at: str
    hits: int = Field(description="how often it fired so far (up to its maxHits)")
    active: bool = Field(description="still in the code: not past its maxHits or its expiry, not removed")


class SessionProbeHits(Wire):
    """add_kotlin_probe's, read_kotlin_probe_hits' and remove_kotlin_probe's data."""

    ok: bool = Field(description="false exactly when the call's isError is true")
    probe_id: int | None = Field(default=None, description="the probe add_kotlin_probe set")
    hits: list[ProbeHitItem] = Field(
        default_factory=list, description="the hits since the last read, in order; each hit's `probe` is its probeId"
    )
    probes: list[ProbeStateItem] = Field(default_factory=list, description="every probe of the session")
    notes: list[str] = Field(default_factory=list, description="what happened to a probe besides its hits")
    error: SnippetError | None = None
    notices: list[NoticeItem] = Field(default_factory=list)


class SessionContents(Wire):
    """The result of describe_kotlin_session."""

    session_id: str
    imports: list[str] = Field(default_factory=list)
    libraries: list[str] = Field(default_factory=list, description="coordinates added with @file:DependsOn, in order")
    declarations: list[DeclaredName] = Field(
        default_factory=list, description="as the REPL resolves them now, oldest first"
    )
    options: SessionOptionValues = Field(
        default_factory=SessionOptionValues, description="the session options it runs with; secret-like values masked"
    )
    attached_pid: int | None = Field(
        default=None, description="the running JVM the session is attached to (its values are read there), when it is"
    )
    attached_address: str | None = Field(
        default=None, description="the agent (host:port) the session is attached to over TCP, when it is"
    )
    probes: list[ProbeStateItem] = Field(default_factory=list, description="its probes set with add_kotlin_probe")


class CodeCheck(Wire):
    """The result of check_kotlin_snippet."""

    ok: bool = Field(
        description="true when the code compiles (warnings allowed); false exactly when the call's isError is true"
    )
    value_type: str | None = Field(
        default=None, description="the last expression's Kotlin type, when it compiles and the REPL names it"
    )
    diagnostics: list[CheckDiagnostic] = Field(
        default_factory=list,
        description="the compiler's errors (first) and warnings, line and column 1-based in the code",
    )
    error: SnippetError | None = Field(
        default=None, description="why the code could not be checked at all (not a compile error)"
    )
    notices: list[NoticeItem] = Field(
        default_factory=list, description="what the session went through besides the check"
    )
    duration_ms: int = 0


class CodeCompletions(Wire):
    """The result of complete_kotlin_snippet."""

    ok: bool = Field(description="false exactly when the call's isError is true")
    items: list[CompletionItem] = Field(default_factory=list, description="best first, at most 50")
    prefix_start: int = Field(
        default=0, description="where the identifier prefix each item replaces starts, a 0-based offset into code"
    )
    unavailable: str | None = Field(default=None, description="why this session can't complete code, when it can't")
    error: SnippetError | None = None
    notices: list[NoticeItem] = Field(default_factory=list)
    duration_ms: int = 0


class SessionReset(Wire):
    """What reset_kotlin_session did to a session."""

    session_id: str
    outcome: Literal["reset", "not running", "restarted"] = Field(
        description="reset: its JVM was stopped and the next snippet starts a fresh one; not running: it had no JVM, "
        "nothing was done; restarted (replay=true): a new JVM runs now and the earlier snippets ran again"
    )
    notices: list[NoticeItem] = Field(
        default_factory=list,
        description="what the restart and the replay went through: the replayed notice says how many snippets ran again",
    )


class RunningJvmItem(Wire):
    """One JVM running on this machine (project/running_jvms.py's RunningJvm under Wire's naming)."""

    pid: int
    main: str = Field(description="the main class, or the jar of `java -jar`, as its command line names it")
    working_directory: str | None = Field(default=None, description="null when this user may not read it")
    java_version: str | None = Field(
        default=None, description="from its JDK's release file, e.g. 17.0.12; null when unknown"
    )
    java_home: str = Field(description="the JDK (or JRE) it runs on")
    user: str = Field(description="the user it runs as")
    attachable: bool = Field(description="whether attach_kotlin_session can attach a session to it")
    why_not: str | None = Field(default=None, description="why it can't be attached to, in one line; null when it can")
    has_kotlin: bool | None = Field(
        default=None,
        description="whether its class path has Kotlin: a session attached there compiles for that Kotlin; without one, for "
        "gradle-repl's, whose runtime the snippets are lent; null when its class path can't be read from its command line",
    )
    kotlin_version: str | None = Field(
        default=None,
        description="its kotlin-stdlib's version, e.g. 2.2.21; null when it has none or the jar doesn't say",
    )


class RunningJvms(Wire):
    """The result of list_running_jvms."""

    jvms: list[RunningJvmItem] = Field(default_factory=list, description="by pid; gradle-repl's own process left out")


class SessionAttached(Wire):
    """The result of attach_kotlin_session: the session now runs inside that JVM."""

    session_id: str
    pid: int | None = Field(description="the JVM's pid: the one attached to here, or as its agent names it over TCP")
    address: str | None = Field(default=None, description="the agent's host:port, when attached over TCP")
    same_run: bool | None = Field(
        default=None,
        description="over TCP, attached to this address before by this server: whether the app is the same run (true) "
        "or restarted since (false); null the first time",
    )
    app_uptime_seconds: float | None = Field(
        default=None, description="how long the app has run, by its own clock (over TCP; null when it doesn't say)"
    )
    kotlin_version: str = Field(
        description="the Kotlin snippets compile with (the project's, or that of the app's kotlin-stdlib)"
    )
    java_home: str = Field(description="the JDK snippets compile against: the app's (by pid), else one here")
    classpath_size: int = Field(description="entries of the app's classpath that snippets compile against")
    notices: list[NoticeItem] = Field(
        default_factory=list, description="what the user must know (a JDK warning, a reused agent, ...)"
    )


class ProjectEnvironment(Wire):
    """The result of resolve_gradle_environment: what snippets of a session on this project would see."""

    build_tool: str
    project_root: str
    project_path: str
    source_set: str
    kotlin_version: str = Field(description="the REPL compiler's version (the project's, when it has a K2 REPL)")
    project_kotlin_version: str | None = Field(default=None, description="the build's Kotlin, when it differs")
    java_home: str
    jvm_target: str | None = None
    classpath: list[str] = Field(description="the runtime classpath, the project's outputs first")
    compiler_plugin_classpath: list[str] = Field(default_factory=list, description="the compiler plugins' jars")
    compiler_plugin_options: list[str] = Field(default_factory=list, description="as -P plugin:<id>:<key>=<value>")
    compiler_args: list[str] = Field(
        default_factory=list, description="free compiler arguments that change compilation"
    )
    warnings: list[str] = Field(default_factory=list)
    origin: str = Field(description="from cache, or how long the build took")
    notices: list[str] = Field(
        default_factory=list, description="one line per build tool that could not run before the one used"
    )


class TestFailureItem(Wire):
    """One failed test: `test` as a selector names it (class and method), its display name, the exception's class and
    message, the stack's frames in the project's own code (`Class.method(File.kt:12)`), and what it printed."""

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
    frames: list[FailureFrameItem] = Field(
        default_factory=list,
        description="with explainFailures: each project frame from the test method to the throwing one, with what it "
        "held the last time it reached its line before the failure",
    )


class ProjectTestRun(Wire):
    """run_project_tests' data: the counts, each failure, and what the size limit cut."""

    ok: bool = Field(
        description="false exactly when the call's isError is true: the tests could not run (failing tests are not an error)"
    )
    passed: int = 0
    failed: int = 0
    skipped: int = Field(default=0, description="disabled tests (@Disabled, @Ignore)")
    aborted: int = Field(default=0, description="tests that ended on a failed assumption")
    duration_ms: int = 0
    failures: list[TestFailureItem] = Field(default_factory=list)
    stopped: str | None = Field(
        default=None, description="why the run ended before its tests did (a timeout, a cancel)"
    )
    cut: str | None = Field(
        default=None, description="what the result's size limit left out (failures, output), when it left out any"
    )
    error: SnippetError | None = Field(default=None, description="why the tests could not run")
    notices: list[NoticeItem] = Field(default_factory=list, description="what the session went through besides the run")
    probe_hits: list[ProbeHitItem] = Field(default_factory=list, description="the call's probes' hits, in order")
    probe_notes: list[str] = Field(
        default_factory=list, description="what happened to a probe besides its hits (taken out, hits left out)"
    )
