"""Session options: what a call may choose, what is refused and why, how describe shows them, and the variables a
worker process starts with (a real login shell for envSource 'shell')."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from gradle_repl.errors import GradleReplError
from gradle_repl.host import session_env
from gradle_repl.options import SESSION_OPTIONS, Option, SessionOptions, _declared, session_options
from gradle_repl.settings import TOKEN_ENV


def test_no_option_given_keeps_the_sessions_and_any_given_replace_them_whole() -> None:
    assert session_options() is None
    assert session_options(opt_in=["kotlin.ExperimentalUnsignedTypes"]) == SessionOptions(
        opt_in=("kotlin.ExperimentalUnsignedTypes",)
    )
    none = session_options(env_source="none")
    assert none is not None and none.env == {} and none.env_source == "none"


def test_an_option_is_declared_with_its_description_and_flag_or_not_at_all() -> None:
    """A field of SessionOptions without its description or its Option is refused when SESSION_OPTIONS is made (at
    import): the fronts would have nothing to make its parameter, flag and help from."""
    declared = {option.name: option for option in SESSION_OPTIONS}
    assert declared["jvm_args"].flag == "--jvm-arg" and declared["jvm_args"].wire_name == "jvmArgs"

    class Undeclared(BaseModel):
        workdir: tuple[str, ...] = Field(default_factory=tuple, description="d")
        undescribed: Annotated[str, Option("--workdir")] = "."

    with pytest.raises(TypeError, match=r"SessionOptions\.workdir: .*Option"):
        _declared("workdir", Undeclared.model_fields["workdir"])
    with pytest.raises(TypeError, match="description"):
        _declared("undescribed", Undeclared.model_fields["undescribed"])


@pytest.mark.parametrize(
    ("flag", "why"),
    [
        ("-Xmx8g", "--heap-mb"),
        ("-cp", "class path is the REPL's"),
        ("-Djava.class.path=/x", "class path is the REPL's"),
        ("-version", "ends the JVM"),
        ("-XX:+UseG1GC", "serial collector"),
        ("-Xshare:off", "class-data sharing"),
        ("-XX:+ExitOnOutOfMemoryError", "OutOfMemoryError itself"),
        ("-Djava.security.manager=disallow", "exit guard"),
        ("@flags.txt", "from a file"),
        ("Dfoo=bar", "is not a JVM flag"),
    ],
)
def test_flags_that_would_break_the_worker_are_refused_saying_why(flag: str, why: str) -> None:
    with pytest.raises(GradleReplError, match=f"jvmArgs: '{re.escape(flag)}'.*{why}"):
        session_options(jvm_args=[flag])


def test_module_flags_want_their_value_after_an_equals_sign() -> None:
    """A bare --add-opens would end the JVM at start; its value in the next argument is not a flag: both refused,
    saying the form that works. The = form passes."""
    for flag, example in (
        ("--add-opens", "--add-opens=java.base/java.lang=ALL-UNNAMED"),
        ("--add-exports", "--add-exports=java.base/"),
        ("--add-reads", "--add-reads="),
        ("--add-modules", "--add-modules=java.base"),
        ("--add-opens java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED"),
    ):
        with pytest.raises(
            GradleReplError, match=f"jvmArgs: '{re.escape(flag)}' needs its value after '='.*{re.escape(example)}"
        ):
            session_options(jvm_args=[flag])
    with pytest.raises(GradleReplError, match="jvmArgs: '--add-opens' needs its value after '='"):
        session_options(jvm_args=["--add-opens", "java.base/java.lang=ALL-UNNAMED"])
    assert (
        session_options(
            jvm_args=["--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--add-modules=jdk.incubator.vector"]
        )
        is not None
    )


def test_an_initial_heap_above_the_cap_is_refused() -> None:
    for flag in ("-Xms2g", "-XX:InitialHeapSize=2147483648", "-XX:MinHeapSize=1537m", "-Xms1572865k"):
        options = session_options(jvm_args=[flag])
        assert options is not None
        with pytest.raises(
            GradleReplError,
            match=f"jvmArgs: '{re.escape(flag)}' asks for an initial heap of .* above the session's heap cap of 1536 MB",
        ):
            options.check_heap(1536)
    for flag in ("-Xms1536m", "-Xms512M", "-XX:InitialHeapSize=1g", "-Xms1024"):
        chosen = session_options(jvm_args=[flag])
        assert chosen is not None
        chosen.check_heap(1536)


def test_ordinary_flags_names_and_variables_are_accepted_and_bad_ones_named() -> None:
    options = session_options(
        jvm_args=[
            "-Dapp.mode=repl",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "-Xss8m",
            "-XX:+UnlockDiagnosticVMOptions",
        ],
        opt_in=["kotlin.ExperimentalUnsignedTypes", "sample.Preview"],
        env={"APP_MODE": "repl"},
    )
    assert options is not None and options.compiler_options() == [
        "-opt-in=kotlin.ExperimentalUnsignedTypes",
        "-opt-in=sample.Preview",
    ]
    with pytest.raises(GradleReplError, match="optIn: 'not a name'"):
        session_options(opt_in=["not a name"])
    with pytest.raises(GradleReplError, match="env: '1BAD' is not a variable name"):
        session_options(env={"1BAD": "x"})


def test_describe_shows_secret_like_values_masked() -> None:
    options = session_options(
        env={"API_TOKEN": "t0p", "DB_PASSWORD": "pw", "AWS_SECRET_ACCESS_KEY": "k", "APP_MODE": "repl"},
        jvm_args=["-Dservice.apiKey=abc", "-Dapp.mode=repl"],
    )
    assert options is not None
    shown = options.masked()
    assert shown.env == {"API_TOKEN": "***", "APP_MODE": "repl", "AWS_SECRET_ACCESS_KEY": "***", "DB_PASSWORD": "***"}
    assert shown.jvm_args == ("-Dservice.apiKey=***", "-Dapp.mode=repl")
    assert "t0p" not in options.summary() and "abc" not in options.summary() and "APP_MODE=repl" in options.summary()


@pytest.fixture
def login_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real login shell (/bin/sh -l) whose profile is the test's; the per-server cache emptied before and after."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SHELL", "/bin/sh")
    session_env.login_shell_environment.cache_clear()
    yield home / ".profile"
    session_env.login_shell_environment.cache_clear()


def test_the_worker_gets_the_servers_variables_the_shells_or_none_with_env_over_them(
    login_shell: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    login_shell.write_text("export FROM_PROFILE=profiled\nexport PATH=/opt/profiled/bin:$PATH\n")
    monkeypatch.setenv("ONLY_IN_SERVER", "server")
    inherited = session_env.process_environment(SessionOptions(env={"EXTRA": "1"}))
    assert inherited["ONLY_IN_SERVER"] == "server" and inherited["EXTRA"] == "1" and "FROM_PROFILE" not in inherited
    shell = session_env.process_environment(SessionOptions(env_source="shell", env={"FROM_PROFILE": "overridden"}))
    assert (
        shell["FROM_PROFILE"] == "overridden"
        and shell["PATH"].startswith("/opt/profiled/bin:")
        and "ONLY_IN_SERVER" not in shell
    )
    assert shell["GRADLE_REPL_CACHE_DIR"] == os.environ["GRADLE_REPL_CACHE_DIR"]  # gradle-repl's own always pass
    nothing = session_env.process_environment(SessionOptions(env_source="none", env={"ONLY": "this"}))
    assert {k for k in nothing if not k.startswith(("GRADLE_REPL_", "PYTHON"))} == {"ONLY"}


def test_no_worker_gets_the_servers_token_whatever_its_env_source(
    login_shell: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    login_shell.write_text(f"export {TOKEN_ENV}=from-the-profile-too-long-enough\n")
    monkeypatch.setenv(TOKEN_ENV, "the-servers-token-long-enough")
    for source in ("inherit", "shell", "none"):
        environment = session_env.process_environment(SessionOptions(env_source=source))
        assert (
            TOKEN_ENV not in environment and environment["GRADLE_REPL_CACHE_DIR"] == os.environ["GRADLE_REPL_CACHE_DIR"]
        ), source
    # Given by name in the session's own env, it is the session's choice.
    assert session_env.process_environment(SessionOptions(env={TOKEN_ENV: "chosen"}))[TOKEN_ENV] == "chosen"


def test_a_login_shell_that_hangs_is_a_clear_error(login_shell: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    login_shell.write_text("read answer\nsleep 30\n")
    with pytest.raises(GradleReplError, match=r"/bin/sh -l did not finish within 0.5 s"):
        session_env.login_shell_environment(timeout_seconds=0.5)
