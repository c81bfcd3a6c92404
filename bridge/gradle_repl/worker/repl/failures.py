"""What a session remembers of its failed snippets, so that the errors they cause later say what happened.

The K2 REPL lets later snippets see a failed snippet's declarations; using one fails from REPL internals
(worker/results/failed_uses.py reads which). Errors that the session's setup explains get its hints (worker/repl/plugin_hints.py):
serializers snippets can't have, a renderComposable or Skiko library the session lacks.
"""

from __future__ import annotations

from gradle_repl.frames import ErrorResult
from gradle_repl.worker.repl.declarations import Declarations
from gradle_repl.worker.repl.plugin_hints import Hint, with_hints
from gradle_repl.worker.results.failed_uses import FailedSnippet, FailedUse, explain_use_of_failed
from gradle_repl.worker.results.outcomes import ExplainFailedUse
from gradle_repl.worker.results.report import ThrowableInfo
from gradle_repl.worker.snippet_names import repl_number

__all__ = ["FailedSnippets"]


class FailedSnippets:
    def __init__(self, declarations: Declarations, hints: list[Hint]) -> None:
        self._declarations = declarations
        # Lines said with the errors they explain.
        self._hints = hints
        # By the REPL's number: it still lets later snippets see their declarations.
        self._failed: dict[int, FailedSnippet] = {}

    def explainer(self, code: str, number: int) -> ExplainFailedUse:
        """Explains a runtime error of snippet `number` (its `code`) by the failed snippets it met, if it met any."""

        def explain(chain: list[ThrowableInfo]) -> FailedUse | None:
            if not self._failed:
                return None
            uninitialised = {name: repl_number(users) for name, users in self._declarations.uninitialised().items()}
            return explain_use_of_failed(
                chain, code=code, number=number, uninitialised=uninitialised, failed=self._failed
            )

        return explain

    def remember(self, number: int, code: str, result: ErrorResult, *, compiled: bool, ran: bool = True) -> ErrorResult:
        """Keeps snippet `number` as failed (`ran` False: stopped before it ran); its result, with the session's hints
        where they apply."""
        self._failed[number] = FailedSnippet(code, compiled=compiled, ran=ran)
        return result.model_copy(update={"message": with_hints(result.message, self._hints, stack=result.stack)})
