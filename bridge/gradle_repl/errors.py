"""The exceptions gradle-repl raises for failures a user can cause; each message says what to do."""

__all__ = [
    "GradleReplError",
    "BuildToolNotFound",
    "BuildFailed",
    "EnvironmentIncomplete",
    "JvmNotFound",
    "WorkerFailed",
]


class GradleReplError(Exception):
    """Base class: the message is meant for the user, with no traceback."""


class BuildToolNotFound(GradleReplError):
    """No Gradle or Maven project, or no way to run its build tool."""


class BuildFailed(GradleReplError):
    """The build tool ran and failed; the message is one line, then its own error text, trimmed.

    `started` is False when the tool failed before building anything (a wrapper that can't download
    its distribution, a POM whose plugins can't be resolved): with buildTool=auto another build tool
    of the same project may then be tried.
    """

    def __init__(self, message: str, *, started: bool = True) -> None:
        super().__init__(message)
        self.started = started


class EnvironmentIncomplete(GradleReplError):
    """The build tool's output lacked facts the REPL needs (named in the message)."""


class JvmNotFound(GradleReplError):
    """The resolved javaHome holds no libjvm to start."""


class WorkerFailed(GradleReplError):
    """A session's worker process died or stopped answering."""
