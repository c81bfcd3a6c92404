"""Tab completion at `gradle-repl repl`'s prompt: prompt_toolkit asks, the session's compiler answers.

The same source as the complete_kotlin_snippet tool (SessionManager.complete_snippet): the code typed so far with
the cursor where it is, completed against the session's state; nothing runs. Tab on a line that is blank up to
the cursor indents instead, as an editor's would. A candidate that needs an import (a class not imported yet) adds
it above the code once taken (ImportEdits). A session that Tab starts (the first Tab after a reset, an eviction, a
lost JVM) shows its notices at once, above the prompt, as a run's reply would.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Iterable
from typing import TYPE_CHECKING

from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from gradle_repl.errors import GradleReplError
from gradle_repl.frames import CompletionResult, TextEdit
from gradle_repl.front.session_protocol import CompletingSessions
from gradle_repl.target import SessionTarget

if TYPE_CHECKING:
    from gradle_repl.host.notices import Notice

__all__ = ["SessionCompleter", "ImportEdits", "add_tab_bindings", "INDENT"]

INDENT = "    "
# A candidate's signature or type as the menu's second column shows it, cut to stay readable.
META_CHARS = 60


class ImportEdits:
    """The imports the last offered candidates need, made once one of them is taken.

    prompt_toolkit inserts a candidate's text only, and has no hook for "taken": a candidate is taken when the menu
    closes (Enter, or the only candidate inserted by Tab) with its text ending at the cursor. The buffer's change
    events fire while prompt_toolkit is still moving through the menu, so each is settled on the event loop's next
    turn, when the menu's state is final.
    """

    def __init__(self) -> None:
        self._sent = ""
        self._offered: dict[tuple[str, str], list[TextEdit]] = {}
        self._chosen: tuple[str, str] | None = None
        self._watched: Buffer | None = None

    def offer(self, buffer: Buffer | None, sent: str, offered: dict[tuple[str, str], list[TextEdit]]) -> None:
        """Candidates (by text and menu detail) just offered for the code `sent`, with the edits each needs."""
        self._sent, self._offered, self._chosen = sent, {key: edits for key, edits in offered.items() if edits}, None
        if buffer is not None and buffer is not self._watched:
            self._watched = buffer
            buffer.on_text_changed += self._settle_soon

    def _settle_soon(self, buffer: Buffer) -> None:
        # After the change that fired this has finished: the menu's state is read as it stands then.
        asyncio.get_running_loop().call_soon(self.settle, buffer)

    def settle(self, buffer: Buffer) -> None:
        """Remembers the candidate the menu highlights; once the menu is closed, makes the taken one's edits."""
        if not self._offered:
            return
        state = buffer.complete_state
        if state is not None:
            current = state.current_completion
            if current is not None:
                self._chosen = (current.text, current.display_meta_text)
            return
        taken = self._taken(buffer.document)
        self._offered, self._chosen = {}, None
        if taken:
            self.apply(buffer, taken)

    def _taken(self, document: Document) -> list[TextEdit]:
        """The edits of the candidate whose text now ends at the cursor: the highlighted one, or the only one offered
        with that text."""
        before = document.text_before_cursor
        if self._chosen is not None and self._chosen in self._offered and before.endswith(self._chosen[0]):
            return self._offered[self._chosen]
        matching = [edits for (text, _), edits in self._offered.items() if before.endswith(text)]
        return matching[0] if len(matching) == 1 else []

    def apply(self, buffer: Buffer, edits: list[TextEdit]) -> None:
        """Makes the edits (offsets into the code as sent, all before the candidate), if the text before them is
        still as sent; the cursor keeps its place in the text."""
        text, cursor = buffer.text, buffer.cursor_position
        for edit in sorted(edits, key=lambda e: e.start, reverse=True):
            if text[: edit.start] != self._sent[: edit.start] or edit.end > cursor:
                continue
            text = text[: edit.start] + edit.text + text[edit.end :]
            cursor += len(edit.text) - (edit.end - edit.start)
        if text != buffer.text:
            buffer.document = Document(text, cursor)


class SessionCompleter(Completer):
    """Completions from the session, only when asked (Tab): each one costs a compilation."""

    def __init__(
        self, sessions: CompletingSessions, target: SessionTarget, *, show: Callable[[str], None] = print
    ) -> None:
        """`show` prints a line above the prompt: the notices of a session that a Tab started."""
        self._sessions = sessions
        self._target = target
        self._show = show
        self.imports = ImportEdits()

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        return []  # the prompt runs in an event loop: get_completions_async answers

    async def get_completions_async(
        self, document: Document, complete_event: CompleteEvent
    ) -> AsyncGenerator[Completion, None]:
        try:
            analysis = await self._sessions.complete_snippet(
                self._target, code=document.text, cursor=document.cursor_position
            )
        except GradleReplError:
            return
        if analysis.notices:
            await run_in_terminal(lambda: self._show_all(analysis.notices))
        result = analysis.result
        if not isinstance(result, CompletionResult):
            return
        back = result.prefix_start - document.cursor_position
        offered: dict[tuple[str, str], list[TextEdit]] = {}
        completions: list[Completion] = []
        for item in result.items:
            meta = f"{item.kind} {item.detail}".strip()[:META_CHARS]
            offered[(item.text, meta)] = item.edits
            completions.append(Completion(item.text, start_position=back, display_meta=meta))
        app = get_app_or_none()
        self.imports.offer(app.current_buffer if app is not None else None, document.text, offered)
        for completion in completions:
            yield completion

    def _show_all(self, notices: Iterable[Notice]) -> None:
        for notice in notices:
            self._show(notice.text)


def add_tab_bindings(bindings: KeyBindings) -> None:
    """Tab completes (a menu when there are several candidates; Tab again moves through it), or indents a line
    blank up to the cursor; Enter takes the highlighted candidate while the menu is open."""

    @bindings.add("tab")
    def _(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.document.current_line_before_cursor.strip() == "":
            buffer.insert_text(INDENT)
        elif buffer.complete_state:
            buffer.complete_next()
        else:
            buffer.start_completion(insert_common_part=True)
