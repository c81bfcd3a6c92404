"""Where gradle-repl keeps caches, logs and its configuration (platformdirs, overridable for tests)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

__all__ = ["CACHE_DIR_ENV", "cache_dir", "default_cache_dir", "log_dir", "data_dir", "config_dir"]

_APP = "gradle-repl"
# Moves the cache (the test suite's runs each keep their own; a worker inherits it from its host).
CACHE_DIR_ENV = "GRADLE_REPL_CACHE_DIR"


def cache_dir() -> Path:
    """GRADLE_REPL_CACHE_DIR, else the platform's user cache directory."""
    override = os.environ.get(CACHE_DIR_ENV)
    return Path(override) if override else default_cache_dir()


def default_cache_dir() -> Path:
    """The platform's user cache directory for gradle-repl, where the cache is when nothing moves it."""
    return Path(platformdirs.user_cache_dir(_APP))


def log_dir() -> Path:
    override = os.environ.get("GRADLE_REPL_LOG_DIR")
    return Path(override) if override else Path(platformdirs.user_log_dir(_APP))


def data_dir() -> Path:
    """What gradle-repl keeps for the user across runs (the terminal REPL's history)."""
    override = os.environ.get("GRADLE_REPL_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir(_APP))


def config_dir() -> Path:
    """What the user configures or keeps secret (the HTTP server's token): GRADLE_REPL_CONFIG_DIR, else the
    platform's user config directory."""
    override = os.environ.get("GRADLE_REPL_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir(_APP))
