"""A bench child process's stdout as lines, as they arrive: the worker driver of percall.py, the kernel driver and the
floor and budget drivers answer one line per request."""

from __future__ import annotations

from collections.abc import AsyncIterator

from anyio.abc import Process

__all__ = ["stdout_lines"]


async def stdout_lines(process: Process, *, json_only: bool = False) -> AsyncIterator[str]:
    """Each line of `process`'s stdout, decoded; with `json_only`, only those that start a JSON object (a library's
    own printing in between is skipped)."""
    assert process.stdout is not None
    buffer = b""
    async for chunk in process.stdout:
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            if not json_only or line.startswith(b"{"):
                yield line.decode()
