"""The repository is a Claude Code plugin and its own marketplace: the manifests name this package's version and files
that exist, the skill is the one SKILL.md, each command names tools and arguments the server publishes, and the
`.mcp.json` command, run as written from a fresh clone, starts a server the real MCP client lists the tools of.
Claude Code's own CLI (scripts/setup installs it into .tools/) validates the plugin and connects to its server."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client, StdioServerParameters

from gradle_repl import package_version
from support.paths import REPO, TOOL_SCHEMAS

SCHEMAS: dict[str, Any] = json.loads(TOOL_SCHEMAS.read_text(encoding="utf-8"))
MANIFEST = REPO / ".claude-plugin" / "plugin.json"
MARKETPLACE = REPO / ".claude-plugin" / "marketplace.json"
MCP_JSON = REPO / ".mcp.json"
COMMANDS = REPO / "commands"
SKILL = REPO / "skills" / "gradle-repl" / "SKILL.md"
CLAUDE = REPO / ".tools" / "claude-code" / "node_modules" / ".bin" / "claude"
# The variable Claude Code sets to the plugin's folder; a plugin's config expands no other form (`${VAR:-default}`
# there stays the default, whatever the variable holds: tried with Claude Code 2.1.197).
PLUGIN_ROOT = "${CLAUDE_PLUGIN_ROOT}"
# What each user action is a command for, with the tools it calls and the arguments it must be able to pass. Setting
# and reading a probe joins them when probes land.
ACTIONS = {
    "reset": ({"reset_kotlin_session"}, {"sessionId", "replay"}),
    "describe": ({"describe_kotlin_session"}, {"sessionId"}),
    "test": ({"run_project_tests"}, {"projectRoot", "tests", "failedOnly"}),
    "attach": ({"list_running_jvms", "attach_kotlin_session"}, {"pid", "sessionId", "projectRoot"}),
}
# The front matter keys a command may have (Claude Code's slash-command format).
COMMAND_KEYS = {"description", "argument-hint", "disable-model-invocation", "allowed-tools", "model"}
# A tool name in backticks (lower-case words joined by underscores), and an argument as the commands list them.
_TOOL = re.compile(r"`([a-z]+(?:_[a-z]+)+)`")
_ARGUMENT = re.compile(r"^- `(\w+)`:", re.MULTILINE)
# A server's first start imports the SDK and the package on a loaded 2-core machine; listing tools starts no JVM.
SERVER_START_SECONDS = 120
# Claude Code's CLI validates in under a second; `mcp list` starts the plugin's server to check it.
CLAUDE_SECONDS = 120

pytestmark = pytest.mark.anyio


def _json(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def test_the_manifest_names_this_packages_version_and_its_parts_are_where_claude_code_looks() -> None:
    """plugin.json: a kebab-case name, pyproject's version (written there by hand, held to it here), a description;
    it redirects no part, so Claude Code finds the commands, the skill and the server at the root's default places."""
    manifest = _json(MANIFEST)
    assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", manifest["name"])
    assert manifest["version"] == package_version(), "plugin.json's version is not pyproject.toml's: write it there"
    assert manifest["description"]
    assert not {"commands", "skills", "agents", "hooks", "mcpServers"} & set(manifest)
    assert sorted(path.stem for path in COMMANDS.glob("*.md")) == sorted(ACTIONS)
    assert MCP_JSON.is_file() and SKILL.is_file()


def test_the_skill_is_one_file() -> None:
    """The plugin's skill is skills/gradle-repl/SKILL.md itself, the file the agent's guide tests hold: no copy."""
    tracked = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*SKILL.md"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert tracked == [str(SKILL.relative_to(REPO))]


