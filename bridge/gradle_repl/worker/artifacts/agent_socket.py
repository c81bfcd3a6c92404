"""Where an attached JVM's agent listens: a Unix domain socket in a directory only this user can enter.

Any process that can connect to the socket can run code in the application, so the directory is made 0700 and
checked to be this user's own and private before its socket is used: another user can neither connect nor put a
socket of their own there. Each agent jar (named by its content digest) has a directory of its own, so a new agent
never talks to an old one; in it, the socket is named by the target's pid.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from gradle_repl.errors import WorkerFailed
from gradle_repl.worker.artifacts.agent_jar import build_hash

__all__ = ["agent_dir", "socket_path"]

# sockaddr_un's sun_path holds 108 bytes with its terminating NUL.
_MAX_SOCKET_PATH = 107


def _private(directory: Path) -> Path:
    """The directory, made if missing, when it is this user's own and only theirs."""
    directory.mkdir(mode=0o700, exist_ok=True)
    info = directory.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
        raise WorkerFailed(
            f"{directory} must be a directory of this user's own with mode 0700 (it holds the attach agent's sockets)"
        )
    return directory


def agent_dir(agent_jar: Path) -> Path:
    """The directory the agent of this jar is told to listen in (its argument, dynamic or -javaagent's)."""
    base = _private(Path(tempfile.gettempdir()) / f"gradle-repl-{os.getuid()}")
    return _private(base / f"agent-{build_hash(agent_jar)}")


def socket_path(pid: int, agent_jar: Path) -> str:
    """The socket the agent in JVM `pid` listens on: `<pid>.sock` in its directory (AttachAgent.listen names it so)."""
    path = str(agent_dir(agent_jar) / f"{pid}.sock")
    if len(path.encode()) > _MAX_SOCKET_PATH:
        raise WorkerFailed(
            f"the attach socket's path {path} is longer than a Unix socket allows: set TMPDIR to a shorter directory"
        )
    return path
