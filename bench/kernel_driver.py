"""Drives the Kotlin Jupyter kernel over jupyter_client and prints what it measured as JSON.

Runs inside the kernel's own venv (bench/kernel.py makes it), never in gradle-repl's: it imports only
jupyter_client and psutil. Two ways to drive it:

- a whole job (bench/run.py): one JSON object on stdin (see `KernelJob` in bench/kernel.py): the compiler mode
  (K1 or K2), the JDK, the project classpath, the snippets and how many runs of each; one JSON line back. Two
  kernels per mode, like the two sessions bench/run.py opens on gradle-repl: the first gives start to first
  result, then warm latencies per snippet kind; the second runs the RSS snippets from fresh.
- `--lines`, cell by cell (bench/peer.py, which interleaves the kernel's cells with gradle-repl's calls): the
  first stdin line is the kernel to start (`KernelStart` in bench/kernel.py: mode, JDK, classpath, first cell);
  the answer, once its first cell and the classpath cell ran, is `{"first_result_seconds": …}`. Then each line is
  a cell's code as a JSON string, answered `{"seconds": …}` (execute to idle). End of input shuts the kernel down.
  A failed cell ends the driver with the reason on stderr.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
from jupyter_client.manager import KernelManager

# The kernel answers its first cell once its compiler has loaded: seconds, more under load.
REPLY_TIMEOUT_SECONDS = 300.0
# The kernel's own logback configuration logs at DEBUG to stderr; this one logs nothing.
SILENT_LOGBACK = """<configuration>
    <root level="OFF"/>
</configuration>
"""


class Kernel:
    """One kernel process; `run` executes a cell and returns the seconds to its idle status."""

    def __init__(self, mode: str, java_home: str, log: Path, logback: Path) -> None:
        env = {
            **os.environ,
            "KOTLIN_JUPYTER_JAVA_HOME": java_home,
            # The kernel's launcher appends this to the JVM's options (run_kotlin_kernel/run_kernel.py).
            "KOTLIN_JUPYTER_JAVA_OPTS_EXTRA": f"-Dlogback.configurationFile={logback}",
        }
        env.pop("KOTLIN_JUPYTER_REPL_COMPILER_MODE", None)
        if mode == "K2":
            env["KOTLIN_JUPYTER_REPL_COMPILER_MODE"] = "K2"
        self._log = log.open("ab")
        self.manager = KernelManager(kernel_name="kotlin")
        self.manager.start_kernel(env=env, stdout=self._log, stderr=self._log)
        self.client = self.manager.client()
        self.client.start_channels()

    def run(self, code: str) -> float:
        started = time.monotonic()
        msg_id = self.client.execute(code, store_history=True)
        reply = None
        idle = False
        while reply is None or not idle:
            if reply is None:
                message = self.client.get_shell_msg(timeout=REPLY_TIMEOUT_SECONDS)
                if message["parent_header"].get("msg_id") == msg_id:
                    reply = message
            if not idle:
                event = self.client.get_iopub_msg(timeout=REPLY_TIMEOUT_SECONDS)
                if (
                    event["parent_header"].get("msg_id") == msg_id
                    and event["msg_type"] == "status"
                    and event["content"]["execution_state"] == "idle"
                ):
                    idle = True
        elapsed = time.monotonic() - started
        if reply["content"]["status"] != "ok":
            raise SystemExit(f"the kernel failed on {code!r}: {reply['content']}")
        return elapsed

    def jvm_rss_bytes(self) -> int:
        """The kernel's JVM: a child of its Python launcher (run_kotlin_kernel)."""
        launcher = psutil.Process(self.manager.provisioner.process.pid)
        jvms = [p for p in launcher.children(recursive=True) if "java" in p.name()]
        return sum(p.memory_info().rss for p in jvms)

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)
        self._log.close()


def silent_logback(scratch: Path) -> Path:
    logback = scratch / "logback-off.xml"
    logback.write_text(SILENT_LOGBACK)
    return logback


def depends_cell(classpath: list[str]) -> str:
    """The project's classes and libraries, the way a notebook adds local jars and directories."""
    return "\n".join(f'@file:DependsOn("{entry}")' for entry in classpath) + "\nUnit"


def measure(job: dict[str, Any], scratch: Path) -> dict[str, Any]:
    logback = silent_logback(scratch)
    log = scratch / "kernel.log"
    result: dict[str, Any] = {}
    started = time.monotonic()
    kernel = Kernel(job["mode"], job["java_home"], log, logback)
    try:
        kernel.run(job["first"])
        result["first_result_seconds"] = time.monotonic() - started
        kernel.run(depends_cell(job["classpath"]))
        result["latencies"] = {}
        for name, code in job["snippets"].items():
            for _ in range(job["warmup"]):
                kernel.run(code)
            result["latencies"][name] = [kernel.run(code) for _ in range(job["runs"])]
    finally:
        kernel.close()
    kernel = Kernel(job["mode"], job["java_home"], log, logback)
    try:
        kernel.run(job["rss_first"])
        before = kernel.jvm_rss_bytes()
        for code in job["rss_snippets"]:
            kernel.run(code)
        result["rss_bytes"] = [before, kernel.jvm_rss_bytes()]
    finally:
        kernel.close()
    result["log_bytes"] = log.stat().st_size
    result["log_head"] = log.read_text(errors="replace")[:400]
    result["jvm_options"] = f"-Dlogback.configurationFile={logback.name} (KOTLIN_JUPYTER_JAVA_OPTS_EXTRA)"
    return result


def answer(value: dict[str, Any]) -> None:
    print(json.dumps(value), flush=True)


def cells(scratch: Path) -> None:
    """--lines: one kernel, driven a cell per stdin line (see the module's docstring)."""
    start = json.loads(sys.stdin.readline())
    started = time.monotonic()
    kernel = Kernel(start["mode"], start["java_home"], scratch / "kernel.log", silent_logback(scratch))
    try:
        kernel.run(start["first"])
        first_result = time.monotonic() - started
        if start["classpath"]:
            kernel.run(depends_cell(start["classpath"]))
        answer({"first_result_seconds": first_result})
        for line in sys.stdin:
            answer({"seconds": kernel.run(json.loads(line))})
    finally:
        kernel.close()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-kernel-") as scratch:
        if sys.argv[1:] == ["--lines"]:
            cells(Path(scratch))
            return
        job = json.loads(sys.stdin.read())
        print(json.dumps(measure(job, Path(scratch))))


if __name__ == "__main__":
    main()
