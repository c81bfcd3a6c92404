"""The worker's requests (worker/__main__.py): each WorkerRequest of frames.py has one row in the worker's table and is
answered by one function that stamps its id and duration; a cancel reaches its eval whenever it arrives.

The reader and the main thread meet only through `receive` (the reader's step per line) and `begin`/`end` (the main
thread's); the interleavings are driven here step by step, in the order the race would take, so nothing waits.
"""

from __future__ import annotations

import io
import threading
import typing
from types import SimpleNamespace
from typing import Any, cast

import pytest

import gradle_repl.worker.__main__ as worker_main
from gradle_repl.frames import (
    CancelRequest,
    CheckRequest,
    CheckResult,
    DescribeRequest,
    ErrorResult,
    EvalRequest,
    Request,
    ResultFrame,
    WorkerRequest,
    decode_frame,
    encode,
)
from gradle_repl.worker.__main__ import Requests, _answer, _handlers
from gradle_repl.worker.channel import FrameChannel
from gradle_repl.worker.results.output_frames import Send


def _union_members(annotated: object) -> set[type]:
    union = typing.get_args(annotated)[0]
    return set(typing.get_args(union))


def test_every_worker_request_has_one_handler_and_declares_an_answer_the_wire_carries() -> None:
    """The table of worker/__main__.py holds exactly the WorkerRequests the wire's Request union has: a request added
    to frames.py without its handler (or a handler for a request gone) fails here; each declares its answer, a result
    kind the frame union decodes, and may always be answered by an error."""
    requests = {kind for kind in _union_members(Request) if issubclass(kind, WorkerRequest)}
    table = _handlers(cast(Any, SimpleNamespace(evaluate=None, run_tests=None)), cast(Any, None))
    assert set(table) == requests and len(requests) == 10
    results = _union_members(ResultFrame)
    for kind in requests:
        declared, error = kind.answer_types()
        assert declared in results and error is ErrorResult, kind


def _answered(request: WorkerRequest[Any], handler: Any) -> bytes:
    frames = io.BytesIO()
    channel = FrameChannel(io.BytesIO(), frames)
    _answer(request, handler, channel, Requests(channel))
    return frames.getvalue()


def test_one_place_stamps_each_answer_with_its_requests_id_and_duration() -> None:
    """Whatever id a handler's result carries, the answer has the request's, and how long the handler took."""

    def handle(request: CheckRequest, send: Send, cancel: threading.Event) -> CheckResult:
        return CheckResult(id=99, compiled=True)

    [line] = _answered(CheckRequest(id=7, code="1"), handle).splitlines()
    frame = decode_frame(line)
    assert isinstance(frame, CheckResult) and frame.id == 7 and frame.duration_ms >= 0


def test_a_failing_handler_costs_one_error_reply_naming_the_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a System.exit (which the worker asks its JVM about: none runs here), the handler's failure is one error."""
    monkeypatch.setattr(worker_main, "_exiting", lambda: False)

    def handle(request: CheckRequest, send: Send, cancel: threading.Event) -> CheckResult:
        raise RuntimeError("boom")

    [line] = _answered(CheckRequest(id=3, code="1"), handle).splitlines()
    frame = decode_frame(line)
    assert isinstance(frame, ErrorResult) and frame.id == 3, frame
    assert frame.message == "the check request failed: RuntimeError('boom')", frame.message


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
