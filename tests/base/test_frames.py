"""Each frame decodes to its own model by its tag; a result is one of three kinds, never a bag of optionals."""

import pytest
from pydantic import BaseModel, ValidationError

from gradle_repl.frames import (
    DescriptionResult,
    ErrorResult,
    ExitingFrame,
    SessionDescription,
    SnippetTimes,
    StreamFrame,
    SuccessResult,
    decode_frame,
    encode,
)


@pytest.mark.parametrize(
    "frame",
    [
        SuccessResult(id=3, value_type="kotlin.Unit", heap_warning="memory: 90% full"),
        SuccessResult(id=3, times=SnippetTimes(compile_ms=41.25, evaluate_ms=0.5, render_ms=0.0)),
        ErrorResult(id=3, error_kind="exited", state_lost=True, message="gone"),
        DescriptionResult(id=3, description=SessionDescription(imports=["a.b"]), declared=0),
        ExitingFrame(id=3),
        StreamFrame(id=3, event="stderr", data="x"),
    ],
)
def test_a_frame_comes_back_as_the_model_it_was_sent_as(frame: BaseModel) -> None:
    assert decode_frame(encode(frame)) == frame


def test_an_error_must_say_its_kind_and_a_success_carries_no_error_fields() -> None:
    with pytest.raises(ValidationError):
        decode_frame('{"event": "result", "type": "error", "message": "no kind"}')
    success = decode_frame('{"event": "result", "type": "success"}')
    assert isinstance(success, SuccessResult) and not hasattr(success, "error_kind")
