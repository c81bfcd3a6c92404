"""The variables a session's worker process starts with, from its options: the server's own (inherit), the user's
login shell's (shell, read once per server with a timeout), or none; then the session's `env` over them. gradle-repl's
own `GRADLE_REPL_*` variables (where caches and logs are) and Python's `PYTHON*` always pass: the worker process needs
them to run at all, except the server's token (GRADLE_REPL_TOKEN) and apps' agents' (GRADLE_REPL_AGENT_TOKEN), which
no snippet sees."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys

from gradle_repl.errors import GradleReplError
from gradle_repl.options import SessionOptions
from gradle_repl.settings import DEFAULTS, TOKEN_ENV
from gradle_repl.worker.link.agent_options import agent_token_env

__all__ = ["process_environment", "login_shell_environment"]

# The worker process's own needs, whatever the session chose: where gradle-repl keeps things, and how this Python
# finds gradle-repl (PYTHONPATH, when it runs from a source tree).
_OWN_PREFIXES = ("GRADLE_REPL_", "PYTHON")
# What login(1) hands a login shell; its profile scripts set up the rest.
_LOGIN_VARIABLES = ("HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TERM")


def process_environment(options: SessionOptions) -> dict[str, str]:
    if options.env_source == "inherit":
        base = dict(os.environ)
    else:
        own = {name: value for name, value in os.environ.items() if name.startswith(_OWN_PREFIXES)}
        base = {**login_shell_environment(), **own} if options.env_source == "shell" else own
    # The server's token, and the token of apps' agents: no snippet sees either (an attached session's worker gets its
    # agent's token in its placement).
    base.pop(TOKEN_ENV, None)
    base.pop(agent_token_env(), None)
    return {**base, **options.env}


@functools.cache
def login_shell_environment(timeout_seconds: float = DEFAULTS.login_shell_timeout_seconds) -> dict[str, str]:
    """What `$SHELL -l` sets up, as a terminal would have it (a client started from a GUI often has another PATH or
    JAVA_HOME). Read once per server process."""
    if sys.platform == "win32":
        raise GradleReplError("envSource 'shell' reads a POSIX login shell; on Windows use 'inherit' and env")
    shell = os.environ.get("SHELL") or "/bin/sh"
    try:
        shell_process = subprocess.Popen(
            [shell, "-l", "-c", "env -0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # As a fresh login starts: who the user is, nothing of the server's own environment.
            env={name: os.environ[name] for name in _LOGIN_VARIABLES if name in os.environ},
            start_new_session=True,  # its profile can't read the terminal or take a Ctrl-C meant for the server
        )
    except OSError as error:
        raise GradleReplError(f"envSource 'shell': can't run {shell}: {error.strerror}") from None
    try:
        stdout, stderr = shell_process.communicate(timeout=timeout_seconds)
    except subprocess.TimeoutExpired:
        # The whole group: what the profile started goes with the shell.
        os.killpg(shell_process.pid, signal.SIGKILL)
        shell_process.communicate()
        raise GradleReplError(
            f"envSource 'shell': {shell} -l did not finish within {timeout_seconds:g} s (does a profile script "
            "wait for input?); use 'inherit' with env instead"
        ) from None
    done = subprocess.CompletedProcess(shell_process.args, shell_process.returncode, stdout, stderr)
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["nothing"]
        raise GradleReplError(f"envSource 'shell': {shell} -l exited with {done.returncode} ({said[0]})")
    variables = (entry.split("=", 1) for entry in done.stdout.decode(errors="replace").split("\0") if "=" in entry)
    # The shell's own bookkeeping is not the user's environment.
    return {name: value for name, value in variables if name not in ("_", "SHLVL", "PWD", "OLDPWD")}
