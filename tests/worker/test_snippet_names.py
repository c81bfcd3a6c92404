"""Snippets are numbered and named in one place: the REPL's count, the users' count, and the names that follow."""

import re

from gradle_repl.worker.snippet_names import (
    SNIPPET_CLASS,
    WARM_UP_SNIPPETS,
    SnippetCounter,
    is_snippet_body,
    repl_number,
    snippet_body_method,
    snippet_file,
    users_number,
)


class _Driver:
    def __init__(self) -> None:
        self.started: list[tuple[str, str]] = []

    def start(self, code: str, source_name: str) -> str:
        self.started.append((code, source_name))
        return f"running {source_name}"


def test_the_users_first_snippet_is_the_one_after_the_warm_up() -> None:
    assert users_number(WARM_UP_SNIPPETS + 1) == 1 and repl_number(1) == WARM_UP_SNIPPETS + 1


def test_each_snippet_starts_under_the_next_number_and_its_file_name() -> None:
    driver = _Driver()
    # A stand-in for the JVM's driver, whose start() answers a string where the real one answers a RunningSnippet.
    counter = SnippetCounter(driver)  # type: ignore[arg-type]
    assert counter.start("kotlin.Unit") == (1, "running _1.repl.kts")  # type: ignore[comparison-overlap]
    assert counter.start("1 + 1") == (2, "running _2.repl.kts")  # type: ignore[comparison-overlap]
    assert driver.started == [("kotlin.Unit", "_1.repl.kts"), ("1 + 1", "_2.repl.kts")]


def test_the_class_pattern_finds_the_number_the_file_name_gave() -> None:
    """The compiler names snippet N's class after its file `_N.repl.kts`: `_N_repl`, nested classes after `$`."""
    match = re.search(SNIPPET_CLASS, "java.lang.NoClassDefFoundError: _12_repl$Point")
    assert match is not None and int(match.group("number")) == 12
    assert snippet_file(12).removesuffix(".repl.kts") + "_repl" == match.group(0)


def test_the_body_method_is_the_shared_java_rules_name_plain_or_mangled() -> None:
    """The worker reads `$$eval` and its mangled prefix from SnippetBody.java, the rule both JVMs run: a frame of a
    body method, plain or mangled for a value-class value, is a snippet body; a method merely starting alike is not."""
    assert snippet_body_method() == "$$eval"
    assert is_snippet_body("$$eval") and is_snippet_body("$$eval-UwyO8pc")
    assert not is_snippet_body("$$evaluate") and not is_snippet_body("eval")
