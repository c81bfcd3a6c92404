"""A bench child process's stdout as lines, as they arrive: the worker driver of percall.py, the kernel driver and the
floor and budget drivers answer one line per request."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from anyio.abc import Process

__all__ = ["JsonLines", "stdout_lines"]


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


class JsonLines:
    """A child process that answers a JSON line per request line."""

    def __init__(self, process: Process) -> None:
        self.process = process
        self._lines = stdout_lines(self.process, json_only=True)

    async def ask(self, value: object) -> dict[str, Any]:
        assert self.process.stdin is not None
        await self.process.stdin.send((json.dumps(value) + "\n").encode())
        return await self.answer()

    async def answer(self) -> dict[str, Any]:
        return dict(json.loads(await self._lines.__anext__()))
