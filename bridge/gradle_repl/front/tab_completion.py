"""Tab completion at `gradle-repl repl`'s prompt: prompt_toolkit asks, the session's compiler answers.

The same source as the complete_kotlin_snippet tool (SessionManager.complete_snippet): the code typed so far with
the cursor where it is, completed against the session's state; nothing runs. Tab on a line that is blank up to
the cursor indents instead, as an editor's would.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from gradle_repl.errors import GradleReplError
from gradle_repl.frames import CompletionResult
from gradle_repl.front.sessions import CompletingSessions
from gradle_repl.target import SessionTarget

__all__ = ["SessionCompleter", "add_tab_bindings", "INDENT"]

INDENT = "    "
# A candidate's signature or type as the menu's second column shows it, cut to stay readable.
META_CHARS = 60


class SessionCompleter(Completer):
    """Completions from the session, only when asked (Tab): each one costs a compilation."""

    def __init__(self, sessions: CompletingSessions, target: SessionTarget) -> None:
        self._sessions = sessions
        self._target = target

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        return []  # the prompt runs in an event loop: get_completions_async answers

    async def get_completions_async(self, document: Document, complete_event: CompleteEvent) -> AsyncGenerator[Completion, None]:
        try:
            analysis = await self._sessions.complete_snippet(self._target, code=document.text, cursor=document.cursor_position)
        except GradleReplError:
            return
        result = analysis.result
        if not isinstance(result, CompletionResult):
            return
        back = result.prefix_start - document.cursor_position
        for item in result.items:
            meta = f"{item.kind} {item.detail}".strip()
            yield Completion(item.text, start_position=back, display_meta=meta[:META_CHARS])


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