def test_the_marketplace_lists_this_plugin() -> None:
    """marketplace.json (what `/plugin marketplace add` reads): its owner, and one plugin whose source is the
    repository's root, where that plugin's manifest is; a version there would be a second copy of it."""
    marketplace = _json(MARKETPLACE)
    assert marketplace["name"] and marketplace["owner"]["name"] and marketplace["description"]
    [entry] = marketplace["plugins"]
    assert entry["name"] == _json(MANIFEST)["name"]
    source = (MARKETPLACE.parent.parent / entry["source"]).resolve()
    assert entry["source"].startswith("./") and source == REPO
    assert (source / ".claude-plugin" / "plugin.json").is_file()
    assert "version" not in entry


def _server_line() -> tuple[str, list[str]]:
    """The .mcp.json server's command and arguments, as written."""
    servers = _json(MCP_JSON)["mcpServers"]
    assert list(servers) == ["gradle-repl"]
    server = servers["gradle-repl"]
    assert set(server) <= {"command", "args"}
    return server["command"], server.get("args", [])


def test_the_mcp_json_names_no_path_of_this_machine() -> None:
    """The command is a program on PATH and its arguments are paths under the plugin's root, written with the one
    variable Claude Code expands there; each names a file of the repository."""
    command, args = _server_line()
    assert "/" not in command
    for arg in args:
        assert arg.startswith(PLUGIN_ROOT + "/"), arg
        assert "$" not in arg.removeprefix(PLUGIN_ROOT) and str(REPO) not in arg
        assert (REPO / arg.removeprefix(PLUGIN_ROOT + "/")).is_file(), arg


def _command(path: Path) -> tuple[dict[str, Any], str]:
    """A command file's front matter (YAML, as Claude Code parses it) and its prompt."""
    found = re.fullmatch(r"---\n(.*?)\n---\n(.*)", path.read_text(encoding="utf-8"), re.DOTALL)
    assert found, f"{path.name} has no front matter"
    front: dict[str, Any] = yaml.safe_load(found[1])
    return front, found[2]


def _calls(text: str) -> tuple[set[str], set[str]]:
    """The tools a command's prompt names and the arguments it lists for them; each must be published, each argument
    a parameter of one of those tools, and each tool's required parameters among them when it lists any."""
    tools = set(_TOOL.findall(text))
    unknown = tools - set(SCHEMAS)
    assert unknown == set(), f"named in backticks but no published tool: {sorted(unknown)}"
    arguments = set(_ARGUMENT.findall(text))
    parameters = {name for tool in tools for name in SCHEMAS[tool]["inputSchema"].get("properties", {})}
    assert arguments <= parameters, f"no parameter of {sorted(tools)}: {sorted(arguments - parameters)}"
    for tool in tools:
        required = set(SCHEMAS[tool]["inputSchema"].get("required", []))
        assert not arguments or required <= arguments, f"{tool} needs {sorted(required - arguments)}"
    return tools, arguments


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_each_command_calls_published_tools_with_their_parameters(action: str) -> None:
    """A command is a short prompt: a description and, when it takes arguments, their hint; the tools it names
    (against tests/tool_schemas.json, what the server publishes) with the arguments that action needs. Kept out of
    the model's own reach: the agent calls the tools directly."""
    front, prompt = _command(COMMANDS / f"{action}.md")
    assert set(front) <= COMMAND_KEYS and front["description"] and len(front["description"]) <= 120
    assert ("$ARGUMENTS" in prompt) == ("argument-hint" in front)
    assert front["disable-model-invocation"] is True
    tools, arguments = _calls(prompt)
    wanted_tools, wanted_arguments = ACTIONS[action]
    assert wanted_tools <= tools and wanted_arguments <= arguments


def test_a_misnamed_tool_or_parameter_is_caught() -> None:
    """The check above fails for a tool that isn't published, a parameter the tool hasn't, and a required one left
    out (so it can't pass by finding nothing)."""
    with pytest.raises(AssertionError, match="reset_kotlin_sesion"):
        _calls("call `reset_kotlin_sesion` with:\n- `sessionId`: x\n")
    with pytest.raises(AssertionError, match="failedonly"):
        _calls("call `run_project_tests` with:\n- `projectRoot`: x\n- `failedonly`: true\n")
    with pytest.raises(AssertionError, match=r"needs \['at'\]"):
        _calls("call `add_kotlin_probe` with:\n- `sessionId`: x\n")


