"""Entry point of a session's worker process; see gradle_repl.worker."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

from pydantic import ValidationError

from ..errors import GradleReplError
from ..frames import EvalRequest, ResultFrame, StartRequest, decode_request
from .channel import FrameChannel

# How often the orphan watchdog checks that the server is still our parent.
PARENT_POLL_SECONDS = 1.0
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """A worker must never outlive its server, even after kill -9 of the server."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def main() -> None:
    channel = FrameChannel.take_over_stdio()
    _die_with_parent()
    try:
        start = decode_request(channel.read_request())
        if not isinstance(start, StartRequest):
            raise GradleReplError("the first request to a worker must be 'start'")
        from .session import ReplSession  # JPype loads only once the request is known to be valid

        session, ready = ReplSession.start(start)
    except (GradleReplError, ValidationError) as error:
        channel.send(ResultFrame(type="error", error_kind="internal", message=str(error)))
        os._exit(1)
    except Exception as error:  # noqa: BLE001 - anything else still has to reach the user as a frame
        channel.send(ResultFrame(type="error", error_kind="internal", message=f"worker failed to start: {error!r}"))
        os._exit(1)
    channel.send(ready)
    for line in channel.requests():
        try:
            request = decode_request(line)
        except ValidationError as error:
            channel.send(ResultFrame(type="error", error_kind="internal", message=f"bad request: {error}"))
            continue
        if not isinstance(request, EvalRequest):
            channel.send(ResultFrame(type="error", error_kind="internal", message="the worker is already started"))
            continue
        session.evaluate(request, channel.send)
        if session.exit_code is not None:
            break
    # The JVM may hold non-daemon threads a snippet started: leave without waiting for them.
    os._exit(session.exit_code or 0)


if __name__ == "__main__":
    main()
