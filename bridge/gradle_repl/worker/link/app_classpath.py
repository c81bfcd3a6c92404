"""The class path of an app reached over TCP, brought here so snippets compile against what it runs: its agent lists
each entry with its size and SHA-256 (`J`), and the entries not kept yet come over in pieces (`F`), checked against
their digest, into the cache by digest. Attaching again, or to another app with the same libraries, fetches only what
is new. Each kept file keeps its entry's name (a fat jar's, a kotlin-stdlib's version), which is what a class path is
read by here."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from pathlib import Path, PurePath
from typing import TypeVar

from gradle_repl.errors import GradleReplError
from gradle_repl.paths import cache_dir
from gradle_repl.worker.link.agent_wire import AgentClassPath, AgentConnection, AgentPiece, ClassPathEntry

__all__ = ["PIECE_BYTES", "fetched_classpath_dir", "fetch_app_classpath"]

_DIGEST = re.compile(r"[0-9a-f]{64}")
# A piece's size: big enough that a 60 MB fat jar is sixty round trips, small enough for the app's heap to give.
PIECE_BYTES = 1 << 20
# One answer from the app: listing hashes every jar once (a second for a large app), a piece is read from its disk.
ANSWER_SECONDS = 60.0


def fetched_classpath_dir() -> Path:
    """Where entries fetched from apps are kept, each as `<digest>/<its name>`."""
    return cache_dir() / "app-classpath"


def fetch_app_classpath(connection: AgentConnection, app: str) -> list[str]:
    """The app's class path as local files, in its order: entries not kept yet fetched first. An entry the app lists
    but can't read (a class path may name what doesn't exist) is left out, as the JVM leaves it out."""
    connection.class_path(0)
    listed = _answer(connection, AgentClassPath, app)
    local = []
    for index, entry in enumerate(listed.entries):
        if entry.digest is None:
            continue
        if not _DIGEST.fullmatch(entry.digest):
            # The listing names where files go here: only a digest's hex may.
            raise GradleReplError(f"{app} listed {entry.path} with a digest that is no SHA-256: attach again")
        kept = fetched_classpath_dir() / entry.digest / _file_name(entry)
        if not (kept.is_file() and kept.stat().st_size == entry.size):
            _fetch(connection, index, entry, kept, app)
        local.append(str(kept))
    return local


def _file_name(entry: ClassPathEntry) -> str:
    """The entry's own name; a directory (sent as a jar of its files) named after it, with .jar."""
    name = PurePath(entry.path.replace("\\", "/").rstrip("/")).name
    name = name if name not in ("", ".", "..") else "classes"
    return name if name.endswith((".jar", ".zip")) else f"{name}.jar"


def _fetch(connection: AgentConnection, index: int, entry: ClassPathEntry, kept: Path, app: str) -> None:
    kept.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, partial = tempfile.mkstemp(dir=kept.parent, prefix=".fetching-")
    try:
        with os.fdopen(fd, "wb") as out:
            offset = 0
            while offset < entry.size:
                connection.piece(1 + index, index, offset, PIECE_BYTES)
                piece = _answer(connection, AgentPiece, app).data
                if not piece:
                    raise GradleReplError(
                        f"{app} could not read {entry.path} of its class path while it was fetched (changed or removed "
                        "there): attach again"
                    )
                out.write(piece)
                digest.update(piece)
                offset += len(piece)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != entry.digest:
            raise GradleReplError(f"{entry.path} changed in {app} while it was fetched: attach again")
        os.replace(partial, kept)  # whole or not at all: a fetch cut short leaves nothing under the entry's name
    finally:
        if os.path.exists(partial):
            os.unlink(partial)


_Answer = TypeVar("_Answer", AgentClassPath, AgentPiece)


def _answer(connection: AgentConnection, kind: type[_Answer], app: str) -> _Answer:
    deadline = time.monotonic() + ANSWER_SECONDS
    while (left := deadline - time.monotonic()) > 0:
        message = connection.receive(left)
        if isinstance(message, kind):
            return message
    raise GradleReplError(
        f"{app} did not answer within {ANSWER_SECONDS:g} s while its class path was read: is it stopped?"
    )
