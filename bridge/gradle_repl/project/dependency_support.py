"""Kotlin scripting's Maven resolver for `@file:DependsOn`, fetched for the session's Kotlin version.

Optional by design: it is a few dozen jars from Maven Central that a mirror may lack (or no `mvn` is
there to fetch them); a session without it runs as usual and answers a snippet that asks for a
library with the reason.
"""

from __future__ import annotations

import re

from gradle_repl.environment import DEPENDS_ON_UNAVAILABLE, ReplEnvironment
from gradle_repl.errors import GradleReplError
from gradle_repl.project.process import ProgressCallback, plain_text
from gradle_repl.project.toolchain import Coordinate, dependency_resolver_coordinates, resolve_jars

__all__ = ["add_dependency_resolver", "dependency_resolver_request", "why_not_fetched"]

# How a warning saying why a session can't add libraries begins; the worker repeats it to a snippet that asks.
# The warning is repeated in each session's first reply: a reason past this length is cut, saying how much.
REASON_CHARS = 300
# A Maven artifact as its error lines name it: group:artifact:type[:classifier]:version.
_ARTIFACT = re.compile(r"[\w.-]+(?::[\w.-]+){3,4}")
# The throwaway project the toolchain resolves through, which Maven names in every error too.
_TOOLCHAIN_PROJECT = "gradle-repl.toolchain:"


def dependency_resolver_request(kotlin_version: str) -> dict[str, list[Coordinate]]:
    """The resolver's jars as one toolchain request: asked for alike, a fetch made ahead of the resolve (a Maven first
    run's) and the resolve's own find the same cache entry."""
    return {"resolver": dependency_resolver_coordinates(kotlin_version)}


def add_dependency_resolver(environment: ReplEnvironment, on_progress: ProgressCallback | None = None) -> None:
    """Sets environment.dependency_resolver_classpath, or says in a warning why @file:DependsOn is unavailable
    (the environment is changed, not copied)."""
    try:
        jars = resolve_jars(dependency_resolver_request(environment.kotlin_version), on_progress=on_progress)
    except GradleReplError as error:
        reason = (
            f"{DEPENDS_ON_UNAVAILABLE}: Kotlin scripting's Maven resolver for Kotlin {environment.kotlin_version} "
            f"could not be fetched ({why_not_fetched(str(error))})"
        )
        environment.dependency_resolver_unavailable = reason
        environment.warnings.append(reason)
        return
    environment.dependency_resolver_classpath = jars.by_request["resolver"]


def why_not_fetched(error: str) -> str:
    """The useful part of a failed fetch: the artifacts Maven's error lines name, each whole; else the error's
    first line, cut at REASON_CHARS only with a note of how much was cut."""
    lines = [plain_text(line).strip() for line in error.strip().splitlines()]
    named = [
        a
        for line in lines
        if line.startswith("[ERROR]")
        for a in _ARTIFACT.findall(line)
        if not a.startswith(_TOOLCHAIN_PROJECT)
    ]
    if named:
        return f"Maven could not resolve {', '.join(dict.fromkeys(named))}"
    first = next((line for line in lines if line), "unknown error")
    cut = len(first) - REASON_CHARS
    return f"{first[:REASON_CHARS]}… ({cut} more characters)" if cut > 0 else first
