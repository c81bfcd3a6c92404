"""What a session of a project with Compose UI for the JVM lacks, said once when its JVM starts: the Compose compiler
plugin (without it snippets can't declare @Composable functions) or Skiko's native library (without it nothing draws,
and the error Skiko gives names a file, not the artifact to add)."""

from __future__ import annotations

import platform
import re
from pathlib import Path

from gradle_repl.environment import COMPOSE_PLUGIN_MISSING, SKIKO_RUNTIME_MISSING, ReplEnvironment

__all__ = ["compose_warnings", "skiko_runtime_artifact"]

# Skiko's Java part (org.jetbrains.skiko:skiko-awt, which Compose UI depends on) and its native runtime, one artifact
# per OS and architecture (skiko-awt-runtime-linux-x64), which a build adds itself (Gradle: compose.desktop.currentOs).
_SKIKO_JAR = re.compile(r"skiko-awt-(\d[\w.+-]*)\.jar")
_SKIKO_RUNTIME_JAR = re.compile(r"skiko-awt-runtime-[\w.+-]+\.jar")
# Skiko's names for them (its hostOs and hostArch).
_SKIKO_OS = {"linux": "linux", "darwin": "macos", "windows": "windows"}
_SKIKO_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}


def compose_warnings(environment: ReplEnvironment) -> list[str]:
    """One line per thing a Compose session lacks; none for a project without Compose UI."""
    if not environment.has_compose_ui():
        return []
    warnings = []
    if environment.compose_compiler_plugin() is None:
        warnings.append(
            f"{COMPOSE_PLUGIN_MISSING}: they can't declare @Composable functions, and renderComposable is unavailable. "
            'Apply it in the build (Gradle: kotlin("plugin.compose"); Maven: org.jetbrains.kotlin:kotlin-compose-compiler-'
            "plugin-embeddable as a dependency of the kotlin-maven-plugin)"
        )
    names = [Path(entry).name for entry in environment.classpath]
    if not any(_SKIKO_RUNTIME_JAR.fullmatch(name) for name in names):
        version = next(
            (m.group(1) for name in names if (m := _SKIKO_JAR.fullmatch(name))), "<the Skiko version of skiko-awt>"
        )
        warnings.append(
            f"{SKIKO_RUNTIME_MISSING}: add org.jetbrains.skiko:{skiko_runtime_artifact()}:{version} to the project's "
            "runtime dependencies (Gradle: compose.desktop.currentOs)"
        )
    return warnings


def skiko_runtime_artifact(system: str | None = None, machine: str | None = None) -> str:
    """skiko-awt-runtime-<os>-<arch> of this machine (or of the one named), in Skiko's names."""
    os_name = (system or platform.system()).lower()
    arch = (machine or platform.machine()).lower()
    return f"skiko-awt-runtime-{_SKIKO_OS.get(os_name, os_name)}-{_SKIKO_ARCH.get(arch, arch)}"
