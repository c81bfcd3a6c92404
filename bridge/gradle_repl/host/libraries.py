"""The libraries a session added with `@file:DependsOn` / `@file:Repository`, as the host keeps them: a
session restarted because the project's build or sources changed gets them again before its next snippet."""

from __future__ import annotations

import re

__all__ = ["library_annotations", "replay_snippet"]

_FILE_ANNOTATION = re.compile(r"^[ \t]*(@file[ \t]*:[ \t]*(?:DependsOn|Repository)[ \t]*\(.*\))[ \t]*$", re.MULTILINE)


def library_annotations(code: str) -> list[str]:
    """The snippet's `@file:DependsOn(…)` and `@file:Repository(…)` lines, in order."""
    return _FILE_ANNOTATION.findall(code)


def replay_snippet(annotations: list[str]) -> str:
    """One snippet that adds every library again (repositories first, as they were named) and does nothing else."""
    repositories = [a for a in annotations if "Repository" in a.split("(", 1)[0]]
    dependencies = [a for a in annotations if a not in repositories]
    return "\n".join([*dict.fromkeys(repositories), *dict.fromkeys(dependencies), "Unit"])
