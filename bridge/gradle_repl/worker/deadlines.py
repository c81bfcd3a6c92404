"""How long a stopped snippet may take, on both sides of the pipe: the worker's waits and the host's, each
derived from the one it depends on. Pure constants: the host imports them."""

from __future__ import annotations

__all__ = [
    "INTERRUPT_GRACE_SECONDS",
    "REPLY_SECONDS",
    "STOPPED_ANSWER_SECONDS",
    "COMPILE_AFTER_CANCEL_SECONDS",
    "FIRST_COMPILE_SECONDS",
]

# After Thread.interrupt(), how long a snippet gets to stop before the worker gives up on it. Unwinding an
# interrupted snippet through the REPL's evaluator takes well under a second, but seconds on a machine loaded
# by builds; a snippet still running after this is taken to ignore interruption.
INTERRUPT_GRACE_SECONDS = 6.0
# Once the worker has given up on a snippet, the time it may take to say so, on a machine loaded by builds.
REPLY_SECONDS = 5.0
# From a cancel (or a snippet's own timeout) to the worker's answer at the latest: the host kills it after that.
STOPPED_ANSWER_SECONDS = INTERRUPT_GRACE_SECONDS + REPLY_SECONDS
# A result the worker already holds ("it never ran") goes out in well under this.
_HELD_REPLY_SECONDS = 1.0
# A cancel during compilation waits for the compiler (it can't be interrupted) until just before the host
# stops waiting: a compile that ends in time keeps the session.
COMPILE_AFTER_CANCEL_SECONDS = STOPPED_ANSWER_SECONDS - _HELD_REPLY_SECONDS
# A worker started for a call that waits for it skips the warm-up snippet (StartRequest.warm_up): that call's snippet is
# the session's first compile, which loads the compiler (0.6-0.7 s here, seconds on a loaded machine without the
# class-data archive). That compile doesn't count against the snippet's timeout, for at most this long; the host waits
# this much longer for that one answer.
FIRST_COMPILE_SECONDS = 30.0
