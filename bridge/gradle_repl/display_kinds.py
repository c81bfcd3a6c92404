"""What a snippet can display, and what each kind means to everyone who carries or shows it: the one table.

The facade's Renderer (jvm-worker Renderer.kt, display()) names a kind per display event; the worker fits it into a
frame (worker/output_frames.py, worker/safety.py), the MCP mapping turns it into content (front/content.py), and the
terminal prints it (front/terminal.py). Each of those reads the kind's rule here instead of naming kinds itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from pydantic import TypeAdapter

__all__ = ["DisplayKind", "DisplayKindRule", "DISPLAY_KINDS", "display_kind"]

DisplayKind = Literal["text", "markdown", "html", "image"]


@dataclass(frozen=True)
class DisplayKindRule:
    mime: str  # the MIME type of its frames where their maker names none (an image names its format)
    binary: bool  # data travels base64 encoded: never capped or cleaned as text, never printed as text
    untrusted_markup: bool  # markup a snippet made: shown as labelled text, never rendered


DISPLAY_KINDS: dict[DisplayKind, DisplayKindRule] = {
    "text": DisplayKindRule(mime="text/plain", binary=False, untrusted_markup=False),
    "markdown": DisplayKindRule(mime="text/markdown", binary=False, untrusted_markup=False),
    "html": DisplayKindRule(mime="text/html", binary=False, untrusted_markup=True),
    "image": DisplayKindRule(mime="image/png", binary=True, untrusted_markup=False),
}
assert set(DISPLAY_KINDS) == set(get_args(DisplayKind)), "every display kind has its rule"

_KIND: TypeAdapter[DisplayKind] = TypeAdapter(DisplayKind)


def display_kind(name: str) -> DisplayKind:
    """A kind named by the facade, checked against the table (pydantic's ValidationError names an unknown one)."""
    return _KIND.validate_python(name)
