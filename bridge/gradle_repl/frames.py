"""The newline-delimited JSON frames a server and its worker exchange, one model per kind.

Requests go server → worker on the worker's stdin; frames come back on a private pipe that nothing
a snippet or the JVM prints can reach. Every eval request is answered by zero or more
stdout/stderr/display frames and exactly one result frame.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter

from .environment import ReplEnvironment

__all__ = [
    "StartRequest",
    "EvalRequest",
    "Request",
    "ReadyFrame",
    "StreamFrame",
    "DisplayFrame",
    "ResultFrame",
    "ErrorKind",
    "Frame",
    "encode",
    "decode_frame",
    "decode_request",
]

DisplayKind = Literal["text", "markdown", "html", "image"]
ErrorKind = Literal["compile", "runtime", "timeout", "exited", "out_of_memory", "internal"]


class StartRequest(BaseModel):
    op: Literal["start"] = "start"
    environment: ReplEnvironment
    heap_mb: int = 768
    output_limit_bytes: int = 1_000_000
    frame_limit_bytes: int = 200_000


class EvalRequest(BaseModel):
    op: Literal["eval"] = "eval"
    code: str
    timeout_ms: int = 60_000


Request = Annotated[Union[StartRequest, EvalRequest], Field(discriminator="op")]


class ReadyFrame(BaseModel):
    event: Literal["ready"] = "ready"
    pid: int
    kotlin_version: str
    java_version: str
    facade_compiled: bool = Field(description="true when this start compiled the jvm-worker facade")
    startup_ms: int


class StreamFrame(BaseModel):
    event: Literal["stdout", "stderr"]
    data: str


class DisplayFrame(BaseModel):
    event: Literal["display"] = "display"
    kind: DisplayKind
    mime: str
    data: str = Field(description="text, or base64 for images")
    meta: dict[str, str] = Field(default_factory=dict)


class ResultFrame(BaseModel):
    event: Literal["result"] = "result"
    type: Literal["success", "error"]
    value: DisplayFrame | None = Field(default=None, description="the last expression, rendered")
    value_type: str | None = None
    error_kind: ErrorKind | None = None
    message: str = ""
    stack: str = ""
    warnings: list[str] = Field(default_factory=list)
    truncated_bytes: int = 0
    state_lost: bool = False
    duration_ms: int = 0


Frame = Annotated[Union[ReadyFrame, StreamFrame, DisplayFrame, ResultFrame], Field(discriminator="event")]

_FRAME = TypeAdapter(Frame)
_REQUEST = TypeAdapter(Request)


def encode(model: BaseModel) -> bytes:
    """One frame as a single line; JSON escapes every newline inside strings."""
    return model.model_dump_json().encode("utf-8") + b"\n"


def decode_frame(line: bytes | str) -> ReadyFrame | StreamFrame | DisplayFrame | ResultFrame:
    return _FRAME.validate_json(line)


def decode_request(line: bytes | str) -> StartRequest | EvalRequest:
    return _REQUEST.validate_json(line)
