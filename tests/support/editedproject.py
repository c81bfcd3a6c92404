"""A project's session as an editor's user drives it: a ProjectSession of the main source set whose snippets run with
the server's options (replay, …) and whose sources are written or deleted whole between them."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

from gradle_repl.frames import SuccessResult
from gradle_repl.host.handle import Reply
from gradle_repl.settings import DEFAULT_SOURCE_SET
from support.projectsession import ProjectSession

__all__ = ["EditedProject"]


class EditedProject(ProjectSession):
    """A private copy of a project (sample-project, edited) and one session on it, "edits" unless renamed."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, source_set=DEFAULT_SOURCE_SET, session_id="edits")

    @property
    def session(self) -> str:
        return self.target.session_id

    @session.setter
    def session(self, session_id: str) -> None:
        self.target = dataclasses.replace(self.target, session_id=session_id)

    def run(self, code: str, **options: object) -> Reply:
        return self.loop.run_until_complete(
            self.manager.run_snippet(self.target, code=code, **options)  # type: ignore[arg-type]
        )

    def ok(self, code: str, **options: object) -> Reply:
        """Runs a snippet that must succeed (declarations have no value)."""
        reply = self.run(code, **options)
        assert isinstance(reply.result, SuccessResult), (reply.result, reply.notices)
        return reply

    def value_and_reply(self, code: str, **options: object) -> tuple[str, Reply]:
        """The value of a snippet that must have one, and its reply (for the notices)."""
        reply = self.run(code, **options)
        assert isinstance(reply.result, SuccessResult) and reply.result.value is not None, (reply.result, reply.notices)
        return reply.result.value.data, reply

    def write(self, path: str, text: str | None) -> None:
        """Writes (or, with None, deletes) a source, its time moved on so that the freshness check sees it."""
        source = self.root / path
        if text is None:
            source.unlink()
            os.utime(source.parent, (time.time() + 2, time.time() + 2))
            return
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(text)
        later = time.time() + 2
        os.utime(source, (later, later))

    def pid(self) -> int | None:
        return next(info.worker_pid for info in self.manager.list() if info.session_id == self.session)
