"""The suite mirrors the code: each test module sits in the folder of the layer (and room) whose code it tests, what
tests share is in support/, no test module imports another or conftest.py, and every product module has a test where
one would look for it, or is named in UNTESTED until it has."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from support.paths import REPO

TESTS = REPO / "tests"
PACKAGE = REPO / "bridge" / "gradle_repl"
# The product's layers: their test folders mirror bridge/gradle_repl/<layer>/ and its rooms (tests/worker/attach/).
LAYERS = ("front", "host", "project", "worker")
# Folders of the suite's own, flat: the base (bridge/gradle_repl's top-level modules), jvm-worker's and the init script's
# JVM code run directly, whole-product scenarios over MCP or the CLI against test projects, and checks of the
# repository itself (lint, types, the layers, docs, mutations, the public schemas, packaging, the suite's machinery).
OWN_FOLDERS = ("base", "jvm", "endtoend", "repo")
# tests/ itself holds no test module: the fixtures every folder shares, the suite's machinery (the plugin and what it
# runs or reads), the support package, and data (the test projects, the Gradle models' harness, the schema snapshot).
TOP_LEVEL = {
    "conftest.py",
    "suiteplugin.py",
    "suitetime.py",
    "suitecpu.py",
    "suiteversions.py",
    "ledger.py",
    "prefetch.py",
    "kotlindaemons.py",  # also imported by bench/edits.py from this place
    "support",
    "projects",
    "gradle-models",
    "tool_schemas.json",
    *LAYERS,
    *OWN_FOLDERS,
}
# Product modules with no test module of their name in their layer's folder and no test importing them: each is a test
# still to write. A module that gains one leaves this list (the check fails until it does).
UNTESTED = {
    "__main__",
    "front.attach_tools",
    "front.demo",
    "front.probe_report",
    "front.session_protocol",
    "host.eviction",
    "host.limits",
    "host.replay",
    "host.spare",
    "host.training",
    "progress",
    "project.boot_jar",
    "project.buildguard",
    "project.buildtools.base",
    "project.buildtools.choice",
    "project.junit_launcher",
    "project.watch",
    "stopping",
    "worker.artifacts.java_jars",
    "worker.attach.agent_loading",
    "worker.attach.attached_runner",
    "worker.attach.display_api",
    "worker.attach.liveness",
    "worker.attach.snippet_mirror",
    "worker.attach.spring_helpers",
    "worker.boot",
    "worker.boot_attached",
    "worker.classes.class_update_agent",
    "worker.classes.edit_compiler",
    "worker.interruption",
    "worker.java",
    "worker.jvm",
    "worker.kotlinc",
    "worker.prepare",
    "worker.probes.call_probes",
    "worker.probes.expressions",
    "worker.repl.declarations",
    "worker.repl.failures",
    "worker.repl.junit_addon",
    "worker.repl.local_runner",
    "worker.repl.memory",
    "worker.repl.session",
    "worker.results.outcomes",
    "worker.results.safety",
}


def _suite_files() -> list[Path]:
    """The suite's Python files: tests, support and machinery, not the test projects' own sources."""
    return [
        path
        for path in TESTS.rglob("*.py")
        if not {"projects", "gradle-models", "__pycache__"} & set(path.relative_to(TESTS).parts)
    ]


def _test_modules() -> list[Path]:
    return [path for path in _suite_files() if path.name.startswith("test_")]


def _imported(source: str) -> set[str]:
    """Every module a source imports, at its top or inside a function: `from a.b import c` names a.b and a.b.c."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _test_modules_imported(source: str) -> set[str]:
    """The test modules (a test_* part anywhere in the dotted name) and conftest a source imports, at its top or inside
    a function; a module taken from the product (gradle_repl.project.test_launcher) is no test module."""
    found = {
        name
        for name in _imported(source)
        if name.split(".")[0] != "gradle_repl"
        and (name.split(".")[0] == "conftest" or any(part.startswith("test_") for part in name.split(".")))
    }
    return {name for name in found if name.rpartition(".")[0] not in found}  # the module, not the names taken from it


def test_no_file_of_the_suite_imports_a_test_module_or_conftest() -> None:
    """What tests share lives in support/ (fixtures in conftest.py, which pytest hands to every folder), never in a
    test module another imports nor in conftest.py imported by name: a test module can move, split or go without
    breaking another."""
    importing = {
        str(path.relative_to(TESTS)): sorted(imported)
        for path in _suite_files()
        if (imported := _test_modules_imported(path.read_text(encoding="utf-8")))
    }
    assert importing == {}


