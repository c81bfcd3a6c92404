"""What the host is allowed, as read from the settings: session limits for the manager, options for each worker."""

from __future__ import annotations

from dataclasses import dataclass

from gradle_repl.frames import WorkerOptions
from gradle_repl.settings import DEFAULTS, Settings

__all__ = ["SessionLimits", "worker_options"]


@dataclass
class SessionLimits:
    idle_timeout_seconds: float = DEFAULTS.idle_timeout_seconds
    max_sessions: int = DEFAULTS.max_sessions
    default_timeout_seconds: float = DEFAULTS.snippet_timeout_seconds
    spare_worker: bool = DEFAULTS.spare_worker
    train_class_data: bool = DEFAULTS.train_class_data
    eviction_poll_seconds: float = DEFAULTS.eviction_poll_seconds

    @classmethod
    def from_settings(cls, settings: Settings) -> SessionLimits:
        return cls(
            idle_timeout_seconds=settings.idle_timeout_seconds,
            max_sessions=settings.max_sessions,
            default_timeout_seconds=settings.snippet_timeout_seconds,
            spare_worker=settings.spare_worker,
            train_class_data=settings.train_class_data,
            eviction_poll_seconds=settings.eviction_poll_seconds,
        )


def worker_options(settings: Settings = DEFAULTS) -> WorkerOptions:
    """The per-worker limits the settings choose (the fields of the same name)."""
    return WorkerOptions.model_validate(settings.model_dump(include=set(WorkerOptions.model_fields)))
