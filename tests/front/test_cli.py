"""The `gradle-repl` command: its usage and the settings each command runs with, in process over fake workers;
eval and demo printing real results from real JVMs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gradle_repl.front import cli, server
from gradle_repl.front.cli import main
from gradle_repl.front.remote import option_arguments
from gradle_repl.host.manager import SessionManager
from gradle_repl.options import SessionOptions
from gradle_repl.paths import log_dir
from gradle_repl.settings import DEFAULTS, Settings
from support.fakeworker import FakeLauncher, fake_resolver
from support.paths import SAMPLE_PROJECT

jvm = pytest.mark.jvm


def gradle_repl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gradle_repl", *args], capture_output=True, text=True, timeout=600)


# --- In process ------------------------------------------------------------------------------------------------


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    """A command without its required arguments exits 2 with its usage on stderr."""
    with pytest.raises(SystemExit) as exited:
        main(["eval"])
    assert exited.value.code == 2 and "usage: gradle-repl eval" in capsys.readouterr().err


def test_http_flags_need_http_and_a_host_others_reach_needs_allow_remote(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--host/--port/--allow-remote without --http, a non-loopback --host without --allow-remote and eval with neither a
    project nor --connect are usage errors (exit 2, nothing served); --http hands host and port to the server."""
    served: list[tuple[Settings, bool]] = []
    monkeypatch.setattr(server, "serve_http", lambda settings, allow_remote: served.append((settings, allow_remote)))
    assert main(["serve", "--port", "9000"]) == 2 and "only apply with --http" in capsys.readouterr().err
    assert main(["eval", "-e", "1"]) == 2 and "needs the project directory" in capsys.readouterr().err
    monkeypatch.undo()
    assert main(["serve", "--http", "--host", "0.0.0.0"]) == 2
    assert "pass --allow-remote as well" in capsys.readouterr().err
    monkeypatch.setattr(server, "serve_http", lambda settings, allow_remote: served.append((settings, allow_remote)))
    assert main(["serve", "--http", "--host", "::1", "--port", "9000"]) == 0
    assert served == [(DEFAULTS.model_copy(update={"http_host": "::1", "http_port": 9000}), False)]
    assert served[0][0].http_url() == "http://[::1]:9000/mcp"