def test_an_import_of_a_test_module_is_found() -> None:
    """The check sees an import of a test module in either form, in a folder, inside a function too, and of conftest;
    nothing else (a test_* name taken from a product module is no test module)."""
    source = (
        "import test_a\nfrom test_b import x\ndef f():\n    from test_c.d import y\n"
        "from front.test_e import z\nfrom front import test_f\nfrom conftest import SAMPLE\n"
        "import testtoolchain, gradle_repl.front.cli\nfrom gradle_repl.project import test_launcher\n"
    )
    assert _test_modules_imported(source) == {
        "test_a",
        "test_b",
        "test_c.d",
        "front.test_e",
        "front.test_f",
        "conftest",
    }


def test_every_test_module_sits_in_a_layer_folder() -> None:
    """A test module lives in the folder of what it tests: under a layer, in the layer's folder or one of its rooms
    as bridge/gradle_repl has them; else flat in base/, jvm/, endtoend/ or repo/. tests/ itself holds fixtures, the
    suite's machinery, support/ and data, nothing else."""
    misplaced = []
    for path in _test_modules():
        folder = path.parent.relative_to(TESTS).parts
        if folder[:1] and folder[0] in LAYERS:
            if not (PACKAGE.joinpath(*folder)).is_dir():
                misplaced.append(f"{path.relative_to(TESTS)}: bridge/gradle_repl has no folder {'/'.join(folder)}")
        elif not (len(folder) == 1 and folder[0] in OWN_FOLDERS):
            misplaced.append(f"{path.relative_to(TESTS)}: not in a layer's folder nor in {', '.join(OWN_FOLDERS)}")
    assert misplaced == []
    top = {entry.name for entry in TESTS.iterdir() if not entry.name.startswith((".", "__"))}
    assert top <= TOP_LEVEL, sorted(top - TOP_LEVEL)


def test_test_modules_have_names_of_their_own() -> None:
    """Two test modules never share a name: pytest imports each by its name alone (no package), as mypy reads it."""
    counts = Counter(path.name for path in _test_modules())
    assert [name for name, n in counts.items() if n > 1] == []


def _product_modules(package: Path) -> dict[str, Path]:
    """`gradle_repl.worker.results.report` → its file, for every module but packages' __init__.py."""
    return {
        ".".join(("gradle_repl", *path.relative_to(package).with_suffix("").parts)): path
        for path in package.rglob("*.py")
        if path.name != "__init__.py"
    }


def _untested(package: Path, tests: Path) -> set[str]:
    """The product modules with neither a test module of their name (test_<module>.py) in their layer's test folder
    (base/ for the top-level ones) nor a test module importing them (or a name from them)."""
    imported: set[str] = set()
    named: set[tuple[str, str]] = set()
    for path in tests.rglob("test_*.py"):
        imported |= _imported(path.read_text(encoding="utf-8"))
        named.add((path.relative_to(tests).parts[0], path.name))
    untested = set()
    for module, path in _product_modules(package).items():
        parts = path.relative_to(package).parts
        layer = parts[0] if len(parts) > 1 and parts[0] in LAYERS else "base"
        if module not in imported and (layer, f"test_{path.stem}.py") not in named:
            untested.add(module.removeprefix("gradle_repl."))
    return untested


def test_every_product_module_has_a_test_where_one_would_look() -> None:
    """Each module of bridge/gradle_repl has a test module of its name in its layer's folder or a test importing it,
    or is named in UNTESTED; a module that gains a test leaves UNTESTED."""
    untested = _untested(PACKAGE, TESTS)
    assert sorted(untested - UNTESTED) == [], (
        "without a test: write tests/<layer>/…/test_<module>.py, or import it in one"
    )
    assert sorted(UNTESTED - untested) == [], "tested now, or gone: take these out of UNTESTED"


def test_a_module_is_found_tested_by_its_name_or_an_import(tmp_path: Path) -> None:
    """A module counts as tested by a test module of its name in its layer's folder, or by an import of it (or of a
    name from it) in any test module; a test module of its name in another layer's folder doesn't count."""
    package, tests = tmp_path / "gradle_repl", tmp_path / "tests"
    for module in ("host/spare.py", "worker/results/safety.py", "paths.py", "front/demo.py", "front/__init__.py"):
        (package / module).parent.mkdir(parents=True, exist_ok=True)
        (package / module).write_text("")
    for test, source in {
        "host/test_spare.py": "",
        "repo/test_checks.py": "def f():\n    from gradle_repl.worker.results import safety\n",
        "front/test_paths.py": "",
    }.items():
        (tests / test).parent.mkdir(parents=True, exist_ok=True)
        (tests / test).write_text(source)
    assert _untested(package, tests) == {"paths", "front.demo"}
