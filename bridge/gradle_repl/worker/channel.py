"""The worker's private request and frame channel.

The JVM, native code and snippets may write to file descriptors 0–2 at will, so before the JVM
starts the channel moves the server's pipes to fresh descriptors, points fd 0 at /dev/null (a
snippet reading System.in must not eat requests) and fds 1 and 2 at the worker's bounded log.

Every frame sent is stamped with the id of the request being answered and made safe for the wire
(worker.results.safety), so nothing a snippet produces can break the channel or be taken for another
request's answer.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import BinaryIO

from pydantic import BaseModel

from gradle_repl.frames import DEFAULT_FRAME_LIMIT_BYTES, Result, encode
from gradle_repl.worker.logsink import LogSink
from gradle_repl.worker.results.safety import safe_frame

__all__ = ["FrameChannel"]


class FrameChannel:
    def __init__(self, requests: BinaryIO, frames: BinaryIO) -> None:
        self._requests = requests
        self._frames = frames
        self._write_lock = threading.Lock()
        # Set by the request loop: which eval the frames being sent belong to.
        self.current_id = 0
        # The id whose result frame went out last: a request is answered exactly once.
        self.answered_id: int | None = None
        self.frame_limit = DEFAULT_FRAME_LIMIT_BYTES

    @classmethod
    def take_over_stdio(cls, log_path: str | None) -> FrameChannel:
        requests_fd = os.dup(0)
        frames_fd = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        if log_path:
            LogSink.capture_fds(log_path, (1, 2))
        else:
            os.dup2(2, 1)
        for fd in (requests_fd, frames_fd):
            os.set_inheritable(fd, False)
        return cls(os.fdopen(requests_fd, "rb"), os.fdopen(frames_fd, "wb"))

    def requests(self) -> Iterator[bytes]:
        """Request lines until the server closes the pipe (or dies, which closes it too)."""
        for line in self._requests:
            if line.strip():
                yield line

    def send(self, frame: BaseModel) -> None:
        # Any frame model may carry an id; getattr reads it where a BaseModel's type doesn't say so.
        if "id" in type(frame).model_fields and getattr(frame, "id") == 0:  # noqa: B009
            frame = frame.model_copy(update={"id": self.current_id})
        data = encode(safe_frame(frame, self.frame_limit))
        with self._write_lock:
            self._frames.write(data)
            self._frames.flush()
            if isinstance(frame, Result):
                self.answered_id = frame.id
