"""What the tools return as data (MCP `structuredContent`), one pydantic model per tool that returns data.

Each model is the tool's declared `outputSchema` (the SDK derives it from the tool's return annotation,
`Annotated[CallToolResult, Model]`) and `front/content.py` fills it beside the text and image content, which
stay as they are for clients that read text only. Names on the wire are camelCase, as the tools' arguments are.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from gradle_repl.display_kinds import DisplayKind
from gradle_repl.frames import CodeDiagnostic, CompilerDiagnostic, Completion, Declaration, ErrorKind
from gradle_repl.host.notices import Notice
from gradle_repl.host.sessions import SessionInfo

__all__ = ["Wire", "SnippetError", "SnippetRun", "SessionList", "SessionContents", "RunErrorKind", "CodeCheck", "CodeCompletions"]

# A snippet's error kinds, and `request`: the call could not run the snippet (bad arguments, a build that failed,
# a JVM that could not start); the session, if it had one, is as it was.
RunErrorKind = Literal[ErrorKind, "request"]


class Wire(BaseModel):
    """A model as clients read it: camelCase names, built from Python's snake_case."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, serialize_by_alias=True)


class SnippetError(Wire):
    kind: RunErrorKind = Field(
        description="compile, runtime, timeout, cancelled, exited (System.exit or a crash), out_of_memory, "
        "internal, protocol (the worker broke the protocol) or request (the call could not run the snippet)"
    )
    message: str
    stack: str = Field(default="", description="the stack trimmed to the snippet's frames, for runtime errors")
    state_lost: bool = Field(default=False, description="the session's JVM is gone, and its state with it")


class SnippetRun(Wire):
    """The result of run_kotlin_snippet."""

    ok: bool = Field(description="false exactly when the call's isError is true")
    value: str | None = Field(
        default=None, description="the last expression's value as text; null for no value or an image (sent as image content)"
    )
    value_type: str | None = Field(default=None, description="the value's Kotlin type, e.g. kotlin.collections.List<kotlin.Int>")
    value_kind: DisplayKind | None = None
    error: SnippetError | None = None
    diagnostics: list[CompilerDiagnostic] = Field(
        default_factory=list, description="the compiler's errors and warnings, line and column 1-based in the snippet"
    )
    stdout: str = ""
    stderr: str = ""
    display_count: int = Field(default=0, description="items the snippet showed with display(), markdown(), html(), image()")
    truncated_bytes: int = Field(default=0, description="output cut by the output limits")
    notices: list[Notice] = Field(default_factory=list, description="what the session went through besides the snippet")
    duration_ms: int = 0


class SessionList(Wire):
    """The result of list_kotlin_sessions."""

    sessions: list[SessionInfo]


class SessionContents(Wire):
    """The result of describe_kotlin_session."""

    session_id: str
    imports: list[str] = Field(default_factory=list)
    libraries: list[str] = Field(default_factory=list, description="coordinates added with @file:DependsOn, in order")
    declarations: list[Declaration] = Field(default_factory=list, description="as the REPL resolves them now, oldest first")
    options: dict[str, Any] = Field(
        default_factory=dict, description="the session options it runs with (env, envSource, jvmArgs, optIn); secret-like values masked"
    )


class CodeCheck(Wire):
    """The result of check_kotlin_snippet."""

    ok: bool = Field(description="true when the code compiles (warnings allowed); false exactly when the call's isError is true")
    value_type: str | None = Field(default=None, description="the last expression's Kotlin type, when it compiles and the REPL names it")
    diagnostics: list[CodeDiagnostic] = Field(
        default_factory=list, description="the compiler's errors (first) and warnings, line and column 1-based in the code"
    )
    error: SnippetError | None = Field(default=None, description="why the code could not be checked at all (not a compile error)")
    notices: list[Notice] = Field(default_factory=list, description="what the session went through besides the check")
    duration_ms: int = 0


class CodeCompletions(Wire):
    """The result of complete_kotlin_snippet."""

    ok: bool = Field(description="false exactly when the call's isError is true")
    items: list[Completion] = Field(default_factory=list, description="best first, at most 50")
    prefix_start: int = Field(default=0, description="where the identifier prefix each item replaces starts, a 0-based offset into code")
    unavailable: str | None = Field(default=None, description="why this session can't complete code, when it can't")
    error: SnippetError | None = None
    notices: list[Notice] = Field(default_factory=list)
    duration_ms: int = 0
