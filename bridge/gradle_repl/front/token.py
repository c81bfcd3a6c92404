"""The bearer token that guards `serve --http`: GRADLE_REPL_TOKEN when set, else one generated once and kept in
the user config directory, readable by its owner only. The server and the shell's `--connect` read it alike."""

from __future__ import annotations

import hmac
import os
import secrets
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gradle_repl.errors import GradleReplError
from gradle_repl.paths import config_dir
from gradle_repl.settings import TOKEN_ENV

__all__ = ["TOKEN_ENV", "Token", "token_path", "server_token", "matches"]

# 32 random bytes: 256 bits, twice what guessing would need to be hopeless.
TOKEN_BYTES = 32
# A token shorter than this (set by hand in GRADLE_REPL_TOKEN) is refused: it could be guessed.
MIN_TOKEN_CHARS = 16


@dataclass(frozen=True)
class Token:
    value: str
    source: str  # where it came from, said on stderr instead of the token itself

    def __repr__(self) -> str:
        return f"Token(source={self.source!r})"  # never the value, whatever prints it


def token_path() -> Path:
    return config_dir() / "token"


def server_token() -> Token:
    """GRADLE_REPL_TOKEN, else the token file's, else a new one written there with mode 0600."""
    given = os.environ.get(TOKEN_ENV)
    if given is not None:
        given = given.strip()
        if len(given) < MIN_TOKEN_CHARS:
            raise GradleReplError(
                f"{TOKEN_ENV} is {len(given)} characters; use at least {MIN_TOKEN_CHARS} (or unset it to use a generated one)"
            )
        return Token(given, f"the {TOKEN_ENV} environment variable")
    path = token_path()
    try:
        return Token(_read_private(path), str(path))
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written whole in a file of its own, then linked into place: os.link creates path only if it is absent, so
    # two servers starting at once keep one token, and no reader ever sees the file before the token is in it.
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".token-")  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(secrets.token_urlsafe(TOKEN_BYTES) + "\n")
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process won: its token is the one
    finally:
        os.unlink(temporary)
    return Token(_read_private(path), str(path))


def _read_private(path: Path) -> str:
    """The token in path, after making sure no one but its owner can read it."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if os.name == "posix" and mode & 0o077:
        os.chmod(path, 0o600)
    value = path.read_text(encoding="ascii").strip()
    if len(value) < MIN_TOKEN_CHARS:
        raise GradleReplError(f"the token in {path} is too short or empty; delete the file and a new one is made")
    return value


def matches(given: str, expected: str) -> bool:
    """Constant-time: how much of a guess was right never shows in how long the answer took."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), expected.encode("utf-8"))
