"""A session's own options, chosen by whoever starts it: environment variables, JVM flags, opt-ins.

Each option is declared once, as a field of `SessionOptions`: its name, type, default and description, and its
`Option` (the command-line flag, and how describe masks it when it may hold a secret). The fronts make the rest from
`SESSION_OPTIONS`: run_kotlin_snippet's parameters (front/parameters.py, the camelCase name and "Session option: " with
the description), eval's and repl's flags (front/cli.py), describe's model of them (front/outputs.py); here
`session_options()`, `masked()` and `summary()` read them too. A new option is a field and, when it needs one, a
validator; then where it takes effect.

They travel with the session's environment (`ReplEnvironment.session_options`), so a session whose options change is
restarted like one whose build changed, and a warmed spare worker (started without options) never serves one that
has them. The host turns `env`/`env_source` into the worker process's variables (host/session_env.py); the worker
passes `jvm_args` to its JVM and `opt_in` to the compiler.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel
from pydantic.fields import FieldInfo

from gradle_repl.errors import GradleReplError

__all__ = [
    "EnvSource",
    "Option",
    "SessionOption",
    "SessionOptions",
    "SESSION_OPTIONS",
    "session_options",
    "masked",
    "looks_secret",
    "JVM_FLAG_REFUSALS",
]

EnvSource = Literal["none", "inherit", "shell"]

# A name like these holds a secret: describe shows its value as "***".
_SECRET_NAME = re.compile(r"(?i)(secret|token|passw|pwd|key|credential|auth|private|session|cookie|signature)")
MASK = "***"

# Flags that would break the worker, each with why (the JVM takes the last of a repeated flag, so they can't be
# allowed to override what the worker sets; the rest end or disable what the worker relies on).
JVM_FLAG_REFUSALS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), why)
    for pattern, why in (
        (r"-Xmx.*|-XX:MaxHeapSize=.*", "the heap cap is the server's (--heap-mb)"),
        (r"-cp|-classpath|--class-path.*|-Djava\.class\.path=.*|-jar", "the JVM's class path is the REPL's own"),
        (
            r"-version|--version|-showversion|--show-version|-help|--help|-h|-\?|--dry-run|-X",
            "it ends the JVM before it starts",
        ),
        (
            r"-Xshare:.*|-XX:SharedArchiveFile=.*|-XX:ArchiveClassesAtExit=.*",
            "class-data sharing is managed by gradle-repl",
        ),
        (r"-XX:[+-]?Use\w*GC", "the session's JVM runs the serial collector, and two collectors can't be chosen"),
        (
            r"-XX:\+ExitOnOutOfMemoryError|-XX:\+CrashOnOutOfMemoryError|-XX:OnOutOfMemoryError=.*",
            "the worker reports an OutOfMemoryError itself",
        ),
        (r"-Djava\.security\.manager(=.*)?", "the worker's exit guard sets the security manager"),
        (r"-Djava\.system\.class\.loader=.*", "snippets load through the REPL's class loaders"),
        (r"-XX:Flags=.*|-XX:VMOptionsFile=.*", "flags from a file can't be checked"),
    )
)
# Module flags take their value in the same argument (--add-opens=java.base/java.lang=ALL-UNNAMED); jvmArgs are
# checked one by one, so a value in the next argument would be checked (and refused) as a flag of its own.
_MODULE_FLAG = re.compile(r"(--add-(?:opens|exports|modules|reads))(\s.*)?")
# An initial heap, in bytes with an optional k/m/g unit, as the JVM reads it.
_INITIAL_HEAP = re.compile(r"(?:-Xms|-XX:InitialHeapSize=|-XX:MinHeapSize=)(\d+)([kKmMgG]?)")
_UNIT_BYTES = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}
_OPT_IN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Option:
    """What a field of SessionOptions declares beside its name, type, default and description.

    `flag` is eval's and repl's flag for it (front/cli.py makes it from the field's type: a Literal's values are its
    choices, a tuple or dict field's flag is repeated, one value each, written as `metavar`); `masked`, for an option
    that may hold a secret, is its value as describe and the restart notice show it."""

    flag: str
    metavar: str | None = None
    masked: Callable[[Any], Any] | None = None


def _masked_variables(env: dict[str, str]) -> dict[str, str]:
    return {name: masked(name, value) for name, value in sorted(env.items())}


def _masked_flags(flags: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(_masked_flag(flag) for flag in flags)


class SessionOptions(BaseModel):
    """What a session's first call may choose; the defaults are a session as gradle-repl starts it anyway.

    A field is an option (module docstring): its description is what clients and `--help` read."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # In the order summary() lists them: where the JVM's variables come from, then what the session adds.
    env_source: Annotated[EnvSource, Option("--env-source")] = Field(
        default="inherit",
        description="the JVM's other variables: 'inherit' (those gradle-repl runs with, the default), 'shell' (the "
        "user's login shell's: PATH, JAVA_HOME as in a terminal) or 'none'.",
    )
    env: Annotated[dict[str, str], Option("--env", metavar="NAME=VALUE", masked=_masked_variables)] = Field(
        default_factory=dict, description="environment variables for the session's JVM, over the env source's."
    )
    jvm_args: Annotated[tuple[str, ...], Option("--jvm-arg", metavar="FLAG", masked=_masked_flags)] = Field(
        default_factory=tuple,
        description="system properties and JVM flags (-Dkey=value, --add-opens=...); flags that would break the "
        "session (heap, class path, GC choice, ...) are refused.",
    )
    opt_in: Annotated[tuple[str, ...], Option("--opt-in", metavar="ANNOTATION")] = Field(
        default_factory=tuple,
        description="annotation names the compiler opts in to (-opt-in), e.g. kotlin.ExperimentalUnsignedTypes.",
    )

    @field_validator("env")
    @classmethod
    def _names(cls, env: dict[str, str]) -> dict[str, str]:
        for name, value in env.items():
            if not _VARIABLE.fullmatch(name):
                raise ValueError(f"env: {name!r} is not a variable name (letters, digits and _, not first a digit)")
            if "\0" in value:
                raise ValueError(f"env: {name}'s value holds a NUL character")
        return env

    @field_validator("jvm_args")
    @classmethod
    def _flags(cls, flags: tuple[str, ...]) -> tuple[str, ...]:
        for flag in flags:
            if flag.startswith("@"):
                raise ValueError(f"jvmArgs: {flag!r} is refused: flags from a file can't be checked")
            if not flag.startswith("-"):
                raise ValueError(
                    f"jvmArgs: {flag!r} is not a JVM flag (flags start with '-': -Dname=value, -XX:..., "
                    "--add-opens=module/package=ALL-UNNAMED; a flag's value goes in the same argument, after '=')"
                )
            if module_flag := _MODULE_FLAG.fullmatch(flag):
                name = module_flag[1]
                raise ValueError(
                    f"jvmArgs: {flag!r} needs its value after '=' in the same argument, e.g. "
                    f"{name}={'java.base' if name == '--add-modules' else 'java.base/java.lang=ALL-UNNAMED'}"
                )
            for pattern, why in JVM_FLAG_REFUSALS:
                if pattern.fullmatch(flag):
                    raise ValueError(f"jvmArgs: {flag!r} is refused: {why}")
        return flags

    def check_heap(self, heap_mb: int) -> None:
        """Refuses an initial heap (-Xms, -XX:InitialHeapSize, -XX:MinHeapSize) above the session's cap: the JVM
        would not start."""
        for flag in self.jvm_args:
            if found := _INITIAL_HEAP.fullmatch(flag):
                asked = int(found[1]) * _UNIT_BYTES[found[2].lower()]
                if asked > heap_mb * 1024**2:
                    raise GradleReplError(
                        f"jvmArgs: {flag!r} asks for an initial heap of {asked / 1024**2:g} MB, above the session's "
                        f"heap cap of {heap_mb} MB (--heap-mb): lower it or raise the cap"
                    )

    @field_validator("opt_in")
    @classmethod
    def _annotations(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        for name in names:
            if not _OPT_IN.fullmatch(name):
                raise ValueError(f"optIn: {name!r} is not an annotation's name (e.g. kotlin.ExperimentalUnsignedTypes)")
        return names

    def is_default(self) -> bool:
        return self == SessionOptions()

    def compiler_options(self) -> list[str]:
        return [f"-opt-in={name}" for name in self.opt_in]

    def masked(self) -> SessionOptions:
        """The options as describe shows them: a secret-like variable's or property's value masked."""
        return self.model_copy(
            update={o.name: o.masked(getattr(self, o.name)) for o in SESSION_OPTIONS if o.masked is not None}
        )

    def summary(self) -> str:
        """`envSource inherit; env A=1; jvmArgs -Dk=v`: each option but an empty one, masked, under its wire name."""
        shown = self.masked()
        return "; ".join(f"{o.wire_name} {words}" for o in SESSION_OPTIONS if (words := _words(getattr(shown, o.name))))


def _words(value: object) -> str:
    """A value as summary() writes it: a dict's items as NAME=VALUE, a tuple's items, each after a space."""
    if isinstance(value, dict):
        return " ".join(f"{name}={each}" for name, each in value.items())
    if isinstance(value, tuple):
        return " ".join(map(str, value))
    return str(value)


@dataclass(frozen=True)
class SessionOption:
    """One option as the fronts make it: a field of SessionOptions read with its Option."""

    name: str  # the field's: jvm_args
    wire_name: str  # the tool's parameter and describe's field: jvmArgs
    type: Any  # the field's: tuple[str, ...]
    description: str
    field: FieldInfo  # its default
    flag: str
    metavar: str | None
    masked: Callable[[Any], Any] | None


def _declared(name: str, field: FieldInfo) -> SessionOption:
    option = next((m for m in field.metadata if isinstance(m, Option)), None)
    if option is None or not field.description:
        raise TypeError(f"SessionOptions.{name}: a session option needs its description and its Option(...)")
    return SessionOption(
        name=name,
        wire_name=to_camel(name),
        type=field.annotation,
        description=field.description,
        field=field,
        flag=option.flag,
        metavar=option.metavar,
        masked=option.masked,
    )


# Every session option, in SessionOptions' order.
SESSION_OPTIONS = tuple(_declared(name, field) for name, field in SessionOptions.model_fields.items())


def session_options(**given: object) -> SessionOptions | None:
    """The options a call gives, by field name, None for one it leaves out; None when it gives none (the session
    keeps its own); a bad one is one clear error. Given options replace the session's as a whole: what a call leaves
    out of them is the default."""
    chosen = {name: value for name, value in given.items() if value is not None}
    if not chosen:
        return None
    try:
        return SessionOptions.model_validate(chosen)
    except ValidationError as error:
        raise GradleReplError("; ".join(str(e["msg"]).removeprefix("Value error, ") for e in error.errors())) from None


def looks_secret(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def masked(name: str, value: str) -> str:
    return MASK if looks_secret(name) else value


def _masked_flag(flag: str) -> str:
    """`-Dname=value` with a secret-like name shows `-Dname=***`."""
    if flag.startswith("-D") and "=" in flag:
        name, value = flag[2:].split("=", 1)
        return f"-D{name}={masked(name, value)}"
    return flag
