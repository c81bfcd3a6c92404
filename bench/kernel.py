"""The Kotlin Jupyter kernel as a peer in bench/run.py: its own venv, and one measurement per compiler mode.

The kernel (PyPI `kotlin-jupyter-kernel`, which bundles its jars) and jupyter_client are installed at the
versions pinned in bench/kernel-requirements.txt into bench/.kernel-venv, made on first use. gradle-repl's
.venv never sees them: bench/kernel_driver.py runs with the kernel venv's Python and answers in JSON, a whole job at
a time (measure_kernel, bench/run.py) or a cell at a time (KernelCells, bench/peer.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

import anyio
from anyio.abc import Process
from pydantic import BaseModel

from child_lines import stdout_lines

__all__ = [
    "KERNEL_VERSION",
    "KernelCells",
    "KernelJob",
    "KernelResult",
    "KernelStart",
    "kernel_python",
    "measure_kernel",
]

BENCH = Path(__file__).resolve().parent
REQUIREMENTS = BENCH / "kernel-requirements.txt"
VENV = BENCH / ".kernel-venv"
KERNEL_VERSION = next(
    line.split("==", 1)[1].strip()
    for line in REQUIREMENTS.read_text().splitlines()
    if line.startswith("kotlin-jupyter-kernel==")
)
# Two kernels per mode, about 250 cells: minutes on two loaded cores.
MEASURE_TIMEOUT_SECONDS = 1800.0


class KernelJob(BaseModel):
    """What bench/kernel_driver.py is asked to run (the same snippets bench/run.py sends gradle-repl)."""

    mode: str  # "K1" (the kernel's default) or "K2"
    java_home: str
    classpath: list[str]
    first: str
    snippets: dict[str, str]
    warmup: int
    runs: int
    rss_first: str
    rss_snippets: list[str]


class KernelStart(BaseModel):
    """A kernel driven cell by cell (kernel_driver.py --lines): its mode, JDK and classpath, and its first cell."""

    mode: str
    java_home: str
    classpath: list[str]  # empty: no @file:DependsOn cell (a kernel started only for its first result)
    first: str


class KernelResult(BaseModel):
    first_result_seconds: float
    latencies: dict[str, list[float]]
    rss_bytes: tuple[int, int]
    log_bytes: int
    log_head: str
    jvm_options: str


def kernel_python() -> Path:
    """The kernel venv's Python, after making the venv when it is missing or its pins changed."""
    python = VENV / "bin" / "python"
    stamp = VENV / "requirements.txt"
    if python.exists() and stamp.exists() and stamp.read_text() == REQUIREMENTS.read_text():
        return python
    print(
        f"bench: installing the Kotlin Jupyter kernel {KERNEL_VERSION} into {VENV} (once)", file=sys.stderr, flush=True
    )
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-r", str(REQUIREMENTS)], check=True)
    stamp.write_text(REQUIREMENTS.read_text())
    return python


def measure_kernel(job: KernelJob) -> KernelResult:
    done = subprocess.run(
        [str(kernel_python()), str(BENCH / "kernel_driver.py")],
        input=job.model_dump_json(),
        capture_output=True,
        text=True,
        timeout=MEASURE_TIMEOUT_SECONDS,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the Kotlin Jupyter kernel ({job.mode}) measurement failed:\n{done.stderr[-4000:]}")
    return KernelResult.model_validate(json.loads(done.stdout.strip().splitlines()[-1]))


class KernelCells:
    """One kernel alive beside the bench's other work: `run` sends it a cell and returns the seconds to its idle
    status, as kernel_driver.py measures them. Made with `start`; `aclose` shuts the kernel down."""

    def __init__(self, process: Process, mode: str, stderr: IO[bytes]) -> None:
        self._process = process
        self.mode = mode
        self._stderr = stderr  # a file: a pipe nobody reads while cells run could fill and stall the driver
        self._lines = stdout_lines(self._process, json_only=True)
        self.first_result_seconds = 0.0

    @classmethod
    async def start(cls, start: KernelStart) -> KernelCells:
        """Starts the kernel and runs its first cell (and the classpath's, when given)."""
        stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed with the kernel (aclose)
        process = await anyio.open_process(
            [str(kernel_python()), str(BENCH / "kernel_driver.py"), "--lines"], stderr=stderr
        )
        cells = cls(process, start.mode, stderr)
        try:
            await cells._send(start.model_dump())
            cells.first_result_seconds = float((await cells._answer())["first_result_seconds"])
        except BaseException:
            await cells.aclose()
            raise
        return cells

    async def run(self, code: str) -> float:
        await self._send(code)
        return float((await self._answer())["seconds"])

    async def aclose(self) -> None:
        if self._process.stdin is not None:
            await self._process.stdin.aclose()
        with anyio.move_on_after(60):
            await self._process.wait()
        if self._process.returncode is None:
            self._process.kill()
        await self._process.aclose()
        self._stderr.close()

    async def _send(self, value: object) -> None:
        assert self._process.stdin is not None
        await self._process.stdin.send((json.dumps(value) + "\n").encode())

    async def _answer(self) -> dict[str, Any]:
        try:
            return dict(json.loads(await self._lines.__anext__()))
        except StopAsyncIteration:
            with anyio.move_on_after(10):
                await self._process.wait()
            self._stderr.seek(0)
            said = self._stderr.read().decode(errors="replace")[-4000:]
            raise RuntimeError(f"the Kotlin Jupyter kernel ({self.mode}) driver ended:\n{said}") from None