def test_serve_runs_on_the_default_settings_and_each_flag_replaces_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve` hands the server the defaults (a spare worker and class-data training on); each flag changes exactly
    the setting it names."""
    served: list[Settings] = []
    monkeypatch.setattr(server, "serve", served.append)
    assert main(["serve"]) == 0
    assert (
        main(
            [
                "serve",
                "--max-sessions",
                "2",
                "--idle-timeout",
                "5",
                "--no-spare-worker",
                "--timeout",
                "7",
                "--heap-mb",
                "512",
                "--full-jit",
                "--no-class-data-sharing",
            ]
        )
        == 0
    )
    assert served[0] == DEFAULTS and served[0].spare_worker and served[0].train_class_data
    assert served[1] == DEFAULTS.model_copy(
        update={
            "max_sessions": 2,
            "idle_timeout_seconds": 5.0,
            "spare_worker": False,
            "snippet_timeout_seconds": 7.0,
            "heap_mb": 512,
            "full_jit": True,
            "class_data_sharing": False,
        }
    )


def test_eval_is_one_shot_one_worker_nothing_in_the_background(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`eval` runs its snippets in one session on one worker, each echoed before its result (printed as the repl prints
    it), with --timeout as each snippet's timeout; it starts neither a spare worker nor a class-data trainer, which would only be killed at exit."""
    launcher = FakeLauncher()
    built: list[Settings] = []
    real_from_settings = SessionManager.from_settings

    def from_settings(settings: Settings, **_: object) -> SessionManager:
        """The manager the command asks for, on fake workers and the fake resolver."""
        built.append(settings)
        return real_from_settings(settings, resolver=fake_resolver, launcher=launcher)

    monkeypatch.setattr(SessionManager, "from_settings", from_settings)
    assert main(["eval", "/p", "--timeout", "7", "-e", "A", "-e", "B"]) == 0
    assert capsys.readouterr().out.splitlines() == [">>> A", "A   // kotlin.String", ">>> B", "B   // kotlin.String"]
    assert built == [
        DEFAULTS.model_copy(update={"snippet_timeout_seconds": 7.0, "spare_worker": False, "train_class_data": False})
    ]
    [worker] = launcher.spawned
    assert worker.requests_seen == ["A", "B"] and worker.timeouts_ms == [7000, 7000]


def test_check_compiles_each_snippet_in_one_session_runs_none_and_exits_1_on_errors(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    launcher = FakeLauncher()
    real_from_settings = SessionManager.from_settings

    def from_settings(settings: Settings, **_: object) -> SessionManager:
        return real_from_settings(settings, resolver=fake_resolver, launcher=launcher)

    monkeypatch.setattr(SessionManager, "from_settings", from_settings)
    assert main(["check", "/p", "-e", "A", "-e", "B + missing"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        ">>> A",
        "Compiles; nothing was run. Its value would be of type kotlin.String.",
        ">>> B + missing",
        "Error: 1 error(s); nothing was run.",
        "error: Unresolved reference 'missing'. (line 1, col 5)",
    ]
    [worker] = launcher.spawned
    assert worker.checks_seen == ["A", "B + missing"] and worker.requests_seen == []


# --- Real JVMs --------------------------------------------------------------------------------------------------


@jvm
def test_eval_runs_snippets_in_one_session() -> None:
    done = gradle_repl("eval", str(SAMPLE_PROJECT), "--build-tool", "maven", "-e", "val x = 6", "-e", "x * 7")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [">>> val x = 6", ">>> x * 7", "42   // kotlin.Int"]


@jvm
def test_eval_exits_1_when_a_snippet_fails() -> None:
    """A failed snippet sets the exit status; a compile warning is printed once, before the error it explains."""
    done = gradle_repl("eval", str(SAMPLE_PROJECT), "--build-tool", "maven", "-e", "missing", "-e", "val d = 1 / 0")
    assert done.returncode == 1 and "Unresolved reference 'missing'" in done.stdout
    lines = done.stdout.splitlines()
    warning = lines.index("warning: Division by zero. (line 1, col 9)")
    assert lines[warning + 3] == "error: java.lang.ArithmeticException: / by zero", done.stdout
    assert "warning: warning:" not in done.stdout


@jvm
def test_demo_prints_each_snippet_and_its_real_result() -> None:
    """README command (1)'s last step: a session through the MCP server over stdio, which runs with the caller's
    environment (the run's log directory gets its worker's log; the SDK alone would hand it only HOME, PATH and a
    few)."""
    logs = log_dir()
    before = set(logs.glob("worker-*.log"))
    done = gradle_repl("demo")
    assert done.returncode == 0, done.stderr
    assert set(logs.glob("worker-*.log")) - before, f"the demo's worker logged outside {logs}"
    out = done.stdout
    assert "tools run_kotlin_snippet" in out
    assert "[The Trial, Dubliners, The Waves]" in out
    assert "Loan(title=dubliners, days=14)" in out
    assert "{Franz Kafka=1925.0, James Joyce=1914.0, Virginia Woolf=1931.0}" in out
    assert "Error: java.lang.IllegalStateException: a runtime error" in out


def test_session_option_flags_become_the_sessions_options_and_bad_ones_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--env/--env-source/--jvm-arg/--opt-in make the session options eval and repl start a session with (and the
    same tool arguments over --connect); a malformed --env is a usage error, a refused flag a failure with its reason,
    both before any build or JVM."""
    args = cli._parser().parse_args(
        cli._flag_values_joined(
            [
                "eval",
                "--connect",
                "--session",
                "x",
                "-e",
                "1",
                "--env",
                "A=1",
                "--env",
                "B==2",
                "--env-source",
                "shell",
                "--jvm-arg",
                "-Dk=v",
                "--opt-in",
                "kotlin.ExperimentalUnsignedTypes",
            ]
        )
    )
    options = cli._session_options(args)
    assert options == SessionOptions(
        env={"A": "1", "B": "=2"}, env_source="shell", jvm_args=("-Dk=v",), opt_in=("kotlin.ExperimentalUnsignedTypes",)
    )
    assert option_arguments(options) == {
        "env": {"A": "1", "B": "=2"},
        "envSource": "shell",
        "jvmArgs": ["-Dk=v"],
        "optIn": ["kotlin.ExperimentalUnsignedTypes"],
    }
    assert option_arguments(cli._session_options(cli._parser().parse_args(["eval", "p", "-e", "1"]))) == {}
    assert main(["eval", ".", "--env", "NOEQUALS", "-e", "1"]) == 2 and "write NAME=VALUE" in capsys.readouterr().err
    assert main(["eval", ".", "--jvm-arg", "-XX:+UseG1GC", "-e", "1"]) == 1
    assert "serial collector" in capsys.readouterr().err


def _joining(*flags: str) -> object:
    """What `eval --connect` decides about a live session on `:app`'s test source set built with maven."""
    from gradle_repl.front.outputs import LiveSession

    info = LiveSession(
        session_id="live",
        state="idle",
        project_root=str(SAMPLE_PROJECT),
        project_path=":app",
        source_set="test",
        build_tool="maven",
        kotlin_version="2.3.21",
        java_home="/jdk",
        java_version="17",
        snippets_run=1,
        uptime_seconds=1.0,
        idle_seconds=1.0,
        worker_pid=None,
        worker_rss_bytes=None,
    )
    args = cli._project_defaults(
        cli._parser().parse_args(["eval", "--connect", "--session", "live", *flags, "-e", "1"])
    )
    try:
        cli._same_project(info, args)
    except cli.UsageError as refused:
        return str(refused)
    return None


def test_connect_refuses_a_project_flag_given_at_its_default_and_joins_when_it_is_left_out() -> None:
    """A flag given at its default value is a choice: `--source-set main` or `--project :` is refused by a session on
    :app's test source set, naming it; left out, the session's own is used; `--build-tool auto` lets the session's own
    build tool stand; a run without --connect still gets the defaults."""
    assert _joining() is None
    assert "not --source-set main" in str(_joining("--source-set", "main"))
    assert "not --project :" in str(_joining("--project", ":"))
    assert _joining("--build-tool", "auto") is None and _joining("--source-set", "test", "--project", ":app") is None
    assert "not --build-tool gradle" in str(_joining("--build-tool", "gradle"))
    local = cli._project_defaults(cli._parser().parse_args(["eval", ".", "-e", "1"]))
    assert (local.project, local.source_set, local.build_tool, local.given) == (":", "main", "auto", set())
