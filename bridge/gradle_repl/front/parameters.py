"""The tools' shared parameters: each parameter's type and the description clients read, written once for every tool
that takes it (front/server.py's session tools, front/attach_tools.py's attach), and the session options' parameters,
made from their one declaration (options.SESSION_OPTIONS)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

from pydantic import Field

from gradle_repl.environment import BuildToolChoice
from gradle_repl.frames import Probe
from gradle_repl.front.outputs import Wire
from gradle_repl.options import SESSION_OPTIONS, SessionOptions, session_options
from gradle_repl.settings import DEFAULTS

__all__ = [
    "ProjectRoot",
    "SessionProjectRoot",
    "ProjectPath",
    "SourceSet",
    "SessionId",
    "BuildToolArg",
    "ProbeSpec",
    "Probes",
    "probes_of",
    "with_session_options",
    "given_options",
]

ProjectRoot = Annotated[str, Field(description="Absolute path of the Gradle or Maven project's root directory.")]
SessionProjectRoot = Annotated[
    str | None,
    Field(
        description="Absolute path of the Gradle or Maven project's root directory; may be left out for a session "
        "attached to a running JVM (attach_kotlin_session)."
    ),
]
ProjectPath = Annotated[
    str,
    Field(
        description="Gradle project path (':' for the root, ':app' for a subproject) or Maven module (dir or artifactId)."
    ),
]
SourceSet = Annotated[
    str,
    Field(
        description="Source set whose classpath the snippet sees: 'main' or 'test', another Gradle source set, or a Kotlin "
        "Multiplatform JVM compilation ('jvmMain', 'desktopMain', 'jvmTest'; 'main' when the project has one JVM target)."
    ),
]
SessionId = Annotated[str, Field(description="Names the REPL session; calls with the same id share state.")]
BuildToolArg = Annotated[
    BuildToolChoice,
    Field(
        description="'auto' uses the build tool that last worked for this project, else Gradle when its build files "
        "exist, else Maven; when one can't run and the other's build files exist, the other is used and the reply says so."
    ),
]


class ProbeSpec(Wire):
    """A probe, as a call gives it (camelCase; the worker's frames.Probe is made from it)."""

    at: str = Field(
        description="Where: `Cart.kt:16` (a source file of the project, main or test), `shop/Cart.kt:16` where names "
        "repeat, or `shop.Cart:16`. It fires each time a thread reaches the start of that line, before the line runs."
    )
    when: str | None = Field(
        default=None,
        description="A Kotlin Boolean expression: record only when it holds. It sees what code at that line sees: "
        "locals, `this` and its members, private ones too.",
    )
    capture: list[str] = Field(
        default_factory=list, description="Kotlin expressions recorded at each hit, seeing what `when` sees."
    )
    max_hits: int = Field(
        default=DEFAULTS.probe_max_hits,
        description=f"Hits recorded at most (default {DEFAULTS.probe_max_hits}, at most "
        f"{DEFAULTS.probe_max_hits_cap}); then the probe takes itself out of the code.",
    )


Probes = Annotated[
    list[ProbeSpec] | None,
    Field(
        description="Probes for this call only (like a debugger's logpoints, no thread stopped): set before the code "
        "runs, gone when it ends. Each hit records the line's locals, `this` and the captures; the reply lists them "
        f"(probeHits). At most {DEFAULTS.probes_per_call}."
    ),
]


def probes_of(given: list[ProbeSpec] | None) -> list[Probe]:
    """A call's probes as the worker takes them."""
    return [Probe(at=p.at, when=p.when, capture=p.capture, max_hits=p.max_hits) for p in given or []]


_Tool = TypeVar("_Tool", bound=Callable[..., Any])


def with_session_options(tool: _Tool) -> _Tool:
    """A tool that takes `**options`, published with a parameter per session option in their place: its camelCase
    name, its type or null (left out: null), "Session option: " and its description. The SDK reads a tool's parameters
    from its signature (`inspect.signature`, which answers `__signature__`); a call passes them by those names, and
    `given_options` reads them."""
    signature = inspect.signature(tool, eval_str=True)
    own = list(signature.parameters.values())
    if not own or own[-1].kind is not inspect.Parameter.VAR_KEYWORD:
        raise TypeError(f"{tool.__name__} takes the session options as **options")
    options = [
        inspect.Parameter(
            option.wire_name,
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=Annotated[option.type | None, Field(description=f"Session option: {option.description}")],
        )
        for option in SESSION_OPTIONS
    ]
    tool.__signature__ = signature.replace(parameters=[*own[:-1], *options])  # type: ignore[attr-defined]
    return tool


def given_options(arguments: Mapping[str, object]) -> SessionOptions | None:
    """The session options a tool call gives (its `**options`, by camelCase name), or None when it gives none."""
    unknown = set(arguments) - {option.wire_name for option in SESSION_OPTIONS}
    if unknown:
        raise TypeError(f"not session options: {sorted(unknown)}")
    return session_options(**{option.name: arguments.get(option.wire_name) for option in SESSION_OPTIONS})
