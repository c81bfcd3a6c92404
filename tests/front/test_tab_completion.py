"""Tab at the terminal prompt (front/tab_completion.py): the import a taken candidate needs, and the notices of a
session a Tab starts. The terminal itself, typed into, is tests/front/test_terminal.py."""

from __future__ import annotations

import asyncio
from typing import Any

from prompt_toolkit.buffer import Buffer, CompletionState
from prompt_toolkit.completion import CompleteEvent, Completion as PromptCompletion
from prompt_toolkit.document import Document

from gradle_repl.frames import Completion, CompletionResult, TextEdit
from gradle_repl.front.tab_completion import ImportEdits, SessionCompleter
from gradle_repl.host.handle import Analysis
from gradle_repl.host.notices import Notice
from gradle_repl.target import SessionTarget

FILE_IMPORT = [TextEdit(start=0, end=0, text="import java.io.File\n")]


def _taken(code: str, text: str, offered: dict[tuple[str, str], list[TextEdit]]) -> str:
    """The buffer's text after Tab inserted the only candidate `text` for `code` (as prompt_toolkit does)."""
    buffer = Buffer(multiline=True)
    buffer.document = Document(code, len(code))
    edits = ImportEdits()
    edits.offer(None, code, offered)
    buffer.delete_before_cursor(3)
    buffer.insert_text(text)
    edits.settle(buffer)
    return f"{buffer.text}|cursor {buffer.cursor_position}"


def test_a_taken_candidate_adds_its_import_above_the_code_and_the_cursor_stays_after_it() -> None:
    assert _taken("val f = Fil", "File", {("File", "class java.io"): FILE_IMPORT}) == (
        "import java.io.File\nval f = File|cursor 32"
    )


def test_a_candidate_in_scope_adds_nothing_and_two_namesakes_unchosen_add_neither() -> None:
    assert _taken("val f = Fil", "File", {("File", "class java.io"): []}) == "val f = File|cursor 12"
    namesakes = {
        ("Duration", "class java.time"): [TextEdit(start=0, end=0, text="import java.time.Duration\n")],
        ("Duration", "class kotlin.time"): [TextEdit(start=0, end=0, text="import kotlin.time.Duration\n")],
    }
    code = "val d = Dur"
    assert _taken(code, "Duration", namesakes) == "val d = Duration|cursor 16"


def test_enter_on_the_highlighted_one_of_two_namesakes_adds_that_ones_import() -> None:
    """The menu path: Tab again highlights a candidate (prompt_toolkit puts its text in the buffer), Enter takes it;
    of `java.time.Duration` and `kotlin.time.Duration`, the highlighted one's import is made."""
    code = "val d = Dur"
    offered = {
        ("Duration", "class java.time"): [TextEdit(start=0, end=0, text="import java.time.Duration\n")],
        ("Duration", "class kotlin.time"): [TextEdit(start=0, end=0, text="import kotlin.time.Duration\n")],
    }
    buffer = Buffer(multiline=True)
    buffer.document = Document(code, len(code))
    edits = ImportEdits()
    edits.offer(None, code, offered)
    menu = [PromptCompletion("Duration", start_position=-3, display_meta=meta) for _, meta in offered]
    buffer.complete_state = CompletionState(buffer.document, menu)
    buffer.go_to_completion(1)  # Tab, Tab: the second highlighted
    edits.settle(buffer)
    assert buffer.complete_state is not None and buffer.text == "val d = Duration"
    chosen = buffer.complete_state.current_completion
    assert chosen is not None
    buffer.apply_completion(chosen)  # what Enter does with the menu open
    edits.settle(buffer)
    assert buffer.text == "import kotlin.time.Duration\nval d = Duration"


class _StartingManager:
    """A session manager whose session a completion has just started: the answer carries the start's notices."""

    async def complete_snippet(self, target: SessionTarget, **_: Any) -> Analysis:
        items = [Completion(text="File", kind="class", detail="java.io", edits=FILE_IMPORT)]
        return Analysis(
            CompletionResult(prefix_start=8, items=items),
            (Notice(kind="restarted", text="[restarted: pom.xml changed]"),),
        )


def test_the_notices_of_a_session_tab_starts_are_shown_and_its_candidates_offered() -> None:
    shown: list[str] = []
    completer = SessionCompleter(_StartingManager(), SessionTarget(project_root="."), show=shown.append)

    async def complete() -> list[str]:
        document = Document("val f = Fil", 11)
        return [
            c.text async for c in completer.get_completions_async(document, CompleteEvent(completion_requested=True))
        ]

    assert asyncio.run(complete()) == ["File"]
    assert shown == ["[restarted: pom.xml changed]"]
