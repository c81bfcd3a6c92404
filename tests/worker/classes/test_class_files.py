"""What a class file declares, read from bytes javac wrote (worker/classes/class_files.py): why the JVM would refuse to
redefine a class, and whether its static initialiser changed. Pure logic on real class files; no JVM runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from gradle_repl.worker.classes.class_files import (
    ClassShape,
    constant_changed,
    initialiser_changed,
    read_class,
    refusal,
)

# Each class before and after an edit: javac compiles each version's set in one run.
SOURCES = {
    "Body": ("class Body { int f() { return 1; } }", "class Body { int f() { return 2 + 40; } }"),
    "Added": ("class Added { int f() { return 1; } }", "class Added { int f() { return 1; } int g() { return 2; } }"),
    "Removed": ("class Removed { int x; int y; }", "class Removed { int y; }"),
    "Super": ("class Super { }", "class Super implements Runnable { public void run() { } }"),
    "Hidden": ("class Hidden { public int f() { return 1; } }", "class Hidden { private int f() { return 1; } }"),
    "Init": ("class Init { static int v = 1; }", "class Init { static int v = 2; }"),
    "Constant": (
        'class Constant { static final int N = 1; static final String S = "a"; }',
        'class Constant { static final int N = 2; static final String S = "a"; }',
    ),
    "Text": (
        'class Text { static final String S = "a"; int f() { return 1; } }',
        'class Text { static final String S = "b"; int f() { return 1; } }',
    ),
    # A new constant elsewhere shifts the pool; the initialiser still does the same.
    "Shifted": (
        'class Shifted { static String v = "same"; int f() { return 1; } }',
        'class Shifted { static String v = "same"; int f() { return ("a new constant" + v).length(); } }',
    ),
}


def _javac() -> str:
    found = Path(os.environ["JAVA_HOME"]) / "bin" / "javac" if "JAVA_HOME" in os.environ else None
    javac = str(found) if found is not None and found.is_file() else shutil.which("javac")
    if javac is None:
        pytest.fail("no javac: a JDK is needed (CONTRIBUTING.md: openjdk-17-jdk-headless)")
    return javac


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[ClassShape, ClassShape]]:
    root = tmp_path_factory.mktemp("classes")
    for version in (0, 1):
        sources = root / f"src{version}"
        sources.mkdir()
        for name, texts in SOURCES.items():
            (sources / f"{name}.java").write_text(texts[version])
        subprocess.run([_javac(), "-d", str(root / f"out{version}"), *map(str, sources.glob("*.java"))], check=True)
    return {
        name: (
            read_class((root / "out0" / f"{name}.class").read_bytes()),
            read_class((root / "out1" / f"{name}.class").read_bytes()),
        )
        for name in SOURCES
    }


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Body", None),
        ("Init", None),
        ("Shifted", None),
        ("Added", "a method was added: g()I"),
        ("Removed", "a field was removed: x"),
        ("Super", "its supertypes changed"),
        ("Hidden", "a method's modifiers changed: f()I"),
    ],
)
def test_the_jvm_refusals_are_named_and_body_edits_pass(
    shapes: dict[str, tuple[ClassShape, ClassShape]], name: str, why: str | None
) -> None:
    """A body or initialiser edit is allowed; a member added or removed, supertypes or a member's modifiers changed
    are named as the JVM's redefinition would refuse them."""
    old, new = shapes[name]
    assert old.name == name and refusal(old, new) == why


def test_a_changed_static_initialiser_is_told_from_one_whose_constants_moved(
    shapes: dict[str, tuple[ClassShape, ClassShape]],
) -> None:
    """`static int v = 1` → `= 2` changes the initialiser; constants added elsewhere in the class shift the constant
    pool, but the initialiser that does the same is not reported as changed."""
    assert initialiser_changed(*shapes["Init"])
    assert not initialiser_changed(*shapes["Shifted"]) and not initialiser_changed(*shapes["Body"])


def test_a_constants_new_value_is_named_and_a_body_edit_changes_none(
    shapes: dict[str, tuple[ClassShape, ClassShape]],
) -> None:
    """Other classes hold a constant's value (javac and kotlinc inline it): a changed int or String constant is named;
    a body edit, or a static field without a constant value, changes no constant."""
    assert constant_changed(*shapes["Constant"]) == "N" and constant_changed(*shapes["Text"]) == "S"
    assert constant_changed(*shapes["Body"]) is None and constant_changed(*shapes["Init"]) is None


def test_bytes_that_are_not_a_class_file_are_refused() -> None:
    """Garbage or a truncated file is a ValueError, never a wrong answer."""
    with pytest.raises(ValueError, match="not a class file"):
        read_class(b"PK\x03\x04 a jar, not a class")
    with pytest.raises(ValueError, match="ends early"):
        read_class(b"\xca\xfe\xba\xbe\x00\x00\x00\x3d\x00\x10")
