"""Which build tools may resolve a project, in the order to try them.

`auto` tries first the tool that last resolved this project (remembered on disk, so a project that
has both builds keeps the one that works across calls and restarts), then the others whose build
files are present, in registry order.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from gradle_repl.errors import BuildToolNotFound
from gradle_repl.paths import cache_dir
from gradle_repl.project.buildtools import BUILD_TOOLS, BuildTool, BuildToolChoice, build_tool

__all__ = ["candidates", "remember"]


def _memory(root: Path) -> Path:
    return cache_dir() / "last-build-tool" / hashlib.sha256(str(root).encode()).hexdigest()[:24]


def _remembered(root: Path) -> str | None:
    try:
        return _memory(root).read_text(encoding="utf-8").strip()
    except OSError:
        return None


def remember(root: Path, tool: BuildTool) -> None:
    """Notes that tool resolved root, for the next `auto`."""
    if _remembered(root) == tool.name:
        return
    path = _memory(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.write_text(tool.name, encoding="utf-8")
    os.replace(temporary, path)


def candidates(root: Path, choice: BuildToolChoice) -> list[BuildTool]:
    """The tools to try for root: the one asked for, or for `auto` every tool whose build is here."""
    if choice != "auto":
        tool = build_tool(choice)
        if not tool.detect(root):
            raise BuildToolNotFound(f"no {tool.build_files} in {root}")
        return [tool]
    present = [tool for tool in BUILD_TOOLS if tool.detect(root)]
    if not present:
        builds = " and ".join(f"no {t.name.capitalize()} build ({t.build_files})" for t in BUILD_TOOLS)
        raise BuildToolNotFound(f"{root} has {builds}")
    last = _remembered(root)
    return sorted(present, key=lambda tool: tool.name != last)
