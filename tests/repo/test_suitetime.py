"""The suite's own time keeping (suitetime.py): modules ordered longest first by the last full run, kept only from one."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from suitetime import ModuleTimes


@dataclass
class _Item:
    nodeid: str


def _items(*nodeids: str) -> list[pytest.Item]:
    return cast(list[pytest.Item], [_Item(n) for n in nodeids])


def test_modules_go_longest_first_new_ones_before_all_and_tests_keep_their_order(tmp_path: Path) -> None:
    store = tmp_path / "times.json"
    store.write_text(json.dumps({"tests/test_a.py": 1.0, "tests/test_b.py": 9.0}))
    items = _items(
        "tests/test_a.py::x",
        "tests/test_a.py::y",
        "tests/test_b.py::z",
        "tests/test_new.py::w",
        "tests/test_new2.py::v",
    )
    ModuleTimes(store).order(items)
    assert [i.nodeid for i in items] == [
        "tests/test_new.py::w",
        "tests/test_new2.py::v",
        "tests/test_b.py::z",
        "tests/test_a.py::x",
        "tests/test_a.py::y",
    ]


def test_without_kept_times_modules_with_more_tests_go_first_and_ties_keep_pytests_order(tmp_path: Path) -> None:
    items = _items("tests/test_c.py::v", "tests/test_b.py::z", "tests/test_a.py::x", "tests/test_a.py::y")
    ModuleTimes(tmp_path / "none.json").order(items)
    assert [i.nodeid for i in items] == [
        "tests/test_a.py::x",
        "tests/test_a.py::y",
        "tests/test_c.py::v",
        "tests/test_b.py::z",
    ]


def test_pytest_xdist_hands_modules_out_in_that_order(pytestconfig: pytest.Config) -> None:
    # Its default re-sorts --dist loadfile's modules by their number of tests, which undid the measured order unseen.
    assert pytestconfig.getoption("loadscopereorder") is False


def test_a_run_of_a_few_modules_keeps_nothing(tmp_path: Path) -> None:
    store = tmp_path / "times.json"
    times = ModuleTimes(store)
    times.seconds["tests/test_a.py"] = 3.0
    times.keep()
    assert not store.exists()
    times.seconds.update({f"tests/test_{n}.py": float(n) for n in range(10)})
    times.keep()
    assert json.loads(store.read_text())["tests/test_a.py"] == 3.0
