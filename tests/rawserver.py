"""A gradle-repl server process spoken to in raw JSON-RPC lines, for tests that need the process itself
(signals, pids) or input no SDK client would send."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# A raw server's replies can wait on a cold build or JVM start.
REPLY_TIMEOUT_SECONDS = 300.0


class RawServer:
    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gradle_repl", "serve", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._next_id = 100
        self.request({"method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
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
            message = json.loads(line)
            if message.get("id") == request_id:
                return message
        raise TimeoutError(request_id)

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self._next_id += 1
        self.send_line(json.dumps({"jsonrpc": "2.0", "id": self._next_id, **message}).encode())
        return self.receive(self._next_id)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request({"method": "tools/call", "params": {"name": name, "arguments": arguments}})

    def workers(self) -> list[int]:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(self.pid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def wait_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return False


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def listening_sockets(pid: int) -> list[str]:
    """Listening TCP/UDP sockets held by a process, from /proc (no extra tools needed)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6", "udp", "udp6"):
        for row in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = row.split()
            listening = fields[3] == "0A" if table.startswith("tcp") else fields[3] == "07"
            if listening and fields[9] in inodes:
                found.append(f"{table} {fields[1]}")
    return found
