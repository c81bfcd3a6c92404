"""gradle-repl: run Kotlin snippets inside a JVM project's own classpath, JDK and compiler plugins."""

from __future__ import annotations

from functools import cache
from importlib import metadata

__all__ = ["package_version"]

# What a source tree on sys.path, never installed, calls itself (pyproject.toml's version is the one written).
SOURCE_VERSION = "0+source"


@cache
def package_version() -> str:
    """gradle-repl's version as installed: pyproject.toml's, read from the package's metadata (written once there)."""
    try:
        return metadata.version("gradle-repl")
    except metadata.PackageNotFoundError:
        return SOURCE_VERSION


def __getattr__(name: str) -> str:
    # `gradle_repl.__version__`, read from the metadata only when asked: the CLI's every start imports this package.
    if name == "__version__":
        return package_version()
    raise AttributeError(f"module 'gradle_repl' has no attribute {name!r}")
