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
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from gradle_repl.errors import GradleReplError
from gradle_repl.front.kotlin_input import is_complete
from gradle_repl.front.project_tests_report import reply_text
from gradle_repl.front.reply_text import ReplyPrinter
from gradle_repl.front.session_protocol import Sessions
from gradle_repl.front.tab_completion import SessionCompleter, add_tab_bindings
from gradle_repl.host.manager import SessionManager
from gradle_repl.options import SessionOptions
from gradle_repl.paths import data_dir
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.settings import DEFAULTS, TEST_SESSION_ID, TEST_SOURCE_SET
from gradle_repl.target import SessionTarget

__all__ = ["TerminalOptions", "run_terminal", "HELP"]

PROMPT = "kotlin> "
CONTINUATION = "   ...> "
SESSION_ID = "terminal"
HELP = """\
Kotlin snippets run in the project's JVM; declarations stay for later inputs.
  :help     this text
  :session  the imports and names this session holds, with their types and values
  :check CODE  compile CODE against the session without running it: errors, warnings, its value's type
  :test [SELECTOR...] [--failed]  run the project's tests in the session of its test source set (a class
            shop.CartTest, a method shop.CartTest.oneItem, a package shop.*; --failed: the tests known to fail)
  :reset    forget every declaration (a fresh JVM on the next input)
  :reset --replay  restart the JVM now and run this session's successful inputs again, in order
  :quit     leave (Ctrl-D does the same)
Enter runs the input once brackets, strings and comments are closed; Esc then Enter runs it as is.
Tab completes from the session (names, members after `x.`, extensions, packages, keywords); Tab again moves on.
Ctrl-C clears the line, or cancels the running snippet."""


@dataclass(frozen=True)
class TerminalOptions:
    target: SessionTarget
    timeout_seconds: float = DEFAULTS.snippet_timeout_seconds
    # Where the session lives when it isn't this process's (repl --connect), for the greeting.
    server: str | None = None
    session_options: SessionOptions | None = None

    def greeting(self) -> str:
        target = self.target
        where = (
            f"session {target.session_id!r} of {self.server} ({target.project_root})"
            if self.server
            else target.project_root
        )
        return f"gradle-repl: Kotlin in {where} (:help for help, Ctrl-D to quit)"


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


async def _run_one(manager: Sessions, options: TerminalOptions, code: str, printer: ReplyPrinter) -> None:
    task = asyncio.ensure_future(
        manager.run_snippet(
            options.target,
            code=code,
            timeout_seconds=options.timeout_seconds,
            progress=printer.status,
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


async def _check_one(manager: Sessions, options: TerminalOptions, code: str, printer: ReplyPrinter) -> None:
    if not code:
        printer.line("usage: :check CODE (compiles CODE against the session; nothing runs)")
        return
    try:
        analysis = await manager.check_snippet(options.target, code=code, progress=printer.status)
    except GradleReplError as error:
        printer.line(f"error: {error}")
        return
    printer.check(analysis)


def _on_sigint(loop: asyncio.AbstractEventLoop, action: Callable[[], object]) -> bool:
    try:
        loop.add_signal_handler(signal.SIGINT, action)
        return True
    except (NotImplementedError, RuntimeError):  # Windows' event loops have no signal handlers
        return False


async def run_terminal(options: TerminalOptions, sessions: Sessions | None = None, out: TextIO = sys.stdout) -> int:
    """The prompt loop; returns the exit code."""
    manager = sessions or SessionManager.from_settings(
        DEFAULTS.model_copy(update={"spare_worker": False}), resolver=resolve_environment
    )
    printer = ReplyPrinter(out)
    history = data_dir() / "repl-history"
    history.parent.mkdir(parents=True, exist_ok=True)
    prompt: PromptSession[str] = PromptSession(
        history=FileHistory(str(history)),
        key_bindings=_key_bindings(),
        multiline=True,
        completer=SessionCompleter(manager, options.target, show=printer.line),
        complete_while_typing=False,
        prompt_continuation=CONTINUATION,
    )
    try:
        printer.line(options.greeting())
        try:
            for notice in await manager.open_session(
                options.target, progress=printer.status, options=options.session_options
            ):
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
                    printer.line((await manager.describe(options.target.session_id)).summary(options.target.session_id))
                except GradleReplError as error:
                    printer.line(f"[{error}]")
            elif command == ":check" or command.startswith(":check "):
                await _check_one(manager, options, command.removeprefix(":check").strip(), printer)
            elif command == ":test" or command.startswith(":test "):
                await _test(manager, options, command.removeprefix(":test").split(), printer)
            elif command == ":reset":
                await manager.reset(options.target.session_id)
                printer.line("[session reset: every declaration is gone]")
            elif command == ":reset --replay":
                try:
                    for notice in await manager.reset_and_replay(options.target.session_id):
                        printer.line(notice.text)
                except GradleReplError as error:
                    printer.line(f"[{error}]")
            elif command.startswith(":"):
                printer.line(f"unknown command {command.split()[0]!r}; :help lists them")
            else:
                await _run_one(manager, options, code, printer)
    finally:
        await manager.close_all()


def tests_target(target: SessionTarget) -> SessionTarget:
    """Where `:test` runs: this session when it is of a test source set (its snippets then see the tests' state),
    else the project's test session, the one run_project_tests uses."""
    if target.source_set != "main":
        return target
    return replace(target, source_set=TEST_SOURCE_SET, session_id=TEST_SESSION_ID)


async def _test(manager: Sessions, options: TerminalOptions, words: list[str], printer: ReplyPrinter) -> None:
    failed_only = "--failed" in words
    selectors = [word for word in words if word != "--failed"]
    try:
        reply = await manager.run_tests(
            tests_target(options.target),
            selectors=selectors,
            failed_only=failed_only,
            timeout_seconds=options.timeout_seconds,
            progress=printer.status,
            on_test=printer.status,
        )
    except GradleReplError as error:
        printer.clear_status()
        printer.line(f"[{error}]")
        return
    printer.clear_status()
    printer.line(reply_text(reply)[0])
