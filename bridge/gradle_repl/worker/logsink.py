"""A worker's log: whatever reaches its fds 1 and 2, kept to a bounded size.

Output that bypasses the snippet capture (the JVM's own messages, native code, a child process
started with inheritIO) lands here. A flood must not fill the disk, so the log rotates: the current
file plus one older one, each at most LOG_FILE_BYTES.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import threading

__all__ = ["LogSink", "LOG_FILE_BYTES"]

# Two files of this size at most per worker: enough for a crash's context, never a full disk.
LOG_FILE_BYTES = 5 * 1024 * 1024
_READ_CHUNK = 64 * 1024


class LogSink:
    @staticmethod
    def capture_fds(path: str, fds: tuple[int, ...]) -> None:
        """Points the given fds at a pipe drained into a rotating log at path."""
        read_end, write_end = os.pipe()
        for fd in fds:
            os.dup2(write_end, fd)
        os.close(write_end)
        os.set_inheritable(read_end, False)
        handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=LOG_FILE_BYTES, backupCount=1, encoding="utf-8", errors="replace"
        )
        handler.terminator = ""
        handler.setFormatter(logging.Formatter("%(message)s"))

        def drain() -> None:
            while chunk := os.read(read_end, _READ_CHUNK):
                record = logging.LogRecord(
                    "worker", logging.INFO, path, 0, chunk.decode("utf-8", "replace"), None, None
                )
                handler.emit(record)
                handler.flush()

        threading.Thread(target=drain, name="log-sink", daemon=True).start()
