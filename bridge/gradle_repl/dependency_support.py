"""Kotlin scripting's Maven resolver for `@file:DependsOn`, fetched for the session's Kotlin version.

Optional by design: it is a few dozen jars from Maven Central that a mirror may lack (or no `mvn` is
there to fetch them); a session without it runs as usual and answers a snippet that asks for a
library with the reason.
"""

from __future__ import annotations

from .environment import ReplEnvironment
from .errors import GradleReplError
from .process import ProgressCallback
from .toolchain import dependency_resolver_coordinates, resolve_jars

__all__ = ["DEPENDS_ON_UNAVAILABLE", "with_dependency_resolver"]

# How a warning saying why a session can't add libraries begins; the worker repeats it to a snippet that asks.
DEPENDS_ON_UNAVAILABLE = "@file:DependsOn is unavailable"


def with_dependency_resolver(environment: ReplEnvironment, on_progress: ProgressCallback | None = None) -> None:
    """Sets environment.dependency_resolver_classpath, or says in a warning why @file:DependsOn is unavailable."""
    try:
        jars = resolve_jars({"resolver": dependency_resolver_coordinates(environment.kotlin_version)}, on_progress=on_progress)
    except GradleReplError as error:
        first_line = (str(error).strip().splitlines() or ["unknown error"])[0]
        environment.warnings.append(
            f"{DEPENDS_ON_UNAVAILABLE}: Kotlin scripting's Maven resolver for Kotlin {environment.kotlin_version} "
            f"could not be fetched ({first_line[:200]})"
        )
        return
    environment.dependency_resolver_classpath = jars.by_request["resolver"]
