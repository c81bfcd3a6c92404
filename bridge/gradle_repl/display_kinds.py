"""What a snippet can display, and what each kind means to everyone who carries or shows it: the one table.

The facade's Renderer (jvm-worker Renderer.kt, display()) names a kind per display event; the worker fits it into a
frame (worker/results/output_frames.py, worker/results/safety.py), the MCP mapping turns it into content (front/content.py), and the
terminal prints it (front/terminal.py). Each of those reads the kind's rule here instead of naming kinds itself. The JVM
sides read it too: `java_source()` is the Java class `gradlerepl.both.DisplayKinds` they compile against, generated from
this table whenever their shared rules are built (resources.jvm_worker_both_sources), never written by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from pydantic import TypeAdapter

__all__ = ["DisplayKind", "DisplayKindRule", "DISPLAY_KINDS", "IMAGE_FORMATS", "display_kind", "java_source"]

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

# The formats an image is shown in, by the name the JVM sides give each: what their image detection tells apart.
IMAGE_FORMATS: dict[str, str] = {"PNG": "image/png", "JPEG": "image/jpeg"}

_KIND: TypeAdapter[DisplayKind] = TypeAdapter(DisplayKind)


def display_kind(name: str) -> DisplayKind:
    """A kind named by the facade, checked against the table (pydantic's ValidationError names an unknown one)."""
    return _KIND.validate_python(name)


def java_source() -> str:
    """The table as the JVM sides name it: `gradlerepl.both.DisplayKinds`, a kind's name (`TEXT`), its MIME type
    (`TEXT_MIME`) and the image formats (`PNG`), each a compile-time constant."""
    constants: list[tuple[str, str]] = [(kind.upper(), kind) for kind in DISPLAY_KINDS]
    constants += [(f"{kind.upper()}_MIME", rule.mime) for kind, rule in DISPLAY_KINDS.items()]
    constants += list(IMAGE_FORMATS.items())
    lines = [f'    public static final String {name} = "{value}";' for name, value in constants]
    return "\n".join(
        [
            "// Generated from bridge/gradle_repl/display_kinds.py, the one table of display kinds: not to be edited.",
            "package gradlerepl.both;",
            "",
            "/** The display kinds, their MIME types and the image formats, as the JVM sides name them. */",
            "public final class DisplayKinds {",
            *lines,
            "",
            "    private DisplayKinds() {}",
            "}",
            "",
        ]
    )
