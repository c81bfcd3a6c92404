"""The agent's token rules as the worker side needs them, read from the agent's own AgentOptions.java (written once,
there): the variable a token comes from when none is named, and the shortest token the agent takes."""

from __future__ import annotations

from gradle_repl.worker.link.wire_table import agent_constant

__all__ = ["agent_token_env", "min_token_chars"]


def agent_token_env() -> str:
    """GRADLE_REPL_AGENT_TOKEN: where both the app's agent and an attach look for the token when none is given."""
    return agent_constant("AgentOptions.java", "TOKEN_ENV")


def min_token_chars() -> int:
    return int(agent_constant("AgentOptions.java", "MIN_TOKEN_CHARS"))
