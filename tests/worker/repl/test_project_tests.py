"""The project's tests run inside a warm session of its test source set: a real Maven build of
tests/projects/maven-junit (a shop's Cart, JUnit Jupiter 5.14 with nested, parameterized, disabled and dynamic tests,
one failing), the JUnit Platform launcher fetched at the project's platform version, a real worker JVM.

One session carries most tests in file order (state that doesn't matter is shared; the System.exit test ends it and the
edit test, last, starts it again). The MCP and CLI tests run their own server and process."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent

from gradle_repl.errors import GradleReplError
from gradle_repl.frames import ErrorResult, SuccessResult, TestFailureDetail, TestRunResult
from gradle_repl.front import cli
from gradle_repl.front.cli import main as cli_main
from gradle_repl.front.project_tests_report import fit_test_run, run_report, summary_line
from gradle_repl.front.remote import RemoteSessions
from gradle_repl.front.server import build_server
from gradle_repl.host.manager import SessionLimits, SessionManager
from gradle_repl.target import SessionTarget
from gradle_repl.worker.repl.project_tests import class_name_pattern, scanned_roots
from support.fakeworker import FakeLauncher
from support.paths import PROJECTS, copy_project
from support.projecttests import ProjectTests
from support.sharedprojects import shared_copy

SHOP = PROJECTS / "maven-junit"
CART = "src/main/kotlin/shop/Cart.kt"
FAILURE = "org.opentest4j.AssertionFailedError: ten items get 10 % off ==> expected: <900> but was: <1000>"
jvm = pytest.mark.jvm


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProjectTests]:
    project = ProjectTests(copy_project(SHOP, tmp_path_factory.mktemp("junit") / "shop"))
    yield project
    project.close()


# --- Without a JVM ------------------------------------------------------------------------------------------


def test_build_patterns_become_class_name_expressions() -> None:
    """surefire's `**/*Test.java` and Gradle's `shop.*Test` filter class names as the build would."""
    import re

    def keeps(pattern: str, name: str) -> bool:
        return re.fullmatch(class_name_pattern(pattern), name) is not None

    assert keeps("**/*Test.java", "shop.CartTest") and not keeps("**/*Test.java", "shop.CartTests")
    assert keeps("**/Cart*", "shop.CartTest")
    assert keeps("shop/hazards/**", "shop.hazards.HazardTest") and not keeps("shop/hazards/**", "shop.CartTest")
    assert keeps("*IT", "shop.CheckoutIT")
    assert keeps("%regex[.*Cart.*]", "shop.CartTest")


def test_every_test_scans_the_test_outputs_only(tmp_path: Path) -> None:
    (tmp_path / "target/classes").mkdir(parents=True)
    (tmp_path / "target/test-classes").mkdir(parents=True)
    classpath = [str(tmp_path / "target/test-classes"), str(tmp_path / "target/classes"), "/x/junit.jar"]
    assert scanned_roots(classpath) == [str(tmp_path / "target/test-classes")]


class _RecordingResolver:
    """Stands in for the build: records the source set each resolve is asked for and stops there (no build, no JVM)."""

    def __init__(self) -> None:
        self.source_sets: list[str] = []

    def __call__(self, project_root: str, *, source_set: str, **_: object) -> NoReturn:
        self.source_sets.append(source_set)
        raise GradleReplError("no build in this test")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_run_project_tests_runs_the_source_set_it_names(tmp_path: Path, anyio_backend: str) -> None:
    """sourceSet (default 'test') reaches the session the tool resolves, over MCP and through a client of a server's
    tools (`gradle-repl test --connect`); a KMP project's jvmTest is named so."""
    resolver = _RecordingResolver()
    manager = SessionManager(limits=SessionLimits(spare_worker=False), launcher=FakeLauncher(), resolver=resolver)
    async with Client(build_server(manager, end_builds_at_exit=False)) as client:
        named = await client.call_tool("run_project_tests", {"projectRoot": str(tmp_path), "sourceSet": "jvmTest"})
        default = await client.call_tool("run_project_tests", {"projectRoot": str(tmp_path)})
        remote = await RemoteSessions(client).run_tests(SessionTarget(str(tmp_path), source_set="desktopTest"))
    assert named.is_error and "no build in this test" in _text(named), _text(named)
    assert default.is_error and isinstance(remote.result, ErrorResult)
    assert resolver.source_sets == ["jvmTest", "test", "desktopTest"]


