"""gradle-repl's MCP tools as a client calls them: a real server's launch parameters over stdio, and the text of a
tool's answer."""

from __future__ import annotations

import os
import sys

from mcp import StdioServerParameters
from mcp.types import CallToolResult, TextContent

__all__ = ["server_params", "text"]


def server_params(*extra: str, spare: bool = False) -> StdioServerParameters:
    """A server's launch parameters; without a spare JVM unless the test is about it (a spare only costs CPU)."""
    args = ["-m", "gradle_repl", "serve", *extra, *([] if spare else ["--no-spare-worker"])]
    return StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))


def text(result: CallToolResult) -> str:
    """The answer's text blocks, one per line."""
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))
