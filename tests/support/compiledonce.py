"""A compile the suite runs with the same inputs every run (a harness against Gradle's API jars, the init script
with it), done once per machine: its output directory is kept in the persistent test cache under a digest of
everything that goes into it. A changed input (an edited init script, a mutation of it) is another digest and
compiles again; a failed compile is never kept, so it fails again the next run with its own message."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from support.paths import persistent_test_cache

__all__ = ["Compiled", "compiled_once"]


@dataclass(frozen=True)
class Compiled:
    """Where the classes are, or what the compiler said when it failed (`failure`)."""

    classes: Path
    failure: str | None = None


def compiled_once(
    kind: str, inputs: Sequence[str], run_compiler: Callable[[Path], subprocess.CompletedProcess[str]]
) -> Compiled:
    """The classes of `run_compiler(directory)` for these inputs (the sources' text, versions, the compiler's flags):
    from the cache when a run compiled the same before, else compiled into a directory of this process's own and
    moved into place whole (two runs at once each compile; the first move wins, both outputs are the same)."""
    digest = hashlib.sha256("\0".join(inputs).encode()).hexdigest()[:16]
    out = persistent_test_cache() / kind / digest
    if out.is_dir():
        return Compiled(out)
    work = out.with_name(f"{digest}.{os.getpid()}.tmp")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    done = run_compiler(work)
    if done.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        return Compiled(out, failure=f"exit {done.returncode}\n{done.stdout}{done.stderr}")
    try:
        os.replace(work, out)
    except OSError:  # another run put it there first
        shutil.rmtree(work, ignore_errors=True)
    return Compiled(out)