def test_cli_test_runs_the_source_set_it_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`gradle-repl test --source-set jvmTest` resolves jvmTest; without it, test."""
    resolver = _RecordingResolver()
    monkeypatch.setattr(cli, "resolve_environment", resolver)
    assert cli_main(["test", str(tmp_path), "--source-set", "jvmTest"]) != 0
    assert cli_main(["test", str(tmp_path)]) != 0
    assert resolver.source_sets == ["jvmTest", "test"]


def test_the_result_is_cut_to_its_limit_and_says_what_it_cut() -> None:
    failures = [
        TestFailureDetail(test=f"shop.T.t{n}", display_name=f"t{n}()", message="boom", output="x" * 5_000)
        for n in range(30)
    ]
    result = TestRunResult(passed=5, failed=30, skipped=1, failures=failures, duration_ms=400)
    fitted, cut = fit_test_run(result, limit=20_000)
    assert 0 < len(fitted.failures) < 30 and fitted.failed == 30
    assert (
        cut is not None
        and f"{30 - len(fitted.failures)} more failures left out" in cut
        and "cut to 4000 characters" in cut
    )
    text = run_report(fitted, cut)
    assert text.endswith("5 passed, 30 failed, 1 skipped in 0.4 s") and "Cut: " in text
    assert summary_line(TestRunResult(passed=2)) == "2 passed, 0 failed in 0.0 s"


# --- One test session, in file order ------------------------------------------------------------------------


@jvm
def test_every_test_runs_with_counts_failure_details_and_progress(shop: ProjectTests) -> None:
    result = shop.run()
    # 7 pass (oneItem, three invocations, two dynamic tests, the nested one); @Disabled skipped; the hazards abort.
    assert (result.passed, result.failed, result.skipped, result.aborted) == (7, 1, 1, 2), result
    [failure] = result.failures
    assert failure.test == "shop.CartTest.discountFromTenItems"
    assert failure.message == FAILURE
    assert failure.stack == ["shop.CartTest.discountFromTenItems(CartTest.kt:25)"]
    # The failing test's own output; the passing test's println is nowhere.
    assert failure.output == "ten cups: subtotal 1000\n"
    assert "shop.CartTest.quantitiesAddUp[[2] 2]" in " ".join(shop.progress)
    assert "shop.CartTest.pricesAreKept[price 20]" in " ".join(shop.progress)
    assert shop.progress[-1].startswith("11/11 "), shop.progress


@jvm
def test_selectors_name_a_method_a_nested_class_and_a_package(shop: ProjectTests) -> None:
    one = shop.run("shop.CartTest.oneItem")
    assert (one.passed, one.failed) == (1, 0)
    parameterized = shop.run("shop.CartTest.quantitiesAddUp")
    assert parameterized.passed == 3
    assert shop.run("shop.CartTest.Empty").passed == 1
    assert shop.run("shop.CartTest#oneItem").passed == 1
    hazards = shop.run("shop.hazards.*")
    assert (hazards.passed, hazards.aborted) == (0, 2)
    missing = shop.tests("shop.Missing")
    assert isinstance(missing.result, ErrorResult)
    assert "no test class, method or package named 'shop.Missing'" in missing.result.message


@jvm
def test_a_later_snippet_sees_the_tests_state_and_the_last_failures(shop: ProjectTests) -> None:
    shop.value("shop.Shop.cartsOpened = 0; 0")
    shop.run("shop.CartTest")
    # The tests' static state is the session's: each of the eight test bodies that ran opened one cart.
    assert int(shop.value("shop.Shop.cartsOpened")) == 8
    assert shop.value("lastTestFailures.single().test") == "shop.CartTest.discountFromTenItems"
    assert (
        shop.value("(lastTestFailures.single().exception as org.opentest4j.AssertionFailedError).actual.value")
        == "1000"
    )


@jvm
def test_a_spinning_test_is_stopped_by_the_timeout_and_the_session_stays(shop: ProjectTests) -> None:
    shop.value('System.setProperty("shop.hazards", "on"); 0')
    try:
        started = time.monotonic()
        result = shop.run("shop.hazards.HazardTest.spins", timeout=2)
        assert result.stopped is not None and "Timed out after 2 s" in result.stopped, result
        assert not result.state_lost
        assert time.monotonic() - started < 30
        assert shop.value("1 + 1") == "2"
    finally:
        shop.value('System.clearProperty("shop.hazards"); 0')


@jvm
def test_system_exit_in_a_test_is_refused_and_ends_the_session_as_a_snippets_does(shop: ProjectTests) -> None:
    shop.value('System.setProperty("shop.hazards", "on"); 0')
    result = shop.run("shop.hazards.HazardTest.exits")
    assert result.failed == 1 and "SecurityException" in result.failures[0].message, result
    assert result.state_lost and any("called System.exit(3)" in notice for notice in result.notices)
    # The next call starts a fresh session: the property set by a snippet is gone with the old JVM.
    assert shop.value('"${System.getProperty("shop.hazards")}"') == "null"


def _discount_rule(shop: ProjectTests, *, broken: bool) -> None:
    """Cart.kt's ten-item discount as shipped (broken: `size > 10`) or fixed, whichever it is now."""
    rule = ("size >= 10", "size > 10") if broken else ("size > 10", "size >= 10")
    if rule[0] in (shop.root / CART).read_text():
        shop.edit(CART, *rule)