def _stand_in_setup(root: Path, *, makes: str | None) -> Path:
    """A checkout's scripts/setup replaced by one that records its arguments and chatters on stdout (the MCP stream,
    were the launcher to let it through), then makes .venv/bin/gradle-repl with the script `makes`, or fails. The
    real setup fetches the package's dependencies, which would only test the network. Returns the file its calls are
    written to."""
    calls = root / "setup-calls"
    made = root / ".venv" / "bin" / "gradle-repl"
    make = f"mkdir -p '{made.parent}'\ncat > '{made}' <<'EOF'\n{makes}EOF\nchmod +x '{made}'\n"
    (root / "scripts" / "setup").write_text(
        f'#!/usr/bin/env bash\necho "$*" >> \'{calls}\'\necho "setup: installing"\n'
        + (make if makes is not None else "echo 'setup: no JDK' >&2\nexit 1\n"),
        encoding="utf-8",
    )
    return calls


def _fresh_clone(dest: Path) -> Path:
    """The repository's files as a clone has them (tracked, and new ones not ignored): no .venv, no .tools."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (REPO / name).is_file():  # a tracked file deleted in the work tree is not in a clone
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dest / name)
    return dest


async def test_the_mcp_json_command_starts_the_server_from_a_fresh_clone(tmp_path: Path) -> None:
    """.mcp.json's command, with the plugin root a fresh clone and run from the user's project as Claude Code runs
    it, sets the clone's .venv up (scripts/setup --package-only, its output kept off the MCP stream) and starts a
    server the real MCP client lists every published tool of; the next start finds the .venv made."""
    clone = _fresh_clone(tmp_path / "clone")
    # This test's interpreter on the clone's own sources.
    server = f'#!/bin/sh\nPYTHONPATH="{clone / "bridge"}" exec "{sys.executable}" -m gradle_repl "$@"\n'
    calls = _stand_in_setup(clone, makes=server)
    project = tmp_path / "project"
    project.mkdir()
    command, args = _server_line()
    params = StdioServerParameters(
        command=command,
        args=[arg.replace(PLUGIN_ROOT, str(clone)) for arg in args],
        env={**os.environ, "CLAUDE_PLUGIN_ROOT": str(clone)},
        cwd=project,
    )
    async with Client(params, read_timeout_seconds=SERVER_START_SECONDS) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
    assert tools == set(SCHEMAS)
    assert calls.read_text().splitlines() == ["--package-only"]
    again = subprocess.run(
        [command, str(clone / "scripts" / "serve"), "--help"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=SERVER_START_SECONDS,
    )
    assert again.returncode == 0 and "--http" in again.stdout, again.stderr
    assert calls.read_text().splitlines() == ["--package-only"]


@pytest.mark.parametrize("case", ["setup works", "installed", "neither"])
def test_the_launcher_serves_from_the_venv_setup_makes_else_an_installed_gradle_repl(tmp_path: Path, case: str) -> None:
    """scripts/serve with no .venv: the one setup makes serves; setup failing (no JDK, no package index), a gradle-repl
    on PATH does; with neither, it fails saying so. Stdout is the server's alone, its arguments passed on."""
    root = tmp_path / "plugin"
    (root / "scripts").mkdir(parents=True)
    shutil.copy2(REPO / "scripts" / "serve", root / "scripts" / "serve")
    calls = _stand_in_setup(root, makes='#!/bin/sh\necho "venv gradle-repl $*"\n' if case == "setup works" else None)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if case == "installed":
        (bin_dir / "gradle-repl").write_text('#!/bin/sh\necho "installed gradle-repl $*"\n', encoding="utf-8")
        (bin_dir / "gradle-repl").chmod(0o755)
    done = subprocess.run(
        ["bash", str(root / "scripts" / "serve"), "--no-spare-worker"],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"},
        timeout=60,
    )
    assert calls.read_text().splitlines() == ["--package-only"]
    served = {"setup works": "venv gradle-repl", "installed": "installed gradle-repl", "neither": None}[case]
    if served:
        assert (done.returncode, done.stdout) == (0, f"{served} serve --no-spare-worker\n"), done.stderr
    else:
        assert (done.returncode, done.stdout) == (1, "")
        assert "setup failed (above) and no gradle-repl is installed on PATH" in done.stderr


