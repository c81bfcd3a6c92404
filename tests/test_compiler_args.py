"""Only free compiler arguments that change what code compiles reach the REPL."""

import sys
from pathlib import Path

from gradle_repl.environment import BuildToolName, ReplEnvironment, ReplJarsReady
from gradle_repl.project.build_inputs import Inputs
from gradle_repl.project.cache import EnvironmentCache
from gradle_repl.project.compiler_args import plugin_options_in, relevant_compiler_args
from gradle_repl.project.process import ProgressCallback
from gradle_repl.project.resolve import _resolve_locked


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


class _ScriptedTool:
    """A build tool of its own (the interface is all resolve needs) reporting Gradle-style free args."""

    name: BuildToolName = "gradle"
    build_files = "build.txt"

    def detect(self, root: Path) -> bool:
        return True

    def check_runnable(self, root: Path) -> None:
        return None

    def is_build_input(self, path: Path, tree: Path) -> bool:
        return path.name == "build.txt"

    def inputs(self, root: Path) -> Inputs:
        return Inputs(trees=(root,), is_build_file=self.is_build_input)

    def project_key(self, root: Path, project_path: str) -> str:
        return project_path

    def facts(self) -> dict[str, str]:
        return {}

    def recompile(
        self, root: Path, *, project_path: str, source_set: str, on_progress: ProgressCallback | None = None
    ) -> bool:
        return False

    def resolve(
        self,
        root: Path,
        *,
        project_path: str,
        source_set: str,
        on_progress: ProgressCallback | None = None,
        on_repl_jars: ReplJarsReady | None = None,
    ) -> ReplEnvironment:
        java = Path(sys.executable)
        return ReplEnvironment(
            build_tool="gradle",
            project_root=str(root),
            java_executable=str(java),
            java_home=str(java.parent),
            kotlin_version="2.3.21",
            compiler_args=[
                "-Werror",
                "-Xjdk-release=17",
                "-P",
                "plugin:org.jetbrains.kotlin.allopen:annotation=a.Open",
                "-Xfriend-paths=/out",
                "-Xcontext-parameters",
                "-P",
                "annotation=a.Open",
            ],
            compiler_plugin_options=["plugin:org.jetbrains.kotlin.allopen:preset=spring"],
        )


def test_every_build_tools_free_args_pass_the_one_filter(tmp_path: Path) -> None:
    """Gradle reports its free args unfiltered; resolve filters them for every tool, in one place: a plugin option
    among them joins the plugins' options, and a -P that names no plugin option is one warning."""
    (tmp_path / "build.txt").write_text("")
    resolved = _resolve_locked(
        tmp_path, _ScriptedTool(), ":", "main", False, None, EnvironmentCache(tmp_path / "c"), 0.0
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