@jvm
def test_failed_only_runs_the_tests_known_to_fail_whatever_ran_between(shop: ProjectTests) -> None:
    """A failure stays known until a run sees it pass: a narrower passing run between keeps it, and so does the JVM's
    restart (in file order, the System.exit test's: the hazards it and the timeout test failed are known too, and abort
    now, their property unset); the fixing edit's failed-only run passes in place; with none known, failed-only runs
    every test and says so. Failed on main before: the narrower run made failed-only refuse ("the last run had no
    failures to run again")."""
    _discount_rule(shop, broken=True)
    assert shop.run("shop.CartTest").failed == 1
    assert shop.run("shop.CartTest.oneItem").passed == 1
    again = shop.run(failed_only=True)
    assert (again.passed, again.failed) == (0, 1), again.failed_only_notes
    [ran] = [note for note in again.failed_only_notes if note.startswith("ran the ")]
    assert "shop.CartTest.discountFromTenItems" in ran and "oneItem" not in ran, ran
    _discount_rule(shop, broken=False)
    reply = shop.tests(failed_only=True)
    assert isinstance(reply.result, TestRunResult), reply.result
    assert (reply.result.passed, reply.result.failed) == (1, 0), reply.result
    assert "ran the 1 test(s) known to fail: shop.CartTest.discountFromTenItems" in reply.result.failed_only_notes
    # Cart.kt is a main source: a test session compiles it as main (as the build's test-compile compiles main first,
    # docs/sessions-and-edits.md), then updates the classes in place; Maven doesn't run.
    assert [notice.kind for notice in reply.notices] == ["build_tool", "updated"], reply.notices
    assert "compiled Cart.kt in the session" in reply.notices[0].text, reply.notices
    everything = shop.run(failed_only=True)
    assert (everything.passed, everything.failed) == (8, 0), everything
    assert "no test is known to fail: ran every test" in everything.failed_only_notes, everything.failed_only_notes


@jvm
def test_a_test_broken_again_then_renamed_is_known_by_its_new_name(shop: ProjectTests) -> None:
    """Broken again, the failure is known once a run sees it (a narrower passing run doesn't); renamed, its old name
    drops out, said, and the failed-only run of every test finds it failing under the new one."""
    _discount_rule(shop, broken=True)
    assert shop.run("shop.CartTest.oneItem").failed == 0
    assert shop.run(failed_only=True).failed == 1
    shop.edit("src/test/kotlin/shop/CartTest.kt", "fun discountFromTenItems()", "fun tenItemsGetTenPercentOff()")
    renamed = shop.run(failed_only=True)
    assert renamed.failed == 1 and renamed.failures[0].test == "shop.CartTest.tenItemsGetTenPercentOff", renamed
    assert (
        "shop.CartTest.discountFromTenItems: no longer among the tests (renamed, deleted or excluded), no longer known "
        "to fail" in renamed.failed_only_notes
    ), renamed.failed_only_notes
    assert "no test is known to fail: ran every test" in renamed.failed_only_notes
    rerun = shop.run("shop.CartTest", failed_only=True)
    assert (rerun.passed, rerun.failed) == (0, 1), rerun
    assert "ran the 1 test(s) known to fail: shop.CartTest.tenItemsGetTenPercentOff" in rerun.failed_only_notes, (
        rerun.failed_only_notes
    )


