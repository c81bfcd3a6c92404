"""The libraries a session added with `@file:DependsOn` / `@file:Repository`, as its worker reported them
(frames.AddedLibraries): a session restarted because the project's build or sources changed gets them again
before its next snippet. The worker's resolver is the one that read the annotations; nothing here parses
snippet text."""

from __future__ import annotations

from gradle_repl.file_annotations import depends_on, repository
from gradle_repl.frames import AddedLibraries

__all__ = ["library_annotations", "replay_snippet"]


def library_annotations(libraries: AddedLibraries) -> list[str]:
    """One `@file:Repository("…")` per repository, then one `@file:DependsOn("…")` per library, in order."""
    return [
        *(repository(url) for url in dict.fromkeys(libraries.repositories)),
        *(depends_on(coordinate) for coordinate in dict.fromkeys(libraries.coordinates)),
    ]


def replay_snippet(annotations: list[str]) -> str:
    """One snippet that adds every library again and does nothing else."""
    return "\n".join([*annotations, "Unit"])