@pytest.mark.skipif(not shutil.which("flock"), reason="no flock (util-linux): the launcher sets up unlocked")
def test_two_clients_starting_at_once_set_up_once(tmp_path: Path) -> None:
    """Two launchers started together on a checkout without .venv: one runs setup (slow here), the other waits for it
    and then serves from the .venv it made."""
    root = tmp_path / "plugin"
    (root / "scripts").mkdir(parents=True)
    shutil.copy2(REPO / "scripts" / "serve", root / "scripts" / "serve")
    calls = _stand_in_setup(root, makes='#!/bin/sh\necho "venv gradle-repl $*"\n')
    setup = root / "scripts" / "setup"
    setup.write_text(setup.read_text().replace('echo "setup: installing"\n', 'echo "setup: installing"\nsleep 1\n'))
    starts = [
        subprocess.Popen(["bash", str(root / "scripts" / "serve")], stdout=subprocess.PIPE, text=True) for _ in range(2)
    ]
    outputs = [start.communicate(timeout=60)[0] for start in starts]
    assert outputs == ["venv gradle-repl serve\n"] * 2
    assert calls.read_text().splitlines() == ["--package-only"]


def _claude(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Claude Code's CLI with a home of its own (nothing of the user's read or written), no updates or telemetry."""
    env = {**os.environ, "HOME": str(home), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"}
    env.pop("CLAUDE_CONFIG_DIR", None)
    return subprocess.run(
        [str(CLAUDE), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=CLAUDE_SECONDS
    )


_NO_CLAUDE = f"Claude Code's CLI is not installed at {CLAUDE} (scripts/setup installs it with npm)"


@pytest.mark.skipif(not CLAUDE.exists(), reason=_NO_CLAUDE)
@pytest.mark.parametrize("manifest", [MANIFEST, MARKETPLACE], ids=["plugin", "marketplace"])
def test_claude_codes_own_validation_passes(tmp_path: Path, manifest: Path) -> None:
    """`claude plugin validate --strict` (warnings fail too) passes the manifest; for the plugin it also parses each
    command's and the skill's front matter."""
    done = _claude("plugin", "validate", "--strict", str(manifest), home=tmp_path, cwd=REPO)
    assert done.returncode == 0 and "Validation passed" in done.stdout, done.stdout + done.stderr


@pytest.mark.skipif(not CLAUDE.exists(), reason=_NO_CLAUDE)
def test_claude_code_loads_the_commands_and_skill_and_connects_to_the_server(tmp_path: Path) -> None:
    """With this checkout as `--plugin-dir`, Claude Code finds the four commands, the skill and the server, and its
    health check connects to the server that .mcp.json starts (this checkout's .venv), from another project."""
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    details = _claude("--plugin-dir", str(REPO), "plugin", "details", "gradle-repl", home=home, cwd=project)
    assert details.returncode == 0, details.stdout + details.stderr
    assert f"Skills ({len(ACTIONS) + 1})  {', '.join(sorted([*ACTIONS, 'gradle-repl']))}" in details.stdout
    assert "MCP servers (1)  gradle-repl" in details.stdout
    listed = _claude("--plugin-dir", str(REPO), "mcp", "list", home=home, cwd=project)
    assert re.search(r"^plugin:gradle-repl:gradle-repl: .*Connected$", listed.stdout, re.MULTILINE), listed.stdout
