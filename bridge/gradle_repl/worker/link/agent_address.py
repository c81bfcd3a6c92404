"""Where an agent listening on TCP is reached: `[HOST:]PORT`, as `gradle-repl agent-path --listen` and
`attach_kotlin_session(address=…)` take it. A bare port is this machine's loopback (an app on this host, or one a
`docker run -p 127.0.0.1:PORT:PORT`, `ssh -L` or `kubectl port-forward` brings here); an IPv6 host goes in brackets."""

from __future__ import annotations

from dataclasses import dataclass

from gradle_repl.errors import GradleReplError

__all__ = ["LOOPBACK", "AgentAddress"]

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class AgentAddress:
    host: str
    port: int

    @classmethod
    def parse(cls, text: str, *, any_port: bool = False) -> AgentAddress:
        """`PORT`, `HOST:PORT` or `[IPV6]:PORT`; one sentence saying what is wrong otherwise. `any_port`: port 0 too,
        for an agent to listen on (any free port, which the app's console then names)."""
        given = text.strip()
        host, colon, port_text = given.rpartition(":")
        if not colon:
            host, port_text = LOOPBACK, given
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        elif ":" in host:
            host = ""  # an IPv6 address needs its brackets, or its last group reads as the port
        if not port_text.isdigit() or not (0 if any_port else 1) <= int(port_text) < 65536 or not host:
            raise GradleReplError(
                f"{text!r} is not an agent's address: give HOST:PORT or PORT (e.g. 5006, 127.0.0.1:5006, [::1]:5006)"
            )
        return cls(host, int(port_text))

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"
