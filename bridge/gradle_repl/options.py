"""A session's own options, chosen by whoever starts it: environment variables, JVM flags, opt-ins.

They travel with the session's environment (`ReplEnvironment.session_options`), so a session whose options change is
restarted like one whose build changed, and a warmed spare worker (started without options) never serves one that
has them. The host turns `env`/`env_source` into the worker process's variables (host/session_env.py); the worker
passes `jvm_args` to its JVM and `opt_in` to the compiler.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from gradle_repl.errors import GradleReplError

__all__ = ["EnvSource", "SessionOptions", "session_options", "masked", "looks_secret", "JVM_FLAG_REFUSALS"]

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


class SessionOptions(BaseModel):
    """What a session's first call may choose; the defaults are a session as gradle-repl starts it anyway."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    env: dict[str, str] = Field(default_factory=dict, description="variables for the session's JVM, over env_source's")
    env_source: EnvSource = Field(
        default="inherit",
        description="where the JVM's other variables come from: none (only env and gradle-repl's own), inherit (the "
        "server's), shell (the user's login shell's, read once)",
    )
    jvm_args: tuple[str, ...] = Field(
        default=(), description="system properties and JVM flags; flags that would break the worker are refused"
    )
    opt_in: tuple[str, ...] = Field(default=(), description="annotation names passed to the compiler as -opt-in")

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
            update={
                "env": {name: masked(name, value) for name, value in sorted(self.env.items())},
                "jvm_args": tuple(_masked_flag(flag) for flag in self.jvm_args),
            }
        )

    def summary(self) -> str:
        shown = self.masked()
        parts = [f"envSource {self.env_source}"]
        if self.env:
            parts.append("env " + " ".join(f"{k}={v}" for k, v in shown.env.items()))
        if self.jvm_args:
            parts.append("jvmArgs " + " ".join(shown.jvm_args))
        if self.opt_in:
            parts.append("optIn " + " ".join(self.opt_in))
        return "; ".join(parts)


def session_options(
    *, env: dict[str, str] | None, env_source: EnvSource | None, jvm_args: list[str] | None, opt_in: list[str] | None
) -> SessionOptions | None:
    """The options a call gives, or None when it gives none (the session keeps its own); a bad one is one clear error.
    Given options replace the session's as a whole: what a call leaves out of them is the default."""
    if env is None and env_source is None and jvm_args is None and opt_in is None:
        return None
    try:
        return SessionOptions(
            env=env or {},
            env_source=env_source or "inherit",
            jvm_args=tuple(jvm_args or ()),
            opt_in=tuple(opt_in or ()),
        )
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
