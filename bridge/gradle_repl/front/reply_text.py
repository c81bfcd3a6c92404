"""A reply as a person reads it in a terminal: the one set of text rules for `repl`, `eval` and `check`, in this
process or through a server (--connect), and the few phrasings the tools' text content shares with them.

What a snippet prints is written as it arrives (stdout and stderr as they are, a display as its text, an image
saved to a file whose path is printed); then the result: what the session went through, the compiler's warnings,
the error or the value with its type, and what running it left to know (the heap, output cut by the limits).
"""

from __future__ import annotations

import base64
import shutil
import tempfile
from pathlib import Path
from typing import TextIO

# The SDK's wire types from their own package (not mcp.types, which imports the SDK's client and server).
from mcp_types import CallToolResult, ImageContent, TextContent

from gradle_repl.display_kinds import DISPLAY_KINDS
from gradle_repl.frames import CheckResult, DisplayFrame, ErrorResult, StreamFrame
from gradle_repl.front.probe_report import probe_report
from gradle_repl.host.handle import Analysis, Reply

__all__ = ["ReplyPrinter", "check_text", "shown_type", "truncation_note", "as_text"]

# A value of this type is no value worth naming (a statement, println(...)).
_NO_TYPE = "kotlin.Unit"


def shown_type(value_type: str | None) -> str | None:
    """The value's type as worth showing: none for no value or Unit."""
    return value_type if value_type and value_type != _NO_TYPE else None


def truncation_note(truncated_bytes: int) -> str | None:
    return f"[output truncated: {truncated_bytes} bytes cut by the output limits]" if truncated_bytes else None


def check_text(result: CheckResult) -> str:
    """Errors first, each with its line and caret as a run shows it, then warnings; then whether it compiles and the
    type its last expression would have."""
    errors = sum(d.severity == "error" for d in result.diagnostics)
    warnings = sum(d.severity == "warning" for d in result.diagnostics)
    if errors:
        head = f"Error: {errors} error(s)" + (f", {warnings} warning(s)" if warnings else "") + "; nothing was run."
    else:
        typed = shown_type(result.value_type)
        head = "Compiles" + (f" with {warnings} warning(s)" if warnings else "") + "; nothing was run."
        head += f" Its value would be of type {typed}." if typed else ""
    return "\n".join([head, *(d.text for d in result.diagnostics)])


class ReplyPrinter:
    """Writes what a snippet produces as plain text; images go to files whose paths are printed."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._images: Path | None = None  # made with the first image
        self._count = 0
        self._status_shown = False

    def line(self, text: str) -> None:
        self.clear_status()
        print(text, file=self._out, flush=True)

    def status(self, text: str) -> None:
        """Build and JVM-start progress: one line rewritten in place on a terminal, every line otherwise."""
        if not self._out.isatty():
            print(f"[{text}]", file=self._out, flush=True)
            return
        width = shutil.get_terminal_size().columns - 1
        self._out.write("\r\x1b[K" + f"[{text}]"[:width])
        self._out.flush()
        self._status_shown = True

    def clear_status(self) -> None:
        if self._status_shown:
            self._out.write("\r\x1b[K")
            self._status_shown = False

    def frame(self, frame: StreamFrame | DisplayFrame) -> None:
        """What the snippet printed or showed, as it arrives."""
        if isinstance(frame, StreamFrame):
            self.clear_status()
            self._out.write(frame.data)
            self._out.flush()
        else:
            self.line(self._display(frame))

    def _display(self, frame: DisplayFrame) -> str:
        if not DISPLAY_KINDS[frame.kind].binary:
            return frame.data  # markdown and (untrusted) html print as their text
        if self._images is None:
            self._images = Path(tempfile.mkdtemp(prefix="gradle-repl-images-"))
        self._count += 1
        path = self._images / f"image-{self._count}.{frame.mime.rsplit('/', 1)[-1]}"
        data = base64.b64decode(frame.data)
        path.write_bytes(data)
        return f"[{frame.mime} image, {len(data)} bytes: {path}]"

    def result(self, reply: Reply) -> bool:
        """What the session went through, compiler warnings, then the error or value, then what running left to know;
        each warning carries its own label (`warning: `, `memory: `). True when the snippet failed."""
        result = reply.result
        for notice in reply.notices:
            self.line(notice.text)
        for warning in result.compile_warnings:
            self.line(warning)
        if isinstance(result, ErrorResult):
            message = result.message
            self.line(message if message.lower().startswith("error") else f"error: {message}")
            if result.stack:
                self.line(result.stack)
        elif result.value is not None:
            typed = shown_type(result.value_type)
            self.line(self._display(result.value) + (f"   // {typed}" if typed else ""))
        if (probes := probe_report(result.probe_hits, result.probe_notes)) is not None:
            self.line(probes)
        if result.heap_warning is not None:
            self.line(result.heap_warning)
        if note := truncation_note(result.truncated_bytes):
            self.line(note)
        return isinstance(result, ErrorResult)

    def check(self, analysis: Analysis) -> bool:
        """What the session went through, then the check's diagnostics and verdict. True when the code doesn't compile
        or could not be checked."""
        for notice in analysis.notices:
            self.line(notice.text)
        result = analysis.result
        if isinstance(result, CheckResult):
            self.line(check_text(result))
            return not result.compiled
        if isinstance(result, ErrorResult):
            self.line(f"error: {result.message}")
        return True


def as_text(result: CallToolResult) -> list[str]:
    """An MCP result's content blocks as a terminal prints them (the demo shows what a client sees): text as it is,
    an image as its type and size."""
    return [
        block.text
        if isinstance(block, TextContent)
        else f"[{block.mime_type} image, {len(block.data) * 3 // 4} bytes]"
        if isinstance(block, ImageContent)
        else f"[{block.type} content]"
        for block in result.content
    ]
