"""The worker's request reader (worker/__main__.py `Requests`): a cancel reaches its eval whenever it arrives.

The reader and the main thread meet only through `receive` (the reader's step per line) and `begin`/`end` (the main
thread's); the interleavings are driven here step by step, in the order the race would take, so nothing waits.
"""

from __future__ import annotations

import io

from gradle_repl.frames import CancelRequest, DescribeRequest, EvalRequest, encode
from gradle_repl.worker.__main__ import Requests
from gradle_repl.worker.channel import FrameChannel


def _requests() -> Requests:
    return Requests(FrameChannel(io.BytesIO(), io.BytesIO()))


def _eval(request_id: int) -> bytes:
    return encode(EvalRequest(id=request_id, code="1", timeout_ms=1000))


def _begun(requests: Requests, request_id: int) -> None:
    """The main thread takes eval `request_id` from the reader and begins it."""
    requests.receive(_eval(request_id))
    requests.begin(request_id)


def test_a_cancel_read_before_its_eval_begins_cancels_it_when_it_begins() -> None:
    """The client cancels right after sending: the reader reads both lines before the main thread takes the eval."""
    requests = _requests()
    requests.receive(_eval(1))
    requests.receive(encode(CancelRequest(id=1)))
    assert requests.pending.get_nowait() == _eval(1)
    requests.begin(1)
    assert requests.cancel.is_set()


def test_a_cancel_for_an_eval_queued_behind_another_waits_for_its_own() -> None:
    """A cancel of the queued eval leaves the running one alone, and cancels the queued one when it begins."""
    requests = _requests()
    _begun(requests, 1)
    requests.receive(_eval(2))
    requests.receive(encode(CancelRequest(id=2)))
    assert not requests.cancel.is_set()
    requests.end()
    requests.begin(2)
    assert requests.cancel.is_set()


def test_a_cancel_of_a_running_eval_is_applied_at_once_and_not_carried_to_the_next() -> None:
    requests = _requests()
    _begun(requests, 1)
    requests.receive(encode(CancelRequest(id=1)))
    assert requests.cancel.is_set()
    requests.end()
    _begun(requests, 2)
    assert not requests.cancel.is_set()


def test_a_cancel_arriving_after_its_eval_answered_is_dropped() -> None:
    """A late cancel (its eval already ended) is kept for nothing: a later eval never begins cancelled by it."""
    requests = _requests()
    _begun(requests, 1)
    requests.end()
    requests.receive(encode(CancelRequest(id=1)))
    requests.receive(encode(DescribeRequest(id=2)))
    requests.receive(encode(CancelRequest(id=2)))
    _begun(requests, 3)
    assert not requests.cancel.is_set()
    assert requests.pending.qsize() == 3  # the evals and the describe reach the main thread; cancels never do
