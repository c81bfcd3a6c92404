"""Throwaway compiles an idle worker runs, so that the compiler's own code is JIT-compiled before the user's next
snippets need it.

A worker's JVM runs the K2 compiler's code interpreted at first, then C1-compiled as it gets hot: a fresh session's
first five `1 + 1` took 40 ms a call (p50) and its first five 30-line classes 298 ms, against 21 and 156 ms after 100
throwaway compiles (bench/idle_warm_up.py, bench/README.md "A worker warmed while idle"). An agent leaves its session
idle for seconds between calls while it thinks; the worker spends that time compiling typical snippets, each taken
back (ReplDriver.compileThrowaway: nothing runs, the session is as it was), one at a time, the first once no request
has come for IDLE_SECONDS, each later one after an idle pause as long as the compile before it: at most half of one
core, so a session at work beside it (a spare refilling while its session runs) keeps the rest. A request that comes
meanwhile waits for at most the one compile under way; the warm-up goes on at the next idle pause until
`idle_warm_up_compiles` (settings.py) are done in all; 0 turns it off.
"""

from __future__ import annotations

import queue
import sys
import time
from collections.abc import Callable

__all__ = ["IDLE_SECONDS", "TYPICAL_SNIPPETS", "IdleWarmUp"]

# What an agent's snippets do most (a class, collection pipelines with lambdas, templates, an object, a call that may
# throw), each on its own: a throwaway compile is taken back, so the next one can't use what it declared. The
# class-data archive's training runs these too (worker/boot.py), so the archive holds the classes they load.
TYPICAL_SNIPPETS = (
    (
        "data class TypicalPoint(val x: Int, val y: Int = 0)\n"
        'listOf(TypicalPoint(1), TypicalPoint(2)).map { "${it.x}" }.joinToString()'
    ),
    "object TypicalObject { fun f(n: Int): Int = if (n < 2) n else f(n - 1) }\nrunCatching { TypicalObject.f(3) }",
    '(1..10).filter { it % 2 == 0 }.associateWith { "n=$it" }',
)
# How long the worker waits for a request before it compiles one: a caller's next request after an answer (the host's
# follow-ups, a client's next call in a script) comes well within it.
IDLE_SECONDS = 0.5


class IdleWarmUp:
    """Hands out request lines; while none comes and compiles are left, runs them. `compile_one` compiles a snippet and
    takes it back, and says why it could not (None when it could): the first failure ends the warm-up."""

    def __init__(
        self, compile_one: Callable[[str], str | None], count: int, *, idle_seconds: float = IDLE_SECONDS
    ) -> None:
        self._compile_one = compile_one
        self._left = count
        self._count = count
        self._idle_seconds = idle_seconds
        self._spent = 0.0

    @property
    def left(self) -> int:
        """The throwaway compiles still to run."""
        return self._left

    def next_request(self, pending: queue.Queue[bytes]) -> bytes:
        """The next request line from `pending`, compiling throwaway snippets while the worker idles."""
        pause = self._idle_seconds
        while self._left > 0:
            try:
                return pending.get(timeout=pause)
            except queue.Empty:
                pass
            pause = self._compile_next()
        return pending.get()

    def _compile_next(self) -> float:
        """Runs the next throwaway compile; how long it took."""
        done = self._count - self._left
        if done == 0:
            print(f"idle: warming the compiler with {self._count} throwaway compiles", file=sys.stderr, flush=True)
        began = time.monotonic()
        try:
            failure = self._compile_one(TYPICAL_SNIPPETS[done % len(TYPICAL_SNIPPETS)])
        except Exception as error:  # noqa: BLE001 - a warm-up that breaks must cost the warm-up, not the session
            failure = repr(error)
        took = time.monotonic() - began
        self._spent += took
        if failure is not None:
            self._left = 0
            print(f"idle: the compiler's warm-up stopped after {done} compiles: {failure}", file=sys.stderr, flush=True)
            return took
        self._left -= 1
        if self._left == 0:
            print(
                f"idle: warmed the compiler with {self._count} throwaway compiles in {self._spent:.1f} s",
                file=sys.stderr,
                flush=True,
            )
        return took
