"""The agent's guide — the server's `instructions` and skills/gradle-repl/SKILL.md — names only tools the server
publishes, in the Agent Skills format, short enough to be read whole."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from gradle_repl.front.agent_guide import INSTRUCTIONS
from gradle_repl.front.server import build_server
from gradle_repl.host.manager import SessionLimits, SessionManager
from support.fakeworker import FakeLauncher, fake_resolver
from support.paths import REPO, TOOL_SCHEMAS

SKILL = REPO / "skills" / "gradle-repl" / "SKILL.md"
SCHEMAS: dict[str, Any] = json.loads(TOOL_SCHEMAS.read_text(encoding="utf-8"))
# A name in backticks written the way tool names are: lower-case words joined by underscores.
_SNAKE_IN_BACKTICKS = re.compile(r"`([a-z]+(?:_[a-z]+)+)`")
# The tools an agent's day turns on: each guide must say when to use them.
CORE_TOOLS = {
    "run_kotlin_snippet",
    "check_kotlin_snippet",
    "complete_kotlin_snippet",
    "describe_kotlin_session",
    "reset_kotlin_session",
    "attach_kotlin_session",
    "list_running_jvms",
}


def _schema_values(node: Any) -> set[str]:
    """Every enum or const string the published schemas name (error kinds, notice kinds, replay policies, ...)."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "enum":
                found.update(v for v in value if isinstance(v, str))
            elif key == "const" and isinstance(value, str):
                found.add(value)
            found |= _schema_values(value)
    elif isinstance(node, list):
        for item in node:
            found |= _schema_values(item)
    return found


def _named_tools(text: str) -> set[str]:
    """The tool names a guide writes in backticks; a snake_case word in backticks that is neither a published tool
    nor a value of the published schemas is a tool that doesn't exist (a typo, or one renamed)."""
    named = set(_SNAKE_IN_BACKTICKS.findall(text))
    unknown = named - set(SCHEMAS) - _schema_values(SCHEMAS)
    assert unknown == set(), f"named in backticks but no published tool (or schema value): {sorted(unknown)}"
    return named & set(SCHEMAS)


@pytest.mark.parametrize("guide", ["instructions", "SKILL.md"])
def test_every_tool_the_guide_names_exists_and_the_core_ones_are_named(guide: str) -> None:
    text = INSTRUCTIONS if guide == "instructions" else SKILL.read_text(encoding="utf-8")
    assert _named_tools(text) >= CORE_TOOLS


def test_a_misspelled_tool_name_is_caught() -> None:
    """The check above fails for a tool that isn't published (so it can't pass by finding nothing)."""
    with pytest.raises(AssertionError, match="run_kotlin_snipet"):
        _named_tools("use `run_kotlin_snipet` to run code")


def test_skill_md_is_in_the_agent_skills_format() -> None:
    """YAML front matter with `name` (lower-case and hyphens, its folder's name) and `description` (what and when,
    at most 1024 characters), then Markdown short enough to be read whole."""
    text = SKILL.read_text(encoding="utf-8")
    front, body = re.fullmatch(r"---\n(.*?)\n---\n(.*)", text, re.DOTALL).groups()  # type: ignore[union-attr]
    fields = dict(line.split(": ", 1) for line in front.splitlines())
    assert set(fields) == {"name", "description"}
    assert fields["name"] == SKILL.parent.name and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", fields["name"])
    assert 0 < len(fields["description"]) <= 1024 and "Use when" in fields["description"]
    assert ": " not in fields["description"].replace("e.g.: ", "")  # plain YAML: no second key hiding in the value
    assert len(body.splitlines()) <= 100


def test_the_server_hands_clients_these_instructions_and_they_stay_short() -> None:
    manager = SessionManager(limits=SessionLimits(spare_worker=False), launcher=FakeLauncher(), resolver=fake_resolver)
    server = build_server(manager, end_builds_at_exit=False)
    assert server.instructions == INSTRUCTIONS
    assert len(INSTRUCTIONS.splitlines()) <= 25
