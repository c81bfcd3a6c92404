"""`gradle-repl repl`: an interactive Kotlin prompt inside a project, for people.

One session, as the MCP tools have: the project's classes, dependencies and compiler plugins, state
kept between inputs; Tab completes from the session's compiler (front/tab_completion.py). Input continues
over lines while a bracket, string or comment is open
(Esc then Enter submits regardless); history lives in the user data directory across runs. Ctrl-C at
the prompt clears the line; during a snippet it cancels the snippet (the session keeps its state when
the snippet stops on interruption, else it restarts and says so). Ctrl-D exits and stops the JVM.
"""

from __future__ import annotations

import asyncio
import base64
import shutil
import signal
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from gradle_repl.errors import GradleReplError
from gradle_repl.frames import CheckResult, DisplayFrame, ErrorResult, SessionDescription, StreamFrame
from gradle_repl.host.handle import Analysis, Reply
from gradle_repl.host.manager import BuildToolChoice, SessionManager
from gradle_repl.host.notices import Notice
from gradle_repl.front.content import check_text
from gradle_repl.front.kotlin_input import is_complete
from gradle_repl.front.tab_completion import SessionCompleter, add_tab_bindings
from gradle_repl.options import SessionOptions
from gradle_repl.paths import data_dir
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.settings import DEFAULTS

__all__ = ["TerminalOptions", "run_terminal", "HELP"]

PROMPT = "kotlin> "
CONTINUATION = "   ...> "
SESSION_ID = "terminal"
HELP = """\
Kotlin snippets run in the project's JVM; declarations stay for later inputs.
  :help     this text
  :session  the imports and names this session holds, with their types and values
  :check CODE  compile CODE against the session without running it: errors, warnings, its value's type
  :reset    forget every declaration (a fresh JVM on the next input)
  :reset --replay  restart the JVM now and run this session's successful inputs again, in order
  :quit     leave (Ctrl-D does the same)
Enter runs the input once brackets, strings and comments are closed; Esc then Enter runs it as is.
Tab completes from the session (names, members after `x.`, extensions, packages, keywords); Tab again moves on.
Ctrl-C clears the line, or cancels the running snippet."""


@dataclass(frozen=True)
class TerminalOptions:
    project_root: str
    project_path: str = ":"
    source_set: str = "main"
    build_tool: BuildToolChoice = "auto"
    timeout_seconds: float = DEFAULTS.snippet_timeout_seconds
    session_id: str = SESSION_ID
    # Where the session lives when it isn't this process's (repl --connect), for the greeting.
    server: str | None = None
    session_options: SessionOptions | None = None

    def session(self) -> dict[str, Any]:
        """The arguments that name the terminal's session and its project, for the session manager."""
        return {
            "session_id": self.session_id, "project_root": self.project_root, "project_path": self.project_path,
            "source_set": self.source_set, "build_tool": self.build_tool,
        }

    def greeting(self) -> str:
        where = f"session {self.session_id!r} of {self.server} ({self.project_root})" if self.server else self.project_root
        return f"gradle-repl: Kotlin in {where} (:help for help, Ctrl-D to quit)"


class Sessions(Protocol):
    """What the prompt asks of the sessions: a SessionManager in this process, or a server's (front/remote.py)."""

    async def open_session(self, **arguments: Any) -> tuple[Notice, ...]: ...
    async def run_snippet(self, **arguments: Any) -> Reply: ...
    async def check_snippet(self, **arguments: Any) -> Analysis: ...
    async def complete_snippet(self, **arguments: Any) -> Analysis: ...
    async def describe(self, session_id: str) -> SessionDescription: ...
    async def reset(self, session_id: str) -> bool: ...
    async def reset_and_replay(self, session_id: str) -> tuple[Notice, ...]: ...
    async def close_all(self) -> None: ...


