"""Where gradle-repl keeps caches and logs (platformdirs, overridable for tests)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

__all__ = ["cache_dir", "log_dir"]

_APP = "gradle-repl"


def cache_dir() -> Path:
    """GRADLE_REPL_CACHE_DIR, else the platform's user cache directory."""
    override = os.environ.get("GRADLE_REPL_CACHE_DIR")
    return Path(override) if override else Path(platformdirs.user_cache_dir(_APP))


def log_dir() -> Path:
    override = os.environ.get("GRADLE_REPL_LOG_DIR")
    return Path(override) if override else Path(platformdirs.user_log_dir(_APP))
