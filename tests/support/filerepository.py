"""A Maven repository in a directory, holding one artifact of a group of the test run's own, for tests of where
@file:DependsOn looks; what the resolver copies into ~/.m2 for it is removed afterwards, and nothing else."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FileRepository:
    url: str
    coordinate: str  # group:lib:1.0, the group unique to this run
    group: str


@contextmanager
def file_repository(directory: Path, java_home: str, *, package: str, greeting: str) -> Iterator[FileRepository]:
    """A repository whose group:lib:1.0 holds `<package>.Greeting.hello()` returning greeting."""
    group = f"gradle-repl-test.{package}-{uuid.uuid4().hex[:12]}"  # no local repository can have it already
    repository = directory / "repo"
    artifact = repository / group.replace(".", "/") / "lib" / "1.0"
    artifact.mkdir(parents=True)
    source = directory / "src" / package / "Greeting.java"
    source.parent.mkdir(parents=True)
    source.write_text(
        f'package {package}; public class Greeting {{ public static String hello() {{ return "{greeting}"; }} }}'
    )
    tools = Path(java_home) / "bin"
    subprocess.run([str(tools / "javac"), "-d", str(directory / "classes"), str(source)], check=True)
    subprocess.run(
        [str(tools / "jar"), "cf", str(artifact / "lib-1.0.jar"), "-C", str(directory / "classes"), "."], check=True
    )
    (artifact / "lib-1.0.pom").write_text(
        f'<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>{group}</groupId>'
        "<artifactId>lib</artifactId><version>1.0</version></project>"
    )
    try:
        yield FileRepository(url=repository.as_uri(), coordinate=f"{group}:lib:1.0", group=group)
    finally:
        shutil.rmtree(Path.home() / ".m2/repository" / group.replace(".", "/"), ignore_errors=True)
