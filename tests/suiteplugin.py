"""The suite's machinery, as a pytest plugin of its own (registered by conftest.py): how many xdist workers a run
gets, the order its modules go out in and the time each took (suitetime.py), the run's downloads started beside it
(prefetch.py), the reliability ledger summed over the workers (ledger.py), the run's Kotlin daemons stopped at its end,
and a run failed when a test every machine must run was skipped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from kotlindaemons import daemon_options, stop_daemons
from ledger import FIELDS as LEDGER_FIELDS, Ledger
from suitetime import ModuleTimes
from support.paths import kotlin_daemons_dir, persistent_test_cache, run_cache_dir, run_state_dir
from support.shortjvm import SHORT_LIVED_JVM_FLAGS


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: a worker per core, but no more than memory holds: a worker's tests run up to about
    four JVMs with the Kotlin compiler at once (~0.5 GiB each)."""
    cores = os.cpu_count() or 1
    memory_gib = psutil.virtual_memory().available / 2**30
    return max(1, min(cores, int(memory_gib // 3)))


# The only skips a machine may have: a Gradle 7.6+ launcher can't be installed everywhere (CONTRIBUTING.md, The suite). Any
# other skip means the machine lacks something CONTRIBUTING.md's set-up names (tmux, a JDK tool): the run fails.
ALLOWED_SKIP_REASONS = ("no Gradle:",)
_required_but_skipped: list[str] = []


# Where this run's time went, by module (suitetime.py); the last full run's times order this one's modules.
_module_times = ModuleTimes(persistent_test_cache() / "module-times.json")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    _module_times.order(items)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _module_times.add(report)
    if not report.skipped or getattr(report, "wasxfail", None) is not None:
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if not reason.removeprefix("Skipped: ").startswith(ALLOWED_SKIP_REASONS):
        _required_but_skipped.append(f"{report.nodeid}: {reason}")


_prefetch: subprocess.Popen[bytes] | None = None


def pytest_sessionstart(session: pytest.Session) -> None:
    """pytest-xdist's controller starts the run's downloads (prefetch.py) while its workers start: it runs no tests
    itself. A run in one process (`-n 0`, a file or a test at a time) fetches only what its tests need, as they need it."""
    global _prefetch  # noqa: PLW0603 - one prefetch per run, stopped by pytest_sessionfinish
    config = session.config
    if getattr(config, "workerinput", None) is not None or not config.getoption("numprocesses", None):
        return
    state = run_state_dir(config._tmp_path_factory)  # type: ignore[attr-defined]
    env = {**os.environ, "GRADLE_REPL_CACHE_DIR": str(run_cache_dir(state))}
    env.setdefault("MAVEN_OPTS", " ".join(SHORT_LIVED_JVM_FLAGS))
    env["MAVEN_OPTS"] += " " + daemon_options(kotlin_daemons_dir(state))  # where the workers' builds look for it
    with open(state / "prefetch.log", "wb") as log:
        _prefetch = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("prefetch.py"))],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """An xdist worker hands its ledger to the controller; the controller stops the run's Kotlin daemons and fails a
    run in which a test that every machine must run was skipped."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["reliability_ledger"] = _own_ledger()
        return
    # The controller (or the one process of `-n 0`) ends last: no worker's build can be using a daemon any more.
    if _prefetch is not None and _prefetch.poll() is None:  # a run of a few tests ends before its downloads
        os.killpg(_prefetch.pid, signal.SIGKILL)
        _prefetch.wait()
    _module_times.keep()
    left = stop_daemons(kotlin_daemons_dir(run_state_dir(session.config._tmp_path_factory)))  # type: ignore[attr-defined]
    if left:
        print(f"Kotlin daemons of this run still running after SIGKILL: {[p.pid for p in left]}")
    if _required_but_skipped and session.exitstatus == 0:
        session.exitstatus = 1


# What the reliability suite tried, summed over this process and (under pytest-xdist) every worker.
_ledger_totals = dict.fromkeys(LEDGER_FIELDS, 0)


def _own_ledger() -> dict[str, int]:
    return {field: getattr(Ledger, field) for field in LEDGER_FIELDS}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:  # xdist's WorkerController, read through getattr
    for field, count in getattr(node, "workeroutput", {}).get("reliability_ledger", {}).items():
        _ledger_totals[field] += count


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int | pytest.ExitCode, config: pytest.Config
) -> None:
    """Names every test that was skipped though it must run everywhere; after a run that included the reliability
    suite, prints what it tried."""
    terminalreporter.write_sep("=", "time by test module")
    for line in _module_times.summary():
        terminalreporter.write_line(line)
    prefetched = run_state_dir(config._tmp_path_factory) / "prefetch.log"  # type: ignore[attr-defined]
    if _prefetch is not None and prefetched.is_file():
        # What took time to fetch, and when it was there: on a new machine, where the first minutes went.
        terminalreporter.write_sep("=", "the run's prefetch (tests/prefetch.py), fetches of 1 s or more, and failures")
        for line in prefetched.read_text(errors="replace").splitlines():
            if not line.lstrip().startswith("0.") or ": failed: " in line:
                terminalreporter.write_line(line)
    for skipped in _required_but_skipped:
        terminalreporter.write_line(
            f"REQUIRED TEST SKIPPED (install what it needs; see CONTRIBUTING.md): {skipped}", red=True
        )
    ledger = {field: _ledger_totals[field] + count for field, count in _own_ledger().items()}
    if ledger["faults_tried"] or ledger["bad_inputs_tried"]:
        terminalreporter.write_line(
            f"reliability: faults tried {ledger['faults_tried']}, survived {ledger['faults_survived']}, "
            f"bad inputs tried {ledger['bad_inputs_tried']}, data lost {ledger['data_lost']}"
        )
    if ledger["refused_tried"] or ledger["http_calls"]:
        terminalreporter.write_line(
            f"http: requests without the token or from a foreign host/origin {ledger['refused_tried']}, refused "
            f"{ledger['refused_tried'] - ledger['refused_but_ran']} (nothing run); concurrent client calls "
            f"{ledger['http_calls']}, answers not their own {ledger['http_calls_wrong']}"
        )
