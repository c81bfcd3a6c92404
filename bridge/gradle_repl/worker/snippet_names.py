"""How snippets are numbered and named: the REPL's count, the users' count, and the file and class names.

The worker numbers every snippet it gives the K2 REPL, its own warm-up first, and names the snippet's source
`_<N>.repl.kts`; the compiler names the snippet's class after it, `_<N>_repl` (K2 needs that shape, or class
loading fails). Users count from their own first snippet. Both rules live here and nowhere else: the Kotlin
facade takes the file name it is given. The body method's name, `$$eval`, and its mangled form are the shared Java
rule's (runs-in-both SnippetBody.java, which both JVMs run): read from its source, not spelled again here.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from gradle_repl.resources import jvm_worker_both_source

if TYPE_CHECKING:  # the Protocols only: the front ends read these names (through worker.results) and never load JPype
    from gradle_repl.worker.java import ReplDriver, RunningSnippet

__all__ = [
    "WARM_UP_SNIPPETS",
    "WARM_UP_SNIPPET",
    "SNIPPET_CLASS",
    "SNIPPET_FILE",
    "snippet_body_method",
    "is_snippet_body",
    "SnippetCounter",
    "snippet_file",
    "users_number",
    "repl_number",
]

# The snippets the worker runs before the user's first: one warm-up (worker/boot.py says why), this one.
WARM_UP_SNIPPETS = 1
WARM_UP_SNIPPET = "kotlin.Unit"
# The class the REPL compiles snippet N to, as a regular expression; N is its group "number".
SNIPPET_CLASS = r"_(?P<number>\d+)_repl"
# The source file name of snippet N (snippet_file), as a regular expression.
SNIPPET_FILE = r"_(?P<number>\d+)\.repl\.kts"


@cache
def _snippet_body() -> tuple[str, str]:
    """SnippetBody.java's EVAL and MANGLED_PREFIX: the body method's name and what a mangled one begins with."""
    source = jvm_worker_both_source("SnippetBody.java").read_text(encoding="utf-8")
    name = re.search(r'static final String EVAL = "([^"]+)";', source)
    mangled = re.search(r'static final String MANGLED_PREFIX = EVAL \+ "([^"]+)";', source)
    if name is None or mangled is None:
        raise RuntimeError("SnippetBody.java no longer declares EVAL and MANGLED_PREFIX as snippet_names reads them")
    return name[1], name[1] + mangled[1]


def snippet_body_method() -> str:
    """The method of a snippet's class that holds its own statements and returns its value, as the compiler names it."""
    return _snippet_body()[0]


def is_snippet_body(method: str) -> bool:
    """Whether a method of a snippet's class is its body: `$$eval`, or `$$eval-UwyO8pc` where the compiler mangled
    it for a value-class value (a Duration, a Result)."""
    name, mangled = _snippet_body()
    return method == name or method.startswith(mangled)


def snippet_file(number: int) -> str:
    """The source file name of the REPL's snippet `number` (stack frames name it)."""
    return f"_{number}.repl.kts"


def users_number(number: int) -> int:
    """The number users know the REPL's snippet `number` by (1 = their first)."""
    return number - WARM_UP_SNIPPETS


def repl_number(users: int) -> int:
    """The REPL's number of the snippet users know as `users`."""
    return users + WARM_UP_SNIPPETS


class SnippetCounter:
    """Starts each snippet on the facade's driver under the next number and that number's file name."""

    def __init__(self, driver: ReplDriver) -> None:
        self._driver = driver
        self._last = 0

    def skip_warm_up(self) -> None:
        """Leaves the warm-up's numbers untaken, for a worker that runs no warm-up: users' numbers stay the same."""
        self._last = max(self._last, WARM_UP_SNIPPETS)

    def start(self, code: str) -> tuple[int, RunningSnippet]:
        """The snippet's REPL number, and the facade's RunningSnippet running it."""
        self._last += 1
        return self._last, self._driver.start(code, snippet_file(self._last))

    def compile_only(self, code: str) -> tuple[int, RunningSnippet]:
        """As start, but the facade's RunningSnippet only compiles: an attached session runs the classes elsewhere."""
        self._last += 1
        return self._last, self._driver.compileOnly(code, snippet_file(self._last))

    def check(self, code: str) -> RunningSnippet:
        """The facade's RunningSnippet compiling `code` under the next snippet's name, which it does not take:
        a check compiles what a run would and leaves the numbering as it was."""
        return self._driver.check(code, self.next_file())

    def throwaway(self, code: str) -> RunningSnippet:
        """The facade's RunningSnippet compiling `code` as a run would and taking it back (an idle worker's warm-up),
        under the next snippet's name, which it does not take."""
        return self._driver.compileThrowaway(code, self.next_file())

    @property
    def taken(self) -> int:
        """How many snippet numbers runs have taken (failed snippets included: each is in the REPL's history)."""
        return self._last

    def next_file(self) -> str:
        """The file name the next snippet will get (a check or a completion borrows it and leaves it)."""
        return snippet_file(self._last + 1)
