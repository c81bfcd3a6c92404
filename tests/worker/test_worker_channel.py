"""The worker's channel survives what snippets throw at it: huge messages, invalid text, floods past
capture; and the worker runs where the project is. Real JVM, real K2 REPL."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradle_repl.frames import ErrorResult, SuccessResult
from gradle_repl.worker.logsink import LOG_FILE_BYTES
from support.paths import SAMPLE_PROJECT
from support.workers import SyncWorker

pytestmark = pytest.mark.jvm


def test_a_70_megabyte_exception_message_is_capped_and_the_next_answer_is_its_own(sample_worker: SyncWorker) -> None:
    reply = sample_worker.eval('throw RuntimeException("x".repeat(70_000_000))')
    result = reply.result
    assert isinstance(result, ErrorResult), result
    assert result.error_kind == "runtime" and result.message.startswith("java.lang.RuntimeException: xxx")
    assert len(result.message) < 300_000 and "bytes truncated]" in result.message
    assert result.truncated_bytes >= 69_000_000
    assert sample_worker.value('"next"') == "next"
    assert sample_worker.value('"after"') == "after"


def test_a_lone_surrogate_is_replaced_and_the_session_keeps_its_state(sample_worker: SyncWorker) -> None:
    sample_worker.eval("val keep = 42")
    assert sample_worker.value('"ab\\uD800"') == "ab\ufffd"
    printed = sample_worker.eval('println("x\\uDC80y"); 1')
    # Printed text goes through the JVM's own UTF-8 encoder, which writes '?' as it would in the project.
    assert [f.data for f in printed.frames] == ["x?y\n"]
    assert sample_worker.value("keep") == "42"


def test_the_worker_runs_in_the_project_directory(sample_worker: SyncWorker) -> None:
    """Relative paths in snippets resolve against the project, as in its own tests."""
    assert Path(sample_worker.value('System.getProperty("user.dir")')) == SAMPLE_PROJECT
    assert sample_worker.value('java.io.File("pom.xml").exists()') == "true"


def test_output_that_bypasses_capture_lands_in_a_bounded_log(sample_worker: SyncWorker) -> None:
    """A child process writing 12 MB straight to the worker's stdout fills the log only up to its cap."""
    log = sample_worker.process.log_path()
    assert log is not None
    reply = sample_worker.eval(
        'ProcessBuilder("sh", "-c", "head -c 12000000 /dev/zero | tr \\"\\\\\\\\0\\" x").inheritIO().start().waitFor()'
    )
    assert isinstance(reply.result, SuccessResult), reply.result
    assert reply.result.value is not None and reply.result.value.data == "0", reply.result
    assert sample_worker.value('"still answering"') == "still answering"
    rotated = log.with_name(log.name + ".1")
    sizes = [p.stat().st_size for p in (log, rotated) if p.exists()]
    assert rotated.exists() and sum(sizes) <= 2 * LOG_FILE_BYTES + 64 * 1024, sizes
