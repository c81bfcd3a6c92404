"""The host never gives up on a stopped snippet's worker before the worker could have answered."""

from gradle_repl.host import handle
from gradle_repl.worker.deadlines import COMPILE_AFTER_CANCEL_SECONDS, INTERRUPT_GRACE_SECONDS, REPLY_SECONDS


def test_the_hosts_waits_cover_the_workers_grace_and_its_reply() -> None:
    for host_wait in (handle.CANCEL_ANSWER_SECONDS, handle.RESULT_MARGIN_SECONDS):
        assert host_wait >= INTERRUPT_GRACE_SECONDS + REPLY_SECONDS
        # Waiting for the compiler ends before the host stops waiting, with time left to say "it never ran".
        assert host_wait > COMPILE_AFTER_CANCEL_SECONDS
