"""The real MCP server over stdio, with timers around the steps of each run_kotlin_snippet call (bench/profile.py).

    GRADLE_REPL_BENCH_BUDGET=calls.jsonl .venv/bin/python bench/budget_server.py

It is `gradle-repl serve --no-spare-worker`: the same server, tools, manager and workers. Before serving, it wraps
four steps in place, from outside the product: the server's tool (`_answered`: the progress relay, the manager's
call, the reply as MCP content), SessionManager.run_snippet, the resolve it makes before the snippet (the project's
freshness: build files and sources) and WorkerHandle.request (the frames to the worker and back). Each call appends
one JSON line to $GRADLE_REPL_BENCH_BUDGET before its reply goes out: those steps' seconds, and the worker's own
time and JVM steps from the result (`duration_ms`, `times`).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from gradle_repl.front import server
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.host.manager import SessionManager
from gradle_repl.settings import Settings

LOG = Path(os.environ["GRADLE_REPL_BENCH_BUDGET"])
_F = TypeVar("_F", bound=Callable[..., Awaitable[Any]])
# The running call's steps in seconds, and its result's timing (one call at a time: the bench waits for each reply).
call: dict[str, Any] = {}


def timed(name: str, step: _F) -> _F:
    """`step`, adding its seconds to the running call's `name`."""

    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return await step(*args, **kwargs)
        finally:
            call[name] = call.get(name, 0.0) + time.perf_counter() - began

    return wrapper  # type: ignore[return-value]


def main() -> None:
    tool = timed("tool", server._answered)
    run_snippet = timed("manager", SessionManager.run_snippet)

    async def answered(*args: Any, **kwargs: Any) -> Any:
        call.clear()
        answer = await tool(*args, **kwargs)
        with LOG.open("a") as log:
            log.write(json.dumps(call) + "\n")
        return answer

    async def run_and_keep(self: SessionManager, *args: Any, **kwargs: Any) -> Any:
        reply = await run_snippet(self, *args, **kwargs)
        call["result"] = reply.result.model_dump(include={"type", "duration_ms", "times"})
        return reply

    server._answered = answered
    SessionManager.run_snippet = run_and_keep  # type: ignore[method-assign]
    SessionManager.resolve = timed("resolve", SessionManager.resolve)  # type: ignore[method-assign]
    WorkerHandle.request = timed("request", WorkerHandle.request)  # type: ignore[method-assign]
    server.serve(Settings(spare_worker=False))


if __name__ == "__main__":
    main()
