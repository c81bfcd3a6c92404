"""The worker's private request and frame channel.

The JVM, native code and snippets may write to file descriptors 0–2 at will, so before the JVM
starts the channel moves the server's pipes to fresh descriptors, points fd 0 at /dev/null (a
snippet reading System.in must not eat requests) and fd 1 at stderr (the server logs it).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import BinaryIO

from pydantic import BaseModel

from ..frames import encode

__all__ = ["FrameChannel"]


class FrameChannel:
    def __init__(self, requests: BinaryIO, frames: BinaryIO) -> None:
        self._requests = requests
        self._frames = frames
        self._write_lock = threading.Lock()

    @classmethod
    def take_over_stdio(cls) -> FrameChannel:
        requests_fd = os.dup(0)
        frames_fd = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        for fd in (requests_fd, frames_fd):
            os.set_inheritable(fd, False)
        return cls(os.fdopen(requests_fd, "rb"), os.fdopen(frames_fd, "wb"))

    def requests(self) -> Iterator[bytes]:
        """Request lines until the server closes the pipe."""
        for line in self._requests:
            if line.strip():
                yield line

    def read_request(self) -> bytes:
        return self._requests.readline()

    def send(self, frame: BaseModel) -> None:
        data = encode(frame)
        with self._write_lock:
            self._frames.write(data)
            self._frames.flush()
