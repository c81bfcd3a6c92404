"""The in-session test runner on the builds' test projects: JUnit 4 through the vintage engine, kotlin.test, TestNG
alone (no JUnit Platform engine), surefire's settings, a @SpringBootTest — real Maven, a real worker JVM, real JUnit.

One session per project, shared by that project's tests where state doesn't matter (each session start costs seconds);
the edit test runs last on the kotlin.test project's session."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from gradle_repl.frames import ErrorResult, Probe, TestRunResult
from support.paths import PROJECTS, copy_project
from support.projecttests import ProjectTests
from support.sharedprojects import shared_copy

PANTRY_TEST = "src/test/kotlin/pantry/PantryTest.kt"
RESTOCKED = '        assertEquals(8, pantry.count("rice"))\n'
pytestmark = pytest.mark.jvm


@contextmanager
def _project(name: str, tmp_path_factory: pytest.TempPathFactory, *, edited: bool = False) -> Iterator[ProjectTests]:
    """A test project's test session, closed however the test ends: on a private copy when the test edits the project,
    else on the run's built copy (test_surefire resolves the same)."""
    root = (
        copy_project(PROJECTS / name, tmp_path_factory.mktemp(name) / name)
        if edited
        else shared_copy(PROJECTS / name, "test", tmp_path_factory)
    )
    project = ProjectTests(root)
    try:
        yield project
    finally:
        project.close()


@pytest.fixture(scope="module")
def pantry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProjectTests]:
    with _project("maven-kotlin-test", tmp_path_factory, edited=True) as project:
        yield project


def test_junit4_runs_through_the_vintage_engine(tmp_path_factory: pytest.TempPathFactory) -> None:
    with _project("maven-junit4", tmp_path_factory) as ledger:
        result = ledger.run()
        assert (result.passed, result.failed, result.skipped, result.aborted) == (6, 0, 1, 0), result
        # Parameterized's three cases, each named as its @Parameters name says.
        parameterized = ledger.run("ledger.DepositRulesTest")
        assert parameterized.passed == 3, parameterized
        assert [line.split(" ", 1)[1] for line in ledger.progress] == [
            f"ledger.DepositRulesTest.aDepositThatIsNotPositiveIsRefused[deposit {cents}]" for cents in (0, -1, -250)
        ], ledger.progress


def test_a_failing_kotlin_test_says_its_message_and_the_project_frame(pantry: ProjectTests) -> None:
    result = pantry.run("pantry.PantryTest")
    assert (result.passed, result.failed) == (3, 1), result
    [failure] = result.failures
    assert failure.test == "pantry.PantryTest.restockingAddsToWhatIsLeft"
    assert failure.message == "org.opentest4j.AssertionFailedError: expected: <8> but was: <5>"
    assert failure.stack == ["pantry.PantryTest.restockingAddsToWhatIsLeft(PantryTest.kt:26)"]


def test_a_project_without_a_junit_platform_engine_gets_one_line_and_keeps_its_session(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with _project("maven-testng", tmp_path_factory) as tickets:
        reply = tickets.tests()
        assert isinstance(reply.result, ErrorResult), reply.result
        assert len(reply.result.message.splitlines()) == 1 and "engine" in reply.result.message, reply.result.message
        assert tickets.value('tickets.TicketQueue().apply { join("ada") }.next()') == "ada"


def test_surefires_settings_make_every_test_pass_as_mvn_test_does(tmp_path_factory: pytest.TempPathFactory) -> None:
    with _project("maven-surefire-settings", tmp_path_factory) as greet:
        result = greet.run()
        assert (result.passed, result.failed, result.skipped, result.aborted) == (4, 0, 0, 0), result
        ran = " ".join(greet.progress)
        assert "greet.TaggedTest.aFastTestRuns" in ran and "GreeterIT" not in ran, greet.progress
        assert any("JaCoCo" in notice for notice in result.notices), result.notices


def test_a_spring_boot_test_passes_and_its_second_run_reuses_the_cached_context(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    cache = "org.springframework.test.context.cache.DefaultCacheAwareContextLoaderDelegate"
    # The static cache is package-private: read it through reflection, as a snippet in the same session.
    read = (
        f'Class.forName("{cache}").getDeclaredField("defaultContextCache").apply {{ isAccessible = true }}'
        ".get(null).let { it as org.springframework.test.context.cache.ContextCache }"
        '.let { "${it.size()} ${it.missCount} ${it.hitCount}" }'
    )
    with _project("maven-spring-boot", tmp_path_factory) as blog:
        blog.value("1")
        durations = []
        # The second run with a probe in the service the Spring context made: it sees the test's thread and the bean's
        # private dependencies, and the cached context is still the one used.
        probe = Probe(at="Articles.kt:24", capture=["properties.title", "articles.findAll().size"])
        for run in range(2):
            started = time.monotonic()
            reply = blog.tests("blog.BlogApplicationTests", probes=(probe,) if run else ())
            durations.append(time.monotonic() - started)
            assert isinstance(reply.result, TestRunResult), reply.result
            result = reply.result
            assert (result.passed, result.failed) == (2, 0), result
            if not durations[1:]:
                first = [int(n) for n in blog.value(read).split()]
        (hit,) = result.probe_hits
        assert hit.at == "blog.BlogService.headline(Articles.kt:24)", hit
        assert [c.value for c in hit.captured] == ["Blog", "2"], hit.captured
        assert hit.this is not None and hit.this.startswith("BlogService(articles=blog.ArticleRepository@"), hit.this
        # The line's `joinToString { it.title }` lambda is a method of its own, which sees neither `this` nor
        # `properties`: the probe is left out there, and the run says so.
        (note,) = result.probe_notes
        assert note.startswith("probe 0 is left out of blog.BlogService.headline") and note.endswith(
            "probes[0].capture[0] doesn't compile: unresolved reference 'properties'. (line 1, col 1)"
        ), note
        size, misses, hits = [int(n) for n in blog.value(read).split()]
        # One context, loaded once (the first run's miss); the second run's tests only hit it.
        assert (size, misses) == (1, first[1]) == (1, 1) and hits > first[2], (first, size, misses, hits)
        print(f"@SpringBootTest first run {durations[0] * 1000:.0f} ms, second {durations[1] * 1000:.0f} ms")


def test_an_edited_test_source_is_taken_in_place_by_a_failed_only_run(pantry: ProjectTests) -> None:
    assert pantry.run("pantry.PantryTest").failed == 1
    source = pantry.root / PANTRY_TEST
    source.write_text(source.read_text().replace(RESTOCKED, RESTOCKED.replace("8", "5")))
    later = time.time() + 2
    os.utime(source, (later, later))
    reply = pantry.tests(failed_only=True)
    assert isinstance(reply.result, TestRunResult), reply.result
    assert (reply.result.passed, reply.result.failed) == (1, 0), reply.result
    # A test source of the test session's own source set: compiled by the session's compiler, then updated in place.
    assert [notice.kind for notice in reply.notices] == ["build_tool", "updated"], reply.notices
    assert "compiled PantryTest.kt in the session" in reply.notices[0].text, reply.notices
