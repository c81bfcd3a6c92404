"""The Spring helpers of a session attached to a Spring Boot app: bean<T>(), bean(name), beanNames() and
applicationContext (jvm-worker/runs-in-app/spring). Inline functions compiled against the app's own Spring and put on the
snippets' compile classpath only: their bodies are compiled into each snippet, so nothing of them is loaded into the
app. (The REPL refuses inline functions declared in a snippet, so they can't be a first snippet of the session.)"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gradle_repl.errors import WorkerFailed
from gradle_repl.worker.artifacts.facade import build_spring_addon

__all__ = ["SpringHelpers", "spring_helpers"]

# Spring Boot's own jar (spring-boot-4.0.7.jar), not a starter's or an autoconfigure jar.
_SPRING_BOOT_JAR = re.compile(r"spring-boot-\d[\w.-]*\.jar")
# The Spring helpers' package, imported into every snippet of a session attached to a Spring Boot app.
_SPRING_IMPORT = "gradlerepl.attached.*"


@dataclass(frozen=True)
class SpringHelpers:
    """What the snippets of a session attached to a Spring Boot app compile with besides the app's classpath."""

    classpath: list[str]
    imports: list[str]
    unavailable: str | None = None  # why a Spring Boot app's session has no bean<T>()


def spring_helpers(compile_classpath: list[str], kotlin_version: str) -> SpringHelpers:
    """bean<T>(), bean(name), beanNames() and applicationContext for an app with Spring Boot on its classpath."""
    if not any(_SPRING_BOOT_JAR.fullmatch(Path(entry).name) for entry in compile_classpath):
        return SpringHelpers([], [])
    try:
        jar, _ = build_spring_addon(kotlin_version, compile_classpath)
    except WorkerFailed as error:
        return SpringHelpers(
            [],
            [],
            f"bean<T>() and applicationContext are unavailable: they did not compile against the app's Spring ({str(error).splitlines()[-1]})",
        )
    return SpringHelpers([str(jar)], [_SPRING_IMPORT])
