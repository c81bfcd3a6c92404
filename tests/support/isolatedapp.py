"""An app as a container runs it, for the attach-over-TCP tests: in a mount namespace of its own where gradle-repl's
cache, the user's home (Maven's repository, the persistent test caches), the checkout with its projects and the
worker's JDK are empty directories, run as another uid (nobody), on another JDK, with only its jar, the agent's jar
(mounted into a container the same way) and its token file to see. Its agent listens on TCP at a port it picks and
names on its console. Made with unshare and setpriv, which need root (as the suite runs here)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from gradle_repl.paths import cache_dir
from gradle_repl.project.running_jvms import java_home_of
from support.paths import REPO, persistent_test_cache
from support.runningapp import RunningApp, running_app

__all__ = ["NOBODY", "IsolatedApp", "isolated_app", "isolation_unavailable"]

NOBODY = 65534
# Where its agent says it listens: `/127.0.0.1:PORT` by default (the tests check what else reaches it).
_LISTENS = re.compile(r"gradle-repl's agent listens on \S*:(\d+) ")


@dataclass
class IsolatedApp:
    app: RunningApp
    port: int  # where its agent listens, on this machine's loopback (the namespace shares the network)
    token_file: Path  # the token as the app read it (readable by root here, as a mounted secret is)
    hidden: list[Path]


def isolation_unavailable() -> str | None:
    """Why this machine can't run an isolated app, or None."""
    if os.geteuid() != 0:
        return "running an app in a mount namespace of its own as another uid needs root (unshare, setpriv)"
    missing = [tool for tool in ("unshare", "setpriv") if shutil.which(tool) is None]
    return f"{' and '.join(missing)} not installed (util-linux)" if missing else None


@contextmanager
def isolated_app(java: Path, app_jar: Path, agent_jar: Path, token: str, *, ready: str) -> Iterator[IsolatedApp]:
    """The app started with `java -jar` as described above; its agent's port read from its console."""
    if (why := isolation_unavailable()) is not None:
        pytest.skip(why)
    worker_jdk = Path(java_home_of(shutil.which("java") or "java")).resolve()
    wanted = {
        cache_dir().resolve(),
        Path.home().resolve(),
        persistent_test_cache().resolve(),
        REPO.resolve(),
        worker_jdk,
    }
    # One mount hides what is inside it (and a mount point inside a hidden directory no longer exists).
    hidden = sorted(
        path for path in wanted if not any(other != path and path.is_relative_to(other) for other in wanted)
    )
    own = Path(tempfile.mkdtemp(prefix="gradle-repl-isolated-"))
    try:
        own.chmod(0o755)
        for source, name in ((app_jar, "app.jar"), (agent_jar, "agent.jar")):
            shutil.copy(source, own / name)
            (own / name).chmod(0o644)
        token_file = own / "token"
        token_file.write_text(token + "\n")
        token_file.chmod(0o600)
        os.chown(token_file, NOBODY, NOBODY)
        mounts = " && ".join(f"mount -t tmpfs -o size=1m none '{directory}'" for directory in hidden)
        start = (
            f"exec setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups '{java}' -Xmx192m "
            f"-javaagent:{own}/agent.jar=listen=0,tokenFile={token_file} -jar {own}/app.jar"
        )
        command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", f"{mounts} && cd {own} && {start}"]
        # The app's own variables: nothing of gradle-repl's (a container has none of them).
        env = {name: value for name, value in os.environ.items() if not name.startswith(("GRADLE_REPL_", "JAVA_TOOL"))}
        with running_app(command, ready=ready, env=env) as app:
            found = next((_LISTENS.search(line) for line in _lines_so_far(app) if _LISTENS.search(line)), None)
            assert found is not None, "the agent did not say where it listens"
            yield IsolatedApp(app, int(found.group(1)), token_file, hidden)
    finally:
        shutil.rmtree(own, ignore_errors=True)


def _lines_so_far(app: RunningApp) -> list[str]:
    """What the app printed up to its ready line (its agent's line among them)."""
    return [*app.seen_before_ready, app.ready_line]
