"""The public surface a client codes against: every tool's inputSchema and outputSchema, as the real server publishes
them through tools/list, against a snapshot kept in tests/tool_schemas.json, so a change to them is a deliberate diff."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from mcp import Client

from gradle_repl.front.server import build_server
from gradle_repl.host.manager import SessionLimits, SessionManager
from support.fakeworker import FakeLauncher, fake_resolver
from support.paths import TOOL_SCHEMAS

pytestmark = pytest.mark.anyio

SNAPSHOT = TOOL_SCHEMAS
# Set to rewrite the snapshot from what the server publishes now (then review the diff and name it in CHANGELOG.md).
UPDATE = "GRADLE_REPL_UPDATE_SCHEMAS"


async def _published() -> dict[str, dict[str, Any]]:
    manager = SessionManager(limits=SessionLimits(spare_worker=False), launcher=FakeLauncher(), resolver=fake_resolver)
    async with Client(build_server(manager, end_builds_at_exit=False)) as client:
        tools = (await client.list_tools()).tools
    return {
        tool.name: {"inputSchema": tool.input_schema, "outputSchema": tool.output_schema}
        for tool in sorted(tools, key=lambda t: t.name)
    }


async def test_the_published_tool_schemas_are_the_snapshot() -> None:
    """tools/list publishes exactly the snapshot's inputSchema and outputSchema for every tool, camelCase throughout."""
    published = await _published()
    text = json.dumps(published, indent=2, sort_keys=True) + "\n"
    if os.environ.get(UPDATE):
        SNAPSHOT.write_text(text, encoding="utf-8")
    assert text == SNAPSHOT.read_text(encoding="utf-8"), (
        f"the tools' published schemas differ from {SNAPSHOT.name}: a change clients see. If it is deliberate, rewrite "
        f"the snapshot with `{UPDATE}=1 .venv/bin/python -m pytest -n 0 tests/repo/test_tool_schemas.py`, review its diff "
        "and name the change in CHANGELOG.md"
    )


async def test_every_property_name_on_the_wire_is_camel_case() -> None:
    """No snake_case name anywhere in a published schema: arguments, results and the items of their lists."""
    published = await _published()

    def names(schema: object) -> list[str]:
        if isinstance(schema, dict):
            found = list(schema.get("properties", {})) if isinstance(schema.get("properties"), dict) else []
            return found + [name for value in schema.values() for name in names(value)]
        if isinstance(schema, list):
            return [name for value in schema for name in names(value)]
        return []

    snake = sorted({name for tool in published.values() for name in names(tool) if "_" in name})
    assert snake == []
