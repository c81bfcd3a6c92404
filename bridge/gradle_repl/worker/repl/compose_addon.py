"""A session's Compose add-on: `renderComposable` for projects with Compose UI for the JVM whose snippets get the
Compose compiler plugin. It is compiled against the project's own Compose (so its calls match that version), goes
on the snippets' classpath and is a default import; no other session loads or compiles any of it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gradle_repl.environment import COMPOSE_PLUGIN_MISSING, ReplEnvironment
from gradle_repl.errors import WorkerFailed
from gradle_repl.worker.artifacts.facade import build_compose_addon

__all__ = ["ComposeAddon", "compose_addon"]

# The add-on's package, imported into every snippet of a session that has it.
_IMPORT = "gradlerepl.compose.*"
# The add-on's JVM target where the build names none: Compose for desktop's own, which its inline functions need.
_DEFAULT_JVM_TARGET = "11"
_UNAVAILABLE = "renderComposable is unavailable in this session"


@dataclass(frozen=True)
class ComposeAddon:
    jar: Path | None = None
    unavailable: str | None = None  # why renderComposable is missing from a Compose project's session

    @property
    def imports(self) -> list[str]:
        return [_IMPORT] if self.jar is not None else []

    @property
    def classpath(self) -> list[str]:
        return [str(self.jar)] if self.jar is not None else []


def compose_addon(environment: ReplEnvironment, compile_classpath: list[str]) -> ComposeAddon:
    """The add-on of this session, compiled on first use; or why there is none (None for a project without Compose)."""
    if not environment.has_compose_ui():
        return ComposeAddon()
    plugin = environment.compose_compiler_plugin()
    if plugin is None:
        said = next((w for w in environment.warnings if w.startswith(COMPOSE_PLUGIN_MISSING)), COMPOSE_PLUGIN_MISSING)
        return ComposeAddon(unavailable=f"{_UNAVAILABLE}: {said}")
    try:
        jar, _ = build_compose_addon(
            environment.kotlin_version, compile_classpath, plugin, environment.jvm_target or _DEFAULT_JVM_TARGET
        )
    except WorkerFailed as error:
        detail = next((line for line in str(error).splitlines()[1:] if line.strip()), str(error).splitlines()[0])
        return ComposeAddon(
            unavailable=f"{_UNAVAILABLE}: it did not compile against the project's Compose ({detail.strip()})"
        )
    return ComposeAddon(jar=jar)
