"""Whether a running JVM has Kotlin, and which, read from its command line without attaching to it.

What a session attached there compiles for follows from it (project/attach_target.py): the app's own Kotlin when its
class path has a kotlin-stdlib, else gradle-repl's, whose runtime the snippets are lent (worker/attach/snippet_runtime.py).
The class path is the one the command line names (`-cp`, `-classpath`, `--class-path`, else `CLASSPATH`, else the
working directory); for `java -jar` the jar's own libraries (a Spring Boot fat jar's `BOOT-INF/lib`, a war's
`WEB-INF/lib`), its manifest's `Class-Path`, or Kotlin's classes shaded into it. A class path given in an argument
file (`@file`) or a jar that can't be read leaves it unknown.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KotlinSeen", "STDLIB_JAR", "kotlin_of", "stdlib_version"]

# kotlin-stdlib-<version>.jar: the one jar every Kotlin program carries, named by its version.
STDLIB_JAR = re.compile(r"kotlin-stdlib-(\d+\.\d+\.\d+(?:-[\w.]+)?)\.jar")
_CLASS_PATH_OPTIONS = ("-cp", "-classpath", "--class-path")
_NESTED_LIBRARIES = ("BOOT-INF/lib/", "WEB-INF/lib/")
# A class every Kotlin program links to: shaded into a jar, it says Kotlin is there (its version unsaid).
_KOTLIN_CLASS = "kotlin/Unit.class"


@dataclass(frozen=True)
class KotlinSeen:
    has_kotlin: bool | None  # None: its class path could not be read
    version: str | None  # its kotlin-stdlib's version, when a jar names it


_UNKNOWN = KotlinSeen(None, None)


def stdlib_version(classpath: list[str]) -> str | None:
    """The version of the first kotlin-stdlib jar on a class path, or None."""
    return next((found.group(1) for entry in classpath if (found := STDLIB_JAR.fullmatch(Path(entry).name))), None)


def kotlin_of(
    arguments: list[str], working_directory: str | None, environment_classpath: str | None = None
) -> KotlinSeen:
    """What a `java` command line (its arguments, as psutil reads them) says of the JVM's Kotlin."""
    classpath: str | None = None
    for index, argument in enumerate(arguments[1:], start=1):
        if argument.startswith("@"):
            return _UNKNOWN
        if argument in _CLASS_PATH_OPTIONS and index + 1 < len(arguments):
            classpath = arguments[index + 1]
            break
        if argument.startswith("--class-path="):
            classpath = argument.partition("=")[2]
            break
        if argument == "-jar" and index + 1 < len(arguments):
            return _of_jar(_resolved(arguments[index + 1], working_directory))
        if not argument.startswith("-"):
            break  # the main class: the options end before it
    if classpath is None:
        classpath = environment_classpath or "."
    entries = [_resolved(entry, working_directory) for entry in classpath.split(":") if entry]
    if any(entry is None for entry in entries):
        return _UNKNOWN
    return _of_entries([entry for entry in entries if entry is not None])


def _resolved(entry: str, working_directory: str | None) -> Path | None:
    path = Path(entry)
    if path.is_absolute():
        return path
    return Path(working_directory) / path if working_directory else None


def _of_entries(entries: list[Path]) -> KotlinSeen:
    version = stdlib_version([str(entry) for entry in entries])
    if version is not None:
        return KotlinSeen(True, version)
    if any(entry.is_dir() and (entry / _KOTLIN_CLASS).is_file() for entry in entries):
        return KotlinSeen(True, None)
    return KotlinSeen(False, None)


def _of_jar(jar: Path | None) -> KotlinSeen:
    if jar is None:
        return _UNKNOWN
    try:
        with zipfile.ZipFile(jar) as archive:
            names = archive.namelist()
            manifest = (
                archive.read("META-INF/MANIFEST.MF").decode("utf-8", errors="replace")
                if "META-INF/MANIFEST.MF" in names
                else ""
            )
    except (OSError, zipfile.BadZipFile):
        return _UNKNOWN
    nested = [name.rpartition("/")[2] for name in names if name.startswith(_NESTED_LIBRARIES)]
    if (version := stdlib_version(nested)) is not None:
        return KotlinSeen(True, version)
    if _KOTLIN_CLASS in names:
        return KotlinSeen(True, None)
    listed = _manifest_class_path(manifest)
    return _of_entries([jar.parent / entry for entry in listed]) if listed else KotlinSeen(False, None)


def _manifest_class_path(manifest: str) -> list[str]:
    """The jar manifest's Class-Path entries (its lines continue with a leading space)."""
    joined = re.sub(r"\r?\n ", "", manifest)
    found = re.search(r"^Class-Path: (.*)$", joined, re.MULTILINE)
    return found.group(1).split() if found else []
