"""Every default a user (or a test) may change, written once.

The CLI's flags start from these values, the server and the terminal REPL pass them on, and the host reads
them through `SessionLimits` and `WorkerOptions`. A front end changes a field with `model_copy(update=...)`;
nothing else writes a default of its own. One default is read from the environment when this module is imported,
`idle_warm_up_compiles` (IDLE_WARM_UP_ENV): the test suite turns it off for every process it starts.
"""

from __future__ import annotations

import os
import sys
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Settings",
    "DEFAULTS",
    "TOKEN_ENV",
    "IDLE_WARM_UP_ENV",
    "DEFAULT_SESSION_ID",
    "DEFAULT_PROJECT_PATH",
    "DEFAULT_SOURCE_SET",
    "DEFAULT_BUILD_TOOL",
    "TEST_SESSION_ID",
    "TEST_SOURCE_SET",
]

# What a tool call (and the CLI) runs in when it names none: an agent's first session, the build's root project,
# its main source set, and the build tool the project's files point to.
DEFAULT_SESSION_ID: Final = "default"
DEFAULT_PROJECT_PATH: Final = ":"
DEFAULT_SOURCE_SET: Final = "main"
# Where the project's tests run (run_project_tests, `gradle-repl test`, `:test`): a session of the test source set, its
# own id by default so a session of main classes is left alone.
TEST_SESSION_ID: Final = "tests"
TEST_SOURCE_SET: Final = "test"
DEFAULT_BUILD_TOOL: Final = "auto"

# Overrides the default of Settings.idle_warm_up_compiles (a count; the test suite sets 0).
IDLE_WARM_UP_ENV: Final = "GRADLE_REPL_IDLE_WARM_UP_COMPILES"


