"""Every attach failure that needs no running app is one sentence naming what went wrong and what to do: no repr of
an internal object, no Java stack, one line."""

from __future__ import annotations

import os

import pytest

from gradle_repl.errors import GradleReplError
from gradle_repl.project.attach_target import attach_environment
from gradle_repl.worker.attach.warm_up import _warm_up_failure
from gradle_repl.worker.link.agent_wire import AgentError, AgentStopped
from gradle_repl.worker.results.report import StackFrame, ThrowableInfo
from support.sentences import is_a_sentence


def test_no_such_process_and_a_process_that_is_no_jvm_are_each_one_sentence() -> None:
    """attach_environment refuses a pid with no process and one that is not a JVM, each saying where to look."""
    for pid in (2**22 + 7, os.getpid()):
        with pytest.raises(GradleReplError) as refused:
            attach_environment(pid)
        assert is_a_sentence(str(refused.value)) and "gradle-repl jvms" in str(refused.value), refused.value


def test_an_app_that_cannot_load_kotlin_is_told_what_to_do() -> None:
    """The app's JVM failing the first snippet for want of a Kotlin class says so, and to attach with the project."""
    chain = [
        ThrowableInfo("java.lang.NoClassDefFoundError", "kotlin/Unit", (StackFrame("_1_repl", "$$eval", None, -1),))
    ]
    message = _warm_up_failure(AgentError(0, chain))
    assert is_a_sentence(message), message
    assert "kotlin/Unit" in message and "--project" in message


@pytest.mark.parametrize(
    "reply",
    [
        AgentError(
            0,
            [
                ThrowableInfo(
                    "java.lang.LinkageError", "loader constraint violation", (StackFrame("a.B", "c", "B.java", 3),)
                )
            ],
        ),
        AgentStopped(0, "stopped"),
        None,
    ],
)
def test_every_other_first_snippet_failure_is_one_sentence(reply: AgentError | AgentStopped | None) -> None:
    """Whatever else ends the first snippet (a throwable, a stop, no answer) is one sentence with what to do."""
    message = _warm_up_failure(reply)
    assert is_a_sentence(message), message
    assert "attach again" in message or "stopped (SIGSTOP) or hung" in message


def test_a_worker_that_fails_to_start_for_an_unforeseen_reason_says_one_line_with_its_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An error the worker's start didn't foresee (a JVM's, say) reaches the user as its kind and text, not a repr."""
    from gradle_repl.worker.__main__ import LOG_PATH_ENV, _start_failure

    monkeypatch.setenv(LOG_PATH_ENV, "/tmp/worker.log")
    message = _start_failure(OSError("JVM DLL not found:\n  /opt/jdk/lib/server/libjvm.so"))
    assert is_a_sentence(message), message
    assert "OSError: JVM DLL not found: /opt/jdk/lib/server/libjvm.so" in message and "/tmp/worker.log" in message
