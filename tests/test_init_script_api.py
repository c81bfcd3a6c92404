"""The init script compiles against the real Gradle API of the oldest and a recent supported Gradle,
with warnings as errors (builds may set org.gradle.kotlin.dsl.allWarningsAsErrors=true).

No Gradle 7+ runs here, but its public API jars are on Maven Central (dev.gradleplugins:gradle-api).
The script body is compiled as an extension of `Gradle` (an init script's receiver) with the
sam-with-receiver plugin configured as Gradle's Kotlin DSL configures it, so `Action` lambdas get
their receiver exactly as in a real build.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gradle_repl.resources import init_script_path
from gradle_repl.project.toolchain import PINNED_KOTLIN_VERSION, Coordinate, resolve_jars
from shortjvm import SHORT_LIVED_JVM_FLAGS
from testtoolchain import fetch_test_toolchain
from gradlemodels import as_compilable_kotlin

pytestmark = pytest.mark.jvm


@pytest.mark.parametrize("gradle_version", ["7.6", "8.11.1"])
def test_init_script_compiles_against_gradle_api(gradle_version: str, tmp_path: Path):
    toolchain = fetch_test_toolchain()
    jars = resolve_jars({
        "gradle-api": [Coordinate("dev.gradleplugins", "gradle-api", gradle_version)],
        "sam": [Coordinate("org.jetbrains.kotlin", "kotlin-sam-with-receiver-compiler-plugin-embeddable", PINNED_KOTLIN_VERSION, transitive=False)],
    })
    source = tmp_path / "ReplEnvInit.kt"
    source.write_text(as_compilable_kotlin(init_script_path().read_text()))
    host = ":".join(toolchain.repl_host)
    api = ":".join(j for j in jars.by_request["gradle-api"] if j.endswith(".jar"))
    done = subprocess.run(
        ["java", *SHORT_LIVED_JVM_FLAGS, "-cp", host, "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler", "-Werror", "-no-stdlib", "-no-reflect",
         f"-Xplugin={jars.by_request['sam'][0]}",
         "-P", "plugin:org.jetbrains.kotlin.samWithReceiver:annotation=org.gradle.api.HasImplicitReceiver",
         "-classpath", f"{api}:{host}", "-d", str(tmp_path / "out"), str(source)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
