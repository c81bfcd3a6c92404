"""The Kotlin Jupyter kernel as a peer in bench/run.py: its own venv, and one measurement per compiler mode.

The kernel (PyPI `kotlin-jupyter-kernel`, which bundles its jars) and jupyter_client are installed at the
versions pinned in bench/kernel-requirements.txt into bench/.kernel-venv, made on first use. gradle-repl's
.venv never sees them: bench/kernel_driver.py runs with the kernel venv's Python and answers in JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pydantic import BaseModel

__all__ = ["KERNEL_VERSION", "KernelJob", "KernelResult", "kernel_python", "measure_kernel"]

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
