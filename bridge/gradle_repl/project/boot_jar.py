"""A Spring Boot executable jar's classes and libraries, as a compiler reads them: expanded into the cache.

A fat jar nests its application classes (`BOOT-INF/classes/`) and its libraries (`BOOT-INF/lib/*.jar`); the Kotlin
compiler reads neither inside another jar. They are extracted once per jar content (its size and modification time,
with its path, name the copy) and written to a temporary directory renamed into place, so a half-written copy is never
used.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from gradle_repl.paths import cache_dir

__all__ = ["is_boot_jar", "expanded_classpath"]

_CLASSES = "BOOT-INF/classes/"
_LIB = "BOOT-INF/lib/"
_INDEX = "BOOT-INF/classpath.idx"


def is_boot_jar(path: str) -> bool:
    if not path.endswith(".jar") or not Path(path).is_file():
        return False
    with zipfile.ZipFile(path) as jar:
        return _CLASSES in jar.namelist() or any(name.startswith(_LIB) for name in jar.namelist())


def expanded_classpath(jar: str) -> list[str]:
    """The fat jar's classes directory and library jars, in the order the jar's launcher puts them."""
    info = Path(jar).stat()
    key = hashlib.sha256(f"{Path(jar).resolve()}\0{info.st_size}\0{info.st_mtime_ns}".encode()).hexdigest()[:16]
    target = cache_dir() / "boot-jars" / f"{Path(jar).stem}-{key}"
    if not target.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = Path(tempfile.mkdtemp(prefix=f"{target.name}.", dir=target.parent))
        try:
            with zipfile.ZipFile(jar) as archive:
                members = [name for name in archive.namelist() if name.startswith((_CLASSES, _LIB)) or name == _INDEX]
                archive.extractall(temporary, members)
            os.replace(temporary, target)
        except OSError:
            shutil.rmtree(temporary, ignore_errors=True)
            if not target.is_dir():  # another process put its copy in place first: use that one
                raise
    return [str(target / _CLASSES), *(str(target / entry) for entry in _libraries(target))]


def _libraries(expanded: Path) -> list[str]:
    """BOOT-INF/lib's jars in classpath.idx's order (the launcher's), else by name."""
    index = expanded / _INDEX
    if index.is_file():
        # Lines such as `- "BOOT-INF/lib/kotlin-stdlib-2.2.21.jar"`.
        entries = [
            line.strip().removeprefix("-").strip().strip('"') for line in index.read_text(encoding="utf-8").splitlines()
        ]
        return [entry for entry in entries if entry and (expanded / entry).is_file()]
    return sorted(str(path.relative_to(expanded)) for path in (expanded / _LIB).glob("*.jar"))
