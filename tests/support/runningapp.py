"""A real application process for attach tests: built by Maven as its users build it, started as they start it, ready
when it says so on its stdout, always stopped at the end of the block."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from filelock import FileLock

from gradle_repl.project.toolchain import find_mvn
from support.paths import APP_BUILD_TIMEOUT_SECONDS

# A JVM app with a small classpath prints its first line within seconds; a loaded CI machine may take tens.
READY_TIMEOUT_SECONDS = 120.0
# How long an app asked to stop gets before it is killed: a JVM's shutdown (Spring's context closing) takes about a
# second.
STOP_TIMEOUT_SECONDS = 10.0
# How long the app may take to answer one line on its stdin.
ANSWER_TIMEOUT_SECONDS = 30.0


class RunningApp:
    """The app's process, its stdout as lines, and a way to ask it something on its stdin."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: queue.Queue[str] = queue.Queue()
        self.ready_line = ""
        self.seen_before_ready: list[str] = []  # what it printed before its ready line
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, predicate: str, timeout: float = ANSWER_TIMEOUT_SECONDS) -> tuple[str, list[str]]:
        """The first line containing `predicate`, and the lines before it."""
        seen: list[str] = []
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(
                    f"the app printed no line with {predicate!r} within {timeout:g} s; it printed {seen}"
                ) from None
            if predicate in line:
                return line, seen
            seen.append(line)

    def ask(self, line: str, answer_contains: str) -> tuple[str, list[str]]:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.wait_for(answer_contains)


@contextmanager
def running_app(
    command: list[str], *, ready: str, cwd: str | None = None, env: dict[str, str] | None = None
) -> Iterator[RunningApp]:
    """The app started in a process group of its own (a launcher such as `mvn spring-boot:run` forks the app's JVM),
    ready once a line contains `ready`; the whole group is ended however the block ends: asked to stop first, so a
    JVM something attached to removes its attach socket (/tmp/.java_pid<pid>; one left by a killed JVM makes the
    next JVM with that pid refuse every attach), killed when it doesn't stop."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    try:
        app = RunningApp(process)
        app.ready_line, app.seen_before_ready = app.wait_for(ready, READY_TIMEOUT_SECONDS)
        yield app
    finally:
        _stop_group(process)
        try:
            os.killpg(process.pid, signal.SIGKILL)  # whatever of the group is left (a launcher's forked JVM)
        except ProcessLookupError:
            pass
        process.wait()


def _stop_group(process: subprocess.Popen[str]) -> None:
    """Asks the app's process group to stop and waits until every member has gone (a launcher such as Maven exits
    before the JVM it forked has shut down), up to STOP_TIMEOUT_SECONDS."""
    deadline = time.monotonic() + STOP_TIMEOUT_SECONDS
    try:
        os.killpg(process.pid, signal.SIGCONT)  # a test may have stopped it
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(STOP_TIMEOUT_SECONDS)
        while time.monotonic() < deadline:
            os.killpg(process.pid, 0)  # ProcessLookupError once the group is empty
            time.sleep(0.05)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass


def built_app(project: Path, goal: Literal["compile", "package"], run_state: Path) -> None:
    """`mvn <goal>` of a test app in its own directory, once per run: the modules that start it (on either xdist
    worker) share the build, one at a time under a lock (a build under a running app's classes or jar breaks it)."""
    (project / "target").mkdir(exist_ok=True)
    built = run_state / "built-apps" / f"{project.name}-{goal}"
    with FileLock(project / "target" / ".build.lock"):
        if built.exists():
            return
        subprocess.run(
            [find_mvn(), "-q", "-B", goal, "-DskipTests"], cwd=project, check=True, timeout=APP_BUILD_TIMEOUT_SECONDS
        )
        built.parent.mkdir(exist_ok=True)
        built.touch()


def packaged_app(project: Path, jar: str, run_state: Path) -> Path:
    """The jar `mvn package` makes of a test app, built once per run (built_app)."""
    built_app(project, "package", run_state)
    return project / "target" / jar


# The plain Kotlin app of tests/projects/attach-plain: it prints this line once it runs.
SHOP_MAIN = "shop.ShopKt"
SHOP_READY = "ready"


def shop_command(java: str, classpath: list[str], *jvm_options: str) -> list[str]:
    """The plain app started as its users start it: `java -cp <its runtime classpath> shop.ShopKt`."""
    return [java, *jvm_options, "-cp", ":".join(classpath), SHOP_MAIN]
