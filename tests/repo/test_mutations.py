"""scripts/mutations.py's breakages still name today's code and tests: each one's text is in its file exactly once and
each test it names exists, so a rename or a move fails the suite in a second instead of quietly retiring a mutation
until the next full run (about 20 minutes) says NOT APPLIED; and --changed picks the ones a change may have undone."""

from __future__ import annotations

import importlib.util
import re
import sys
from types import ModuleType

from support.paths import REPO

ROOT = REPO


def _script() -> ModuleType:
    """scripts/mutations.py, which is run, not installed: loaded from its file (and registered, as its dataclass
    needs its module in sys.modules)."""
    if (loaded := sys.modules.get("mutations")) is not None:
        return loaded
    spec = importlib.util.spec_from_file_location("mutations", ROOT / "scripts" / "mutations.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutations"] = module
    spec.loader.exec_module(module)
    return module


mutations = _script()


def test_every_mutation_applies_to_todays_code() -> None:
    """Each mutation's text occurs exactly once in its file: the script would otherwise change nothing and test nothing."""
    stale = [f"{m.name}: {why}" for m in mutations.MUTATIONS if (why := mutations.not_applied(m, ROOT))]
    assert stale == []


def test_every_test_a_mutation_names_exists() -> None:
    """Each node id names a test file that defines that test (a parametrized one by its function's name)."""
    missing = []
    for mutation in mutations.MUTATIONS:
        for node in mutation.tests:
            path, _, name = node.partition("::")
            source = ROOT / path
            function = name.partition("[")[0]
            if not source.is_file() or (
                function and not re.search(rf"^(async )?def {re.escape(function)}\(", source.read_text(), re.MULTILINE)
            ):
                missing.append(f"{mutation.name}: {node}")
    assert missing == []


def test_mutation_names_are_unique() -> None:
    """A name runs one mutation (`scripts/mutations "NAME"`)."""
    names = [m.name for m in mutations.MUTATIONS]
    assert len(names) == len(set(names))


def test_changed_picks_the_mutations_whose_file_or_whose_tests_file_changed() -> None:
    """--changed: a change to the broken file or to a file of the tests that must catch it picks the mutation; a change
    to neither leaves it out."""
    (shared_cut,) = [
        m for m in mutations.MUTATIONS if m.name == "the shared cut keeps half a character at the output limit"
    ]
    assert shared_cut in mutations.touched(
        mutations.MUTATIONS, {"jvm-worker/runs-in-both/gradlerepl/both/OutputCut.java"}
    )
    assert shared_cut in mutations.touched(mutations.MUTATIONS, {"tests/worker/test_worker_output.py"})
    assert shared_cut not in mutations.touched(mutations.MUTATIONS, {"README.md", "tests/worker/attach/test_attach.py"})
    assert mutations.touched(mutations.MUTATIONS, {"README.md"}) == []
