"""A compile the suite runs with the same inputs every run (a harness against Gradle's API jars, the init script
with it), done once per machine: its output directory is kept in the persistent test cache under a digest of what
goes into it — the sources' text, the compiler's flags and classpath (versioned jars), and the `java` on PATH that
runs the compiler (its path and its `release` file). A changed input (an edited init script, a mutation of it, another
JDK) is another digest and compiles again; a failed compile is never kept, so it fails again the next run with its
own message."""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from support.paths import persistent_test_cache

__all__ = ["Compiled", "CompileFailed", "compiled_once"]


@dataclass(frozen=True)
class Compiled:
    """Where the compiled classes are."""

    classes: Path


@dataclass(frozen=True)
class CompileFailed:
    """What the compiler said (its exit code, stdout and stderr)."""

    message: str

    def __str__(self) -> str:
        return self.message


def compiled_once(
    kind: str, inputs: Sequence[str], run_compiler: Callable[[Path], subprocess.CompletedProcess[str]]
) -> Compiled | CompileFailed:
    """The classes `run_compiler(directory)` writes for these inputs: from the cache when a run compiled the same
    before, else compiled into a directory of this process's own and moved into place whole (two runs at once each
    compile; the first move wins, both outputs are the same)."""
    digest = hashlib.sha256("\0".join([*inputs, _java()]).encode()).hexdigest()[:16]
    out = persistent_test_cache() / kind / digest
    if out.is_dir():
        return Compiled(out)
    work = out.with_name(f"{digest}.{os.getpid()}.tmp")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        done = run_compiler(work)
        if done.returncode != 0:
            return CompileFailed(f"exit {done.returncode}\n{done.stdout}{done.stderr}")
        try:
            os.replace(work, out)
        except OSError:
            if not out.is_dir():  # not another run's move: a real failure
                raise
        return Compiled(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)


@functools.cache
def _java() -> str:
    """The `java` on PATH, which runs the compilers here, and its JDK's release file."""
    found = shutil.which("java")
    if found is None:
        return "no java"
    java = Path(found).resolve()
    release = java.parents[1] / "release"
    return f"{java}\0{release.read_text(errors='replace') if release.is_file() else ''}"
