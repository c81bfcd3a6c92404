"""The layers ARCHITECTURE.md describes hold in the imports: arrows point down, and only the front ends speak MCP."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "bridge" / "gradle_repl"
LAYERS = ("front", "host", "worker", "project")
# What each layer may import of gradle-repl's own, besides the base (top-level modules).
ALLOWED = {
    "base": set(),
    "project": {"project"},
    "worker": {"worker"},
    "host": {"host", "worker"},
    "front": {"front", "host", "worker", "project"},
}
# The demo is an MCP client of the real server.
# front/http.py serves the SDK's Streamable HTTP transport; front/remote.py is the shell's client of it.
MCP_SPEAKERS = {"front/server.py", "front/attach_tools.py", "front/content.py", "front/demo.py", "front/http.py", "front/remote.py"}


def _layer(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    if relative.as_posix() == "__main__.py":
        return "front"  # the entry point: `python -m gradle_repl` is the CLI
    return relative.parts[0] if relative.parts[0] in LAYERS else "base"


def _imports(path: Path) -> set[str]:
    """Every module path path imports, absolute (the package uses no relative imports)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            names.add(node.module or "")
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _imported_layers(path: Path) -> set[str]:
    layers = set()
    for name in _imports(path):
        parts = name.split(".")
        if parts[0] == "gradle_repl" and len(parts) > 1:
            layers.add(parts[1] if parts[1] in LAYERS else "base")
    return layers


def test_arrows_point_down():
    """project/ and worker/ never import the host or the front ends; the host never imports the project side."""
    wrong = {}
    for path in PACKAGE.rglob("*.py"):
        layer = _layer(path)
        upward = _imported_layers(path) - ALLOWED[layer] - {"base"}
        if upward:
            wrong[str(path.relative_to(PACKAGE))] = sorted(upward)
    assert wrong == {}


def test_only_the_front_ends_speak_mcp():
    speakers = {
        str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
        if any(name == "mcp" or name.startswith("mcp.") for name in _imports(path))
    }
    assert speakers <= MCP_SPEAKERS, speakers


def test_the_top_level_holds_only_the_base_and_the_entry_point():
    top = {p.name for p in PACKAGE.glob("*.py")}
    assert top == {
        "__init__.py", "__main__.py", "environment.py", "errors.py", "frames.py", "options.py", "paths.py", "progress.py",
        "resources.py", "settings.py", "stopping.py",
    }, top
