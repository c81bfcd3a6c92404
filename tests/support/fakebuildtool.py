"""A build tool of the tests' own, with no build behind it: the interface resolve needs, answering a fixed environment
with Gradle-style free compiler args."""

from __future__ import annotations

import sys
from pathlib import Path

from gradle_repl.environment import BuildToolName, ReplEnvironment, ReplJarsReady
from gradle_repl.project.build_inputs import Inputs
from gradle_repl.project.process import ProgressCallback

__all__ = ["ScriptedTool"]


class ScriptedTool:
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
