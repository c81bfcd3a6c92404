"""The tokens gradle-repl keeps: the bearer token that guards `serve --http` (GRADLE_REPL_TOKEN when set, else one
generated once and kept in the user config directory, readable by its owner only; the server and the shell's
`--connect` read it alike), and the token an app's agent listening on TCP asks for (`agent-path --listen` keeps one
the same way; an attach over TCP gives it, or the one named)."""

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
from gradle_repl.worker.link.agent_options import agent_token_env

__all__ = [
    "TOKEN_ENV",
    "Token",
    "token_path",
    "server_token",
    "matches",
    "agent_token_path",
    "kept_agent_token",
    "agent_token",
]

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
    return _kept(token_path())


def agent_token_path() -> Path:
    return config_dir() / "agent-token"


def kept_agent_token(*, new: bool = False) -> Token:
    """The agent token `agent-path --listen` prints options with: the kept one, or a new one (`new`, or none kept)."""
    path = agent_token_path()
    if new:
        path.unlink(missing_ok=True)
    return _kept(path)


def agent_token(given: str | None = None, file: str | None = None) -> Token:
    """The token an attach over TCP gives the agent: `given`, else `file`'s, else GRADLE_REPL_AGENT_TOKEN's, else the
    one `agent-path --listen` keeps; one sentence saying where to put one when there is none."""
    if given:
        return Token(given.strip(), "the token given")
    if file:
        try:
            return Token(Path(file).expanduser().read_text(encoding="utf-8").strip(), file)
        except OSError as error:
            raise GradleReplError(f"can't read the agent's token file {file} ({error.strerror or error})") from None
    env = agent_token_env()
    if os.environ.get(env, "").strip():
        return Token(os.environ[env].strip(), f"the {env} environment variable")
    path = agent_token_path()
    try:
        return Token(_read_private(path), str(path))
    except FileNotFoundError:
        raise GradleReplError(
            f"no token for the agent: give the one its app was started with (tokenFile, or {env}); "
            f"`gradle-repl agent-path --listen PORT` makes one and keeps it in {path}"
        ) from None


def _kept(path: Path) -> Token:
    """The token in path, else a new one written there with mode 0600."""
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
