"""`python -m gradle_repl.project.buildguard COMMAND...`: runs a build that cannot outlive its server.

The server holds the guard's stdin open for as long as it wants the build. When that pipe reaches
end of file — the server closed it, or died, even by kill -9, on any platform — the guard ends the
build's whole process tree and exits. Otherwise it exits with the build's own exit code.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import psutil

from gradle_repl.stopping import stop_processes_now

__all__ = ["main", "GUARD_EXIT_STOPPED"]

# The exit code when the build was stopped because the server let go of it.
GUARD_EXIT_STOPPED = 143


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m gradle_repl.project.buildguard COMMAND [ARG...]", file=sys.stderr)
        return 2
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    guarded = psutil.Process(child.pid)

    def lifeline() -> None:
        sys.stdin.buffer.read()  # returns at end of file only
        if child.poll() is None:
            stop_processes_now([guarded])
            os._exit(GUARD_EXIT_STOPPED)

    threading.Thread(target=lifeline, name="lifeline", daemon=True).start()
    return child.wait()


if __name__ == "__main__":
    code = main(sys.argv[1:])
    # Not sys.exit: the lifeline thread sits in a blocking read of stdin, which the interpreter's
    # shutdown would trip over.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
