"""A test project's session for running its tests in (run_project_tests), shared by the shop's tests and the other
builds' test projects."""

from __future__ import annotations

from gradle_repl.frames import TestRunResult
from support.projectsession import ProjectSession

__all__ = ["ProjectTests"]


class ProjectTests(ProjectSession):
    """A private copy of a test project and its test session, whose runs must end in a test run."""

    def run(self, *selectors: str, failed_only: bool = False, timeout: float | None = None) -> TestRunResult:
        reply = self.tests(*selectors, failed_only=failed_only, timeout=timeout)
        assert isinstance(reply.result, TestRunResult), reply.result
        return reply.result
