"""The agent's token variable as the worker side needs it, read from the agent's own AgentOptions.java (written once,
there): where a token comes from when none is named. (The shortest token it takes is the agent's own check.)"""

from __future__ import annotations

from gradle_repl.worker.link.wire_table import agent_constant

__all__ = ["agent_token_env"]


def agent_token_env() -> str:
    """GRADLE_REPL_AGENT_TOKEN: where both the app's agent and an attach look for the token when none is given."""
    return agent_constant("AgentOptions.java", "TOKEN_ENV")