def _count_from_environment(name: str, default: int) -> int:
    """A non-negative count from the environment, else the default; a value that is no count is said on stderr."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if value.isascii() and value.isdecimal():
        return int(value)
    print(f"gradle-repl: {name}={value!r} is no count (0 turns it off); using {default}", file=sys.stderr)
    return default


# The variable that gives `serve --http` its bearer token. No worker JVM or build ever sees it: snippets and build
# scripts are code the token guards against.
TOKEN_ENV = "GRADLE_REPL_TOKEN"


class Settings(BaseModel):
    """What a server, a CLI run or a terminal REPL runs with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # --- a snippet -------------------------------------------------------------------------------------------
    # MCP clients commonly give up on a tool call at 60 s; a reply must arrive before that.
    snippet_timeout_seconds: float = Field(
        default=60.0, description="a snippet is stopped after this long unless its call says otherwise"
    )

    # --- probes (worker/probes) --------------------------------------------------------------------------------
    # A probe records once unless told otherwise: the first time a line is reached is what a `println` would show
    # first. The caps keep one call's hits, each rendered while the probed thread waits, within what a reply carries.
    probe_max_hits: int = Field(default=1, ge=1, description="how often a probe records unless its maxHits says")
    probe_max_hits_cap: int = Field(default=1000, ge=1, description="the most hits one probe may ask for")
    probes_per_call: int = Field(
        default=20, ge=1, description="the most probes one call may set, a session may hold, or explain one failure"
    )
    # A probe that outlives its call (add_kotlin_probe) records more, and stays a while, unless told otherwise.
    session_probe_max_hits: int = Field(default=100, ge=1, description="add_kotlin_probe's maxHits unless given")
    session_probe_expires_seconds: float = Field(
        default=600.0, gt=0, description="add_kotlin_probe's expiresSeconds unless given"
    )
    # explainFailures runs each failed test again alone; past this many, the rest are left as they failed.
    explained_failures: int = Field(default=5, ge=1, description="failed tests explainFailures runs again, at most")

    # --- each session's JVM ----------------------------------------------------------------------------------
    # The K2 REPL keeps about 0.5 MB of compiler data per snippet once each run's backend state and symbol caches
    # are let go (jvm-worker CompilerMarks.releaseBackends; 1.8 MB before, bench/README.md); the JVM only takes
    # from the OS what it uses.
    heap_mb: int = Field(default=1536, ge=64, description="heap cap of each session's JVM")
    # Serial GC sizes its young generation from the heap and never shrinks below the initial heap: the JVM's
    # default (1/64 of RAM, 378 MB on 24 GB) held ~60 MB more RSS after 100 snippets than the worker needs
    # (350 against 417 MB, warm snippets no slower, bench/README.md). A session's own -Xms overrides it.
    initial_heap_mb: int = Field(default=64, ge=8, description="initial heap of each session's JVM (-Xms)")
    # What one snippet may print in all, and in one block (message, stack, value); the cut is reported.
    output_limit_bytes: int = Field(default=1_000_000, ge=1_000)
    frame_limit_bytes: int = Field(default=200_000, ge=1_000)
    class_data_sharing: bool = Field(
        default=True, description="start JVMs from (and write) the archive of the compiler's classes"
    )
    full_jit: bool = Field(
        default=False, description="C2 as well as C1: slower starts, faster long-running snippet code"
    )
    # C1 alone gets the JVM's non-tiered code cache, 48 MB; the compiler's code fills ~43 MB of it within a few
    # dozen snippets, and from then on the sweeper evicts compiled methods that the JIT compiles again: every
    # ~10th declaration paid 0.4 s of JIT (p95 of a 30-line class 939 → 251 ms with 240 MB, bench/README.md).
    # 240 MB is what a tiered JVM (and so the Kotlin Jupyter kernel) reserves; only what is used is committed.
    code_cache_mb: int = Field(
        default=240, ge=16, description="the worker JVM's code cache (-XX:ReservedCodeCacheSize)"
    )
    # An idle worker compiles typical snippets and takes them back, so its compiler's code is JIT-compiled before the
    # user's next snippets need it (worker/repl/idle_warm_up.py): ~6 CPU-s once per worker, spent while it idles.
    # GRADLE_REPL_IDLE_WARM_UP_COMPILES overrides the default: the test suite sets 0 (tests/conftest.py), where dozens
    # of workers warming at once would take the CPU the tests run on.
    idle_warm_up_compiles: int = Field(
        default_factory=lambda: _count_from_environment(IDLE_WARM_UP_ENV, 100),
        ge=0,
        description="throwaway compiles an idle worker runs to warm its compiler (0: none)",
    )

    # --- sessions --------------------------------------------------------------------------------------------
    # Each live session holds a JVM of about 0.35 GB after 100 snippets (bench/README.md).
    max_sessions: int = Field(
        default=4, description="live sessions at most; the least recently used idle one makes room"
    )
    idle_timeout_seconds: float = Field(default=30 * 60, description="a session idle this long is closed")
    # Idle sessions are looked for this often, so one lives at most this much past its idle timeout.
    eviction_poll_seconds: float = Field(default=5.0, gt=0)
    # A started, warmed worker for the most recently used environment makes a new session start in
    # milliseconds instead of seconds, for one idle JVM (about 0.4 GB).
    spare_worker: bool = True
    # Write the JDK's class-data archive in the background when it is missing (worker/artifacts/classdata.py).
    train_class_data: bool = True

    # A login shell (envSource 'shell') runs the user's profile scripts; one that takes longer than this is stuck
    # (a prompt, a network mount).
    login_shell_timeout_seconds: float = Field(default=10.0, gt=0)

    # --- serve --http ----------------------------------------------------------------------------------------
    # Loopback: only this machine's users reach it; anything else needs --allow-remote.
    http_host: str = "127.0.0.1"
    http_port: int = Field(default=8765, ge=0, le=65535, description="0 picks a free port (the URL printed says which)")
    # A request body past this gets 413 before anything reads it: a snippet is at most 1 MB, which JSON escaping
    # can grow a few times over.
    http_max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=64 * 1024)
    # On SIGTERM or Ctrl-C, open response streams get this long to end before the server stops anyway.
    http_shutdown_grace_seconds: int = Field(default=3, ge=0)

    def http_url(self, port: int | None = None) -> str:
        """The MCP endpoint of `serve --http` with these settings (on port, when the server picked its own)."""
        host = f"[{self.http_host}]" if ":" in self.http_host else self.http_host
        return f"http://{host}:{self.http_port if port is None else port}/mcp"


DEFAULTS = Settings()
