"""The worker's side of the attach socket's privacy (worker/artifacts/agent_socket.py): it refuses to use a socket
directory that another user could enter or that is another user's, before it connects or tells an agent to listen
there. Real directories with real modes and owners; the agent's own check in Java is in test_attach.py."""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from gradle_repl.errors import WorkerFailed
from gradle_repl.worker.artifacts.agent_socket import agent_dir, socket_path

# Named as build_agent_jar names a build's jar; only its name is read.
JAR = Path("gradle-repl-agent-0123abcd.jar")


@pytest.fixture
def temp_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The directory tempfile hands out for this test: where the per-user socket directory is made. A short one under
    /tmp, not pytest's tmp_path: under pytest-xdist that path is long enough to put a socket's path past the ~107 bytes
    a Unix socket allows."""
    root = Path(tempfile.mkdtemp(prefix="gr-sock-", dir="/tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _user_dir(temp_root: Path) -> Path:
    return temp_root / f"gradle-repl-{os.getuid()}"


def test_the_directories_are_made_private_and_the_socket_named_by_pid(temp_root: Path) -> None:
    """Made where missing: this user's own, 0700, for the user and for the agent's build; the socket `<pid>.sock` in it."""
    path = Path(socket_path(4242, JAR))
    assert path == _user_dir(temp_root) / "agent-0123abcd" / "4242.sock"
    for directory in (path.parent, path.parent.parent):
        info = directory.lstat()
        assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == os.getuid()


@pytest.mark.parametrize("mode", [0o755, 0o710, 0o701, 0o770])
def test_a_directory_others_can_enter_is_refused(temp_root: Path, mode: int) -> None:
    """A user directory already there that its group or others may enter or list is refused, and left as it is."""
    directory = _user_dir(temp_root)
    directory.mkdir()
    directory.chmod(mode)
    with pytest.raises(WorkerFailed, match=r"must be a directory of this user's own with mode 0700"):
        agent_dir(JAR)
    assert stat.S_IMODE(directory.stat().st_mode) == mode and list(directory.iterdir()) == []


def test_an_agent_directory_others_can_enter_is_refused_under_a_private_user_directory(temp_root: Path) -> None:
    """Each level is checked: a private user directory doesn't make an open build directory in it safe."""
    directory = _user_dir(temp_root)
    directory.mkdir(mode=0o700)
    (directory / "agent-0123abcd").mkdir()
    (directory / "agent-0123abcd").chmod(0o755)
    with pytest.raises(WorkerFailed, match=r"agent-0123abcd must be a directory of this user's own with mode 0700"):
        socket_path(4242, JAR)


def test_a_symlink_in_place_of_the_directory_is_refused(temp_root: Path) -> None:
    """A link where the directory belongs (to a private directory, even) is refused: whoever made it chose the target."""
    target = temp_root / "elsewhere"
    target.mkdir(mode=0o700)
    _user_dir(temp_root).symlink_to(target)
    with pytest.raises(WorkerFailed, match="must be a directory of this user's own"):
        agent_dir(JAR)


def test_another_users_directory_is_refused(temp_root: Path) -> None:
    """A 0700 directory owned by another user (made here by root and given to `nobody`) is refused: its owner could
    replace the socket with one of their own."""
    if os.getuid() != 0:
        reason = f"giving a directory to another user needs root; running as uid {os.getuid()}"
        print(f"skipped: {reason}")
        pytest.skip(reason)
    nobody = pwd.getpwnam("nobody")
    directory = _user_dir(temp_root)
    directory.mkdir(mode=0o700)
    os.chown(directory, nobody.pw_uid, nobody.pw_gid)
    assert directory.stat().st_uid == nobody.pw_uid != os.getuid()
    with pytest.raises(WorkerFailed, match=r"must be a directory of this user's own with mode 0700"):
        agent_dir(JAR)
