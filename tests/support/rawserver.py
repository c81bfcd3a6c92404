"""A gradle-repl server process spoken to in raw JSON-RPC lines, for tests that need the process itself
(signals, pids) or input no SDK client would send."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import psutil

# A raw server's replies can wait on a cold build or JVM start.
REPLY_TIMEOUT_SECONDS = 300.0


class RawServer:
    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gradle_repl", "serve", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
        self._next_id = 100
        self.request(
            {
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        self.send_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())

    @property
    def pid(self) -> int:
        return self.process.pid

    def send_line(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def receive(self, request_id: Any) -> dict[str, Any]:
        assert self.process.stdout is not None
        deadline = time.monotonic() + REPLY_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise EOFError(f"server exited with {self.process.wait()}")
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == request_id:
                return message
        raise TimeoutError(request_id)

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self._next_id += 1
        self.send_line(json.dumps({"jsonrpc": "2.0", "id": self._next_id, **message}).encode())
        return self.receive(self._next_id)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request({"method": "tools/call", "params": {"name": name, "arguments": arguments}})

    def send_call(self, request_id: Any, name: str, arguments: dict[str, Any]) -> None:
        """Sends a tool call without waiting for its reply (see receive)."""
        self.send_line(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "method": "tools/call",
                    "params": {"name": name, "arguments": arguments},
                }
            ).encode()
        )

    def cancel(self, request_id: Any) -> None:
        """What an MCP client sends when it gives up on a call (its own timeout, the user's stop)."""
        self.send_line(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": request_id, "reason": "test"},
                }
            ).encode()
        )

    def sessions(self) -> list[dict[str, Any]]:
        """What list_kotlin_sessions says, parsed."""
        text = self.call_tool("list_kotlin_sessions", {})["result"]["content"][0]["text"]
        return [] if text == "No live sessions." else json.loads(text)

    def session_states(self) -> dict[str, str]:
        return {s["sessionId"]: s["state"] for s in self.sessions()}

    def workers(self) -> list[int]:
        """The server's session worker processes (the JVM hosts), from the OS; not a class-data trainer."""
        return sorted(p.pid for p in descendants(self.pid) if is_session_worker(p))

    def builds(self) -> list[int]:
        """The server's build processes (guards and whatever they run)."""
        return sorted(p.pid for p in descendants(self.pid) if "gradle_repl.worker" not in " ".join(_cmdline(p)))

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def is_session_worker(process: psutil.Process) -> bool:
    command = " ".join(_cmdline(process))
    return "gradle_repl.worker" in command and "--role=class-data" not in command


def descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def wait_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def wait_for(condition: Callable[[], bool], seconds: float = 120.0) -> None:
    """Polls an observable state until it holds; fails the test after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition never held")
        time.sleep(0.05)


def rss_bytes(pid: int) -> int:
    """Resident memory of a live process; a process that is gone is an error, never a small number."""
    return psutil.Process(pid).memory_info().rss


def listening_sockets(pid: int) -> list[str]:
    """Listening TCP sockets and bound UDP sockets held by a process."""
    return [
        f"{conn.type.name} {conn.laddr}"
        for conn in psutil.Process(pid).net_connections(kind="inet")
        if conn.status == psutil.CONN_LISTEN or conn.type == socket.SOCK_DGRAM
    ]
