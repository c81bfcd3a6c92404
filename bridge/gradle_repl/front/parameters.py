"""The tools' shared parameters: each parameter's type and the description clients read, written once for every tool
that takes it (front/server.py's session tools, front/attach_tools.py's attach)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from gradle_repl.environment import BuildToolChoice

__all__ = ["ProjectRoot", "SessionProjectRoot", "ProjectPath", "SourceSet", "SessionId", "BuildToolArg"]

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
