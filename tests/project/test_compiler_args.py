"""Only free compiler arguments that change what code compiles reach the REPL."""

from pathlib import Path

from gradle_repl.project.cache import EnvironmentCache
from gradle_repl.project.compiler_args import plugin_options_in, relevant_compiler_args
from gradle_repl.project.resolve import _resolve_locked
from support.fakebuildtool import ScriptedTool


def test_keeps_language_flags_and_drops_build_plumbing() -> None:
    args = [
        "-language-version",
        "2.1",
        "-api-version=2.1",
        "-opt-in",
        "a.B",
        "-opt-in=c.D",
        "-Xcontext-parameters",
        "-progressive",
        "-java-parameters",
        "-Xplugin=/x.jar",
        "-Xfriend-paths=/out",
        "-verbose",
        "-Xjdk-release=17",
        "-Werror",
    ]
    assert relevant_compiler_args(args) == [
        "-language-version",
        "2.1",
        "-api-version=2.1",
        "-opt-in",
        "a.B",
        "-opt-in=c.D",
        "-Xcontext-parameters",
        "-progressive",
        "-java-parameters",
    ]


def test_every_build_tools_free_args_pass_the_one_filter(tmp_path: Path) -> None:
    """Gradle reports its free args unfiltered; resolve filters them for every tool, in one place: a plugin option
    among them joins the plugins' options, and a -P that names no plugin option is one warning."""
    (tmp_path / "build.txt").write_text("")
    resolved = _resolve_locked(
        tmp_path, ScriptedTool(), ":", "main", False, None, EnvironmentCache(tmp_path / "c"), 0.0
    )
    assert resolved.environment.compiler_args == ["-Xcontext-parameters"]
    assert resolved.environment.compiler_plugin_options == [
        "plugin:org.jetbrains.kotlin.allopen:preset=spring",
        "plugin:org.jetbrains.kotlin.allopen:annotation=a.Open",
    ]
    assert resolved.environment.warnings == [
        "compiler argument -P 'annotation=a.Open' is not a plugin option (plugin:<id>:<option>=<value>); snippets compile without it"
    ]


def test_plugin_options_are_read_in_both_spellings_the_compiler_takes() -> None:
    """-P then its value, and -P=value in one argument; comma-separated values split as kotlinc splits them;
    everything else stays, in order (kotlinc refuses "-P plugin:…" and "-Pplugin:…": they are not options)."""
    allopen, noarg = (
        "plugin:org.jetbrains.kotlin.allopen:annotation=a.Open",
        "plugin:org.jetbrains.kotlin.noarg:annotation=a.Entity",
    )
    serialization = "plugin:org.jetbrains.kotlinx.serialization:disableIntrinsic=true"
    found = plugin_options_in(
        [
            "-Xa",
            "-P",
            allopen,
            f"-P={noarg}",
            "-Xb",
            "-P",
            f"{noarg},{serialization}",
            "-P",
            "not-an-option",
            f"-P {allopen}",
        ]
    )
    assert found.options == [allopen, noarg, serialization]
    assert found.rest == ["-Xa", "-Xb", f"-P {allopen}"]
    assert found.malformed == ["not-an-option"]
    assert plugin_options_in(["-P"]) == ([], ["-P"], [])