def _key_bindings() -> KeyBindings:
    bindings = KeyBindings()
    add_tab_bindings(bindings)

    @bindings.add("enter")
    def _(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.complete_state is not None and buffer.complete_state.current_completion is not None:
            buffer.apply_completion(buffer.complete_state.current_completion)
        elif buffer.text.strip() == "" or buffer.text.lstrip().startswith(":") or is_complete(buffer.text):
            buffer.validate_and_handle()
        else:
            buffer.insert_text("\n")

    @bindings.add("escape", "enter")
    def _(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    return bindings


class _Printer:
    """Writes what a snippet produces as plain text; images go to files whose paths are printed."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._images = Path(tempfile.mkdtemp(prefix="gradle-repl-images-"))
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
        if isinstance(frame, StreamFrame):
            self.clear_status()
            self._out.write(frame.data)
            self._out.flush()
        else:
            self.line(self._display(frame))

    def _display(self, frame: DisplayFrame) -> str:
        if frame.kind != "image":
            return frame.data  # markdown and (untrusted) html print as their text
        self._count += 1
        path = self._images / f"image-{self._count}.{frame.mime.rsplit('/', 1)[-1]}"
        data = base64.b64decode(frame.data)
        path.write_bytes(data)
        return f"[{frame.mime} image, {len(data)} bytes: {path}]"

    def result(self, reply: Reply) -> None:
        """Compiler warnings, then the error or value, then what running left to know; each warning carries its
        own label (`warning: `, `memory: `)."""
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
            shown = self._display(result.value)
            typed = result.value_type and result.value_type != "kotlin.Unit"
            self.line(f"{shown}" + (f"   // {result.value_type}" if typed else ""))
        if result.heap_warning is not None:
            self.line(result.heap_warning)
        if result.truncated_bytes:
            self.line(f"[output truncated: {result.truncated_bytes} bytes cut by the output limits]")


async def _run_one(manager: Sessions, options: TerminalOptions, code: str, printer: _Printer) -> None:
    task = asyncio.ensure_future(
        manager.run_snippet(
            **options.session(), code=code, timeout_seconds=options.timeout_seconds, progress=printer.status,
            options=options.session_options,
            on_frame=printer.frame,
        )
    )
    loop = asyncio.get_running_loop()
    cancellable = _on_sigint(loop, task.cancel)
    try:
        printer.result(await task)
    except asyncio.CancelledError:
        if not task.cancelled():
            raise
        printer.line("[cancelled]")
    except GradleReplError as error:
        printer.line(f"error: {error}")
    finally:
        if cancellable:
            loop.remove_signal_handler(signal.SIGINT)


async def _check_one(manager: Sessions, options: TerminalOptions, code: str, printer: _Printer) -> None:
    if not code:
        printer.line("usage: :check CODE (compiles CODE against the session; nothing runs)")
        return
    try:
        analysis = await manager.check_snippet(**options.session(), code=code, progress=printer.status)
    except GradleReplError as error:
        printer.line(f"error: {error}")
        return
    for notice in analysis.notices:
        printer.line(notice)
    result = analysis.result
    if isinstance(result, CheckResult):
        printer.line(check_text(result))
    elif isinstance(result, ErrorResult):
        printer.line(f"error: {result.message}")


def _on_sigint(loop: asyncio.AbstractEventLoop, action: object) -> bool:
    try:
        loop.add_signal_handler(signal.SIGINT, action)  # type: ignore[arg-type]
        return True
    except (NotImplementedError, RuntimeError):  # Windows' event loops have no signal handlers
        return False


async def run_terminal(options: TerminalOptions, manager: Sessions | None = None, out: TextIO = sys.stdout) -> int:
    """The prompt loop; returns the exit code."""
    manager = manager or SessionManager.from_settings(DEFAULTS.model_copy(update={"spare_worker": False}), resolver=resolve_environment)
    printer = _Printer(out)
    history = data_dir() / "repl-history"
    history.parent.mkdir(parents=True, exist_ok=True)
    prompt: PromptSession[str] = PromptSession(
        history=FileHistory(str(history)),
        key_bindings=_key_bindings(),
        multiline=True,
        completer=SessionCompleter(manager, options),
        complete_while_typing=False,
        prompt_continuation=CONTINUATION,
    )
    try:
        printer.line(options.greeting())
        try:
            for notice in await manager.open_session(**options.session(), progress=printer.status, options=options.session_options):
                printer.line(notice.text)
            printer.clear_status()
        except GradleReplError as error:
            printer.line(f"error: {error}")
            return 1
        while True:
            try:
                code = await prompt.prompt_async(PROMPT)
            except KeyboardInterrupt:
                continue
            except EOFError:
                return 0
            command = code.strip()
            if not command:
                continue
            if command in (":quit", ":q", ":exit"):
                return 0
            if command == ":help":
                printer.line(HELP)
            elif command == ":session":
                try:
                    printer.line((await manager.describe(options.session_id)).summary(options.session_id))
                except GradleReplError as error:
                    printer.line(f"[{error}]")
            elif command == ":check" or command.startswith(":check "):
                await _check_one(manager, options, command.removeprefix(":check").strip(), printer)
            elif command == ":reset":
                await manager.reset(options.session_id)
                printer.line("[session reset: every declaration is gone]")
            elif command == ":reset --replay":
                try:
                    for notice in await manager.reset_and_replay(options.session_id):
                        printer.line(notice.text)
                except GradleReplError as error:
                    printer.line(f"[{error}]")
            elif command.startswith(":"):
                printer.line(f"unknown command {command.split()[0]!r}; :help lists them")
            else:
                await _run_one(manager, options, code, printer)
    finally:
        await manager.close_all()