@jvm
def test_a_sealed_hierarchy_declared_in_a_snippet_needs_no_compiler_plugin(shop: ProjectTests) -> None:
    """The class-phases add-on is in every session, not only in those of a project with compiler plugins (this one has
    none): a sealed interface declared in a snippet knows its inheritors, so a `when` that misses one is refused."""
    declared = shop.snippet("sealed interface Lid\ndata class Cup(val ml: Int) : Lid\nobject Bare : Lid\n1")
    assert isinstance(declared.result, SuccessResult), declared.result
    missing = shop.snippet("fun ml(l: Lid) = when (l) { is Cup -> l.ml }")
    assert isinstance(missing.result, ErrorResult), missing.result
    assert "'when' expression must be exhaustive" in missing.result.message, missing.result.message
    assert shop.value("Lid::class.sealedSubclasses.mapNotNull { it.simpleName }.sorted()") == "[Bare, Cup]"


@jvm
def test_a_new_test_source_file_resolves_in_the_test_session_after_its_compile(shop: ProjectTests) -> None:
    """A new file of test fixtures is compiled in the test session and its declarations resolve in the next snippet,
    the session's state kept."""
    shop.value("val kept = 2; kept")
    shop.edit("src/test/kotlin/shop/fixtures/Fixtures.kt", "", "package shop.fixtures\n\nfun fixtureCups(): Int = 40\n")
    reply = shop.snippet("shop.fixtures.fixtureCups() + kept")
    assert isinstance(reply.result, SuccessResult) and reply.result.value is not None, (reply.result, reply.notices)
    assert reply.result.value.data == "42", reply.result
    assert "compiled Fixtures.kt in the session" in " ".join(n.text for n in reply.notices), reply.notices


# --- Over MCP and the CLI -----------------------------------------------------------------------------------


def _text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


@jvm
@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_run_project_tests_over_mcp_and_a_snippet_in_the_same_session(
    tmp_path_factory: pytest.TempPathFactory, anyio_backend: str
) -> None:
    root = str(shared_copy(SHOP, "test", tmp_path_factory))
    messages: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "gradle_repl", "serve", "--no-spare-worker"], env=dict(os.environ)
    )
    async with Client(params, read_timeout_seconds=300) as client:
        result = await client.call_tool(
            "run_project_tests",
            {"projectRoot": root, "buildTool": "maven", "tests": ["shop.CartTest"]},
            progress_callback=on_progress,
        )
        snippet = await client.call_tool(
            "run_kotlin_snippet",
            {
                "projectRoot": root,
                "buildTool": "maven",
                "sourceSet": "test",
                "sessionId": "tests",
                "code": "lastTestFailures.size",
            },
        )
        missing = await client.call_tool(
            "run_project_tests", {"projectRoot": root, "buildTool": "maven", "tests": ["shop.Nope"]}
        )
    assert not result.is_error, _text(result)
    data = result.structured_content
    assert data is not None
    assert (data["passed"], data["failed"], data["skipped"], data["aborted"]) == (7, 1, 1, 0)
    assert data["failures"][0]["test"] == "shop.CartTest.discountFromTenItems"
    assert data["failures"][0]["displayName"] == "discountFromTenItems()"
    assert data["failures"][0]["stack"] == ["shop.CartTest.discountFromTenItems(CartTest.kt:25)"]
    assert _text(result).splitlines()[-1].startswith("7 passed, 1 failed, 1 skipped in ")
    assert any(m.startswith("9/9 ") or "/9 shop.CartTest" in m for m in messages), messages
    assert _text(snippet).startswith("1"), _text(snippet)
    assert missing.is_error and "no test class, method or package named 'shop.Nope'" in _text(missing)


@jvm
def test_cli_prints_failures_then_a_summary_and_exits_1_only_when_a_test_failed(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(shared_copy(SHOP, "test", tmp_path_factory))
    assert cli_main(["test", root, "shop.CartTest", "--build-tool", "maven"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAILED shop.CartTest.discountFromTenItems\n"), out
    assert out.splitlines()[-1].startswith("7 passed, 1 failed, 1 skipped in ")
    assert cli_main(["test", root, "shop.CartTest.oneItem", "--build-tool", "maven"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("1 passed, 0 failed in ")
    assert cli_main(["test", root, "--failed"]) == 2
