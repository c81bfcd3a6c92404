"""What a reply must tell besides the snippet's own result, each with its kind, so a client can act on it without
reading the text (a restarted or evicted session has lost its state)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Notice", "NoticeKind"]

NoticeKind = Literal[
    "evicted",
    "restarted",
    "updated",
    "replayed",
    "state_lost",
    "build_tool",
    "environment",
    "libraries",
    "options",
    "memory",
    "tests",
]


class Notice(BaseModel):
    """One thing the user must know, as text ready to show."""

    model_config = ConfigDict(frozen=True)

    kind: NoticeKind = Field(
        description="evicted: closed for room or idleness; restarted: the build or sources changed in a way the JVM "
        "can't apply in place; updated: the rebuilt project's classes were updated in place, state kept; replayed: the "
        "session's earlier successful snippets ran again after a restart; state_lost: a "
        "cancelled snippet ended the JVM; build_tool: the other build tool was used; environment: what the build "
        "can't give snippets; libraries: added again after a restart (or not); options: changed session options "
        "restarted the session; memory: the heap is nearly full; tests: which tests known to fail a failed-only run ran "
        "(or that none was known), and which dropped out"
    )
    text: str

    def __str__(self) -> str:
        return self.text
