"""The init script compiles against the real Gradle API of the oldest and a recent supported Gradle,
with warnings as errors (builds may set org.gradle.kotlin.dsl.allWarningsAsErrors=true), and its Kotlin version
comparison answers as toolchain.py's does.

No Gradle 7+ runs here, but its public API jars are on Maven Central (dev.gradleplugins:gradle-api).
The script body is compiled as an extension of `Gradle` (an init script's receiver) with the
sam-with-receiver plugin configured as Gradle's Kotlin DSL configures it, so `Action` lambdas get
their receiver exactly as in a real build. A small harness (a `main` calling the script's KotlinVersions) is
compiled with it, so the compile the API test checks is also the one the version table runs.
"""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path

import pytest

from gradle_repl.project.toolchain import (
    PINNED_KOTLIN_VERSION,
    Coordinate,
    has_usable_repl,
    kotlin_policy_properties,
    resolve_jars,
)
from gradle_repl.resources import init_script_path
from support.compiledonce import Compiled, CompileFailed, compiled_once
from support.gradlemodels import as_compilable_kotlin
from support.shortjvm import SHORT_LIVED_JVM_FLAGS
from support.testtoolchain import fetch_test_toolchain

pytestmark = pytest.mark.jvm

GRADLE_VERSIONS = ("7.6", "8.11.1")

# Kotlin versions and whether each has a usable K2 REPL: the policy's one table, run through toolchain.py's
# comparison and the init script's. Released versions, qualifiers, short forms, and what neither side can read.
KOTLIN_VERSION_TABLE = (
    ("2.2.0", True),
    ("2.2.21", True),
    ("2.3.21", True),
    ("2.2.0-RC", True),
    ("2.2.0-Beta1", True),
    ("2.2", True),
    ("2.2-RC1", True),
    ("2.10.0", True),
    ("3.0.0", True),
    ("10.0.0", True),
    ("2.1.20", False),
    ("2.1.255", False),
    ("2.1.0-Beta2", False),
    ("1.9.24", False),
    ("2", False),
    ("", False),
    ("unknown", False),
    ("2.1.9999999999", False),  # past a JVM Int: unreadable on both sides, 0
    ("+2.3.0", False),  # a sign is not a digit
    ("2.²", False),  # nor is a superscript
)

# The harness: prints, per version argument, whether the script's comparison finds it at the policy's minimum.
_HARNESS = """
fun main(args: Array<String>) {
    val minimum = KotlinVersions.minimum(args[0])
    for (version in args.drop(1)) println(KotlinVersions.atLeast(version, minimum))
}
"""


@cache
def _compiled(gradle_version: str) -> tuple[Compiled | CompileFailed, str]:
    """The init script and the harness compiled against Gradle's API with -Werror, once per machine for the same
    script, harness and versions (support/compiledonce.py); and the classpath the harness runs with."""
    toolchain = fetch_test_toolchain()
    jars = resolve_jars(
        {
            "gradle-api": [Coordinate("dev.gradleplugins", "gradle-api", gradle_version)],
            "sam": [
                Coordinate(
                    "org.jetbrains.kotlin",
                    "kotlin-sam-with-receiver-compiler-plugin-embeddable",
                    PINNED_KOTLIN_VERSION,
                    transitive=False,
                )
            ],
        }
    )
    script = as_compilable_kotlin(init_script_path().read_text())
    host = ":".join(toolchain.repl_host)
    api = ":".join(j for j in jars.by_request["gradle-api"] if j.endswith(".jar"))

    flags = [
        "-Werror",
        "-no-stdlib",
        "-no-reflect",
        f"-Xplugin={jars.by_request['sam'][0]}",
        "-P",
        "plugin:org.jetbrains.kotlin.samWithReceiver:annotation=org.gradle.api.HasImplicitReceiver",
    ]

    def run_compiler(out: Path) -> subprocess.CompletedProcess[str]:
        sources = out / "sources"
        sources.mkdir()
        (sources / "ReplEnvInit.kt").write_text(script)
        (sources / "VersionTable.kt").write_text(_HARNESS)
        return subprocess.run(
            [
                "java",
                *SHORT_LIVED_JVM_FLAGS,
                "-cp",
                host,
                "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler",
                *flags,
                "-classpath",
                f"{api}:{host}",
                "-d",
                str(out),
                str(sources),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )

    compiled = compiled_once("init-script-api", [script, _HARNESS, api, host, *flags], run_compiler)
    classes = compiled.classes if isinstance(compiled, Compiled) else "not compiled"
    return compiled, f"{classes}:{api}:{host}"


@pytest.mark.parametrize("gradle_version", GRADLE_VERSIONS)
def test_init_script_compiles_against_gradle_api(gradle_version: str) -> None:
    compiled, _ = _compiled(gradle_version)
    assert isinstance(compiled, Compiled), compiled


def test_one_kotlin_version_table_gets_the_same_answers_from_python_and_the_init_script() -> None:
    """Each version of the table has a usable K2 REPL by toolchain.py's comparison exactly when it has by the init
    script's (compiled, run on the JVM, given the minimum as gradle-repl passes it), and both say what the table says."""
    compiled, classpath = _compiled(GRADLE_VERSIONS[-1])
    assert isinstance(compiled, Compiled), compiled
    versions = [version for version, _ in KOTLIN_VERSION_TABLE]
    minimum = kotlin_policy_properties()["gradle-repl.minimumKotlinVersion"]
    ran = subprocess.run(
        ["java", *SHORT_LIVED_JVM_FLAGS, "-cp", classpath, "VersionTableKt", minimum, *versions],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LC_ALL": "C.UTF-8"},  # the arguments' non-ASCII rows
    )
    assert ran.returncode == 0, ran.stderr
    script = dict(zip(versions, (line == "true" for line in ran.stdout.splitlines()), strict=True))
    python = {version: has_usable_repl(version) for version in versions}
    expected = dict(KOTLIN_VERSION_TABLE)
    assert (python, script) == (expected, expected)
