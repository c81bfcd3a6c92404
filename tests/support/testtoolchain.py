"""The jars a Gradle build would resolve for the REPL, fetched through Maven: what the Gradle-side tests compile
and run the init script with where no Gradle can run."""

from __future__ import annotations

from dataclasses import dataclass

from gradle_repl.progress import ProgressCallback
from gradle_repl.project.toolchain import (
    KOTLINX_SERIALIZATION_VERSION,
    PINNED_KOTLIN_VERSION,
    Coordinate,
    repl_host_coordinates,
    resolve_jars,
)


@dataclass(frozen=True)
class TestToolchain:
    kotlin_version: str
    repl_host: list[str]
    serialization_plugin: str
    serialization_runtime: list[str]


def fetch_test_toolchain(
    kotlin_version: str = PINNED_KOTLIN_VERSION, *, on_progress: ProgressCallback | None = None
) -> TestToolchain:
    """The jars a Gradle build would resolve for the REPL at kotlin_version, through Maven."""
    jars = resolve_jars(
        {
            "host": repl_host_coordinates(kotlin_version),
            "plugin": [
                Coordinate(
                    "org.jetbrains.kotlin", "kotlin-serialization-compiler-plugin-embeddable", kotlin_version, False
                )
            ],
            "runtime": [
                Coordinate("org.jetbrains.kotlinx", "kotlinx-serialization-json", KOTLINX_SERIALIZATION_VERSION)
            ],
        },
        on_progress=on_progress,
    )
    return TestToolchain(
        kotlin_version=kotlin_version,
        repl_host=jars.by_request["host"],
        serialization_plugin=jars.by_request["plugin"][0],
        serialization_runtime=jars.by_request["runtime"],
    )
