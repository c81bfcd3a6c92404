"""The build tools gradle-repl can resolve environments with, in the order `auto` tries them."""

from __future__ import annotations

from gradle_repl.project.buildtools.base import BuildTool, BuildToolChoice, BuildToolName
from gradle_repl.project.buildtools.gradle import GRADLE
from gradle_repl.project.buildtools.maven import MAVEN

__all__ = ["BUILD_TOOLS", "BuildTool", "BuildToolChoice", "BuildToolName", "build_tool"]

BUILD_TOOLS: tuple[BuildTool, ...] = (GRADLE, MAVEN)


def build_tool(name: str) -> BuildTool:
    for tool in BUILD_TOOLS:
        if tool.name == name:
            return tool
    raise ValueError(f"unknown build tool {name!r}; known: {', '.join(t.name for t in BUILD_TOOLS)}")
