"""Throwaway compiles an idle worker runs, so that the compiler's own code is JIT-compiled before the user's next
snippets need it.

A worker's JVM runs the K2 compiler's code interpreted at first, then C1-compiled as it gets hot: a fresh session's
first five `1 + 1` took 35 ms a call (p50) and its first five 30-line classes 358 ms, against 23 and 170 ms after 100
throwaway compiles (bench/idle_warm_up.py, bench/README.md "A worker warmed while idle"). An agent leaves its session
idle for seconds between calls while it thinks; the worker spends that time compiling typical snippets, each taken
back (ReplDriver.warmUp: nothing runs, the session is as it was), one at a time, and only once no request has come for
IDLE_SECONDS and none waits. A request that comes meanwhile waits for at most the one compile under way. A spare
worker, idle until a session takes it, warms up entirely before that. How many: `idle_warm_up_compiles`
(settings.py); 0 turns it off.
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
        "data class TrainingPoint(val x: Int, val y: Int = 0)\n"
        'listOf(TrainingPoint(1), TrainingPoint(2)).map { "${it.x}" }.joinToString()'
    ),
    "object TrainingObject { fun f(n: Int): Int = if (n < 2) n else f(n - 1) }\nrunCatching { TrainingObject.f(3) }",
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
        while self._left > 0:
            try:
                return pending.get(timeout=self._idle_seconds)
            except queue.Empty:
                pass
            while self._left > 0 and pending.empty():
                self._compile_next()
        return pending.get()

    def _compile_next(self) -> None:
        done = self._count - self._left
        if done == 0:
            print(f"idle: warming the compiler with {self._count} throwaway compiles", file=sys.stderr, flush=True)
        began = time.monotonic()
        failure = self._compile_one(TYPICAL_SNIPPETS[done % len(TYPICAL_SNIPPETS)])
        self._spent += time.monotonic() - began
        if failure is not None:
            self._left = 0
            print(f"idle: the compiler's warm-up stopped after {done} compiles: {failure}", file=sys.stderr, flush=True)
            return
        self._left -= 1
        if self._left == 0:
            print(
                f"idle: warmed the compiler with {self._count} throwaway compiles in {self._spent:.1f} s",
                file=sys.stderr,
                flush=True,
            )
