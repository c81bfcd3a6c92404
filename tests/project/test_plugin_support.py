"""Which compiler plugins a session's REPL compiler loads when the project's Kotlin has no K2 REPL."""

from __future__ import annotations

from pathlib import Path

from gradle_repl.environment import ReplEnvironment
from gradle_repl.project.plugin_support import load_plugins_at_repl_version
from gradle_repl.project.toolchain import PINNED_KOTLIN_VERSION

GRADLE_CACHE = "/home/u/.gradle/caches/modules-2/files-2.1"


def _env(project_kotlin: str | None, plugins: list[str], options: list[str]) -> ReplEnvironment:
    return ReplEnvironment(
        build_tool="gradle",
        project_root="/p",
        project_path=":",
        source_set="main",
        java_executable="/j/bin/java",
        java_home="/j",
        kotlin_version=PINNED_KOTLIN_VERSION,
        project_kotlin_version=project_kotlin,
        compiler_plugin_classpath=plugins,
        compiler_plugin_options=options,
    )


def test_jetbrains_plugins_come_along_at_the_repl_version_and_a_third_party_one_is_named() -> None:
    """KGP's plugin classpath on Kotlin 1.9: the JetBrains plugin is fetched at the REPL's version with its options,
    the third-party one (and its options) is left out with a warning, the plugins' own dependencies are dropped."""
    env = _env(
        "1.9.25",
        [
            f"{GRADLE_CACHE}/org.jetbrains.kotlin/kotlin-allopen-compiler-plugin-embeddable/1.9.25/ab/kotlin-allopen-compiler-plugin-embeddable-1.9.25.jar",
            f"{GRADLE_CACHE}/io.arrow-kt/arrow-meta/1.6.2/cd/arrow-meta-1.6.2.jar",
            f"{GRADLE_CACHE}/org.jetbrains.kotlin/kotlin-stdlib/1.9.25/ef/kotlin-stdlib-1.9.25.jar",
        ],
        ["plugin:org.jetbrains.kotlin.allopen:annotation=a.Open", "plugin:arrow.meta.plugin.compiler:x=y"],
    )
    load_plugins_at_repl_version(env)
    assert [Path(j).name for j in env.compiler_plugin_classpath] == [
        f"kotlin-allopen-compiler-plugin-embeddable-{PINNED_KOTLIN_VERSION}.jar"
    ]
    assert Path(env.compiler_plugin_classpath[0]).is_file()
    assert env.compiler_plugin_options == ["plugin:org.jetbrains.kotlin.allopen:annotation=a.Open"]
    (no_repl, foreign) = env.warnings
    assert "no K2 REPL" in no_repl and "arrow-meta-1.6.2.jar" in foreign and "compile without it" in foreign


def test_a_project_on_the_repls_own_kotlin_keeps_its_plugins_as_reported() -> None:
    """Nothing to fetch and nothing to say when the REPL runs the project's own Kotlin."""
    plugins = ["/m2/kotlin-allopen-compiler-plugin-embeddable-2.2.21.jar", "/m2/some-third-party-plugin-2.2.21.jar"]
    options = ["plugin:org.jetbrains.kotlin.allopen:annotation=a.Open", "plugin:third.party:k=v"]
    for project in ("2.2.21", None):
        env = _env(project, plugins, options).model_copy(update={"kotlin_version": "2.2.21"})
        load_plugins_at_repl_version(env)
        assert (env.compiler_plugin_classpath, env.compiler_plugin_options, env.warnings) == (plugins, options, [])
