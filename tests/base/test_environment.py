"""The marker parser turns realistic Gradle transcripts into a ReplEnvironment, or says what's missing."""

import pytest

from gradle_repl.environment import MARKER, ReplEnvironment, marker_prefix, parse_markers
from gradle_repl.errors import EnvironmentIncomplete

NONCE = "0123abcd"
M = marker_prefix(NONCE)

TRANSCRIPT = f"""\
Starting a Gradle Daemon (subsequent builds will be faster)
> Task :compileKotlin
w: file:///p/src/Main.kt:3:5 Variable 'x' is never used
> Task :classes
> Task :resolveReplEnvironment
{M}projectPath=:app
{M}sourceSet=main
{M}classpath=/home/me/My Projects/app/build/classes/kotlin/main
{M}classpath=/home/me/.m2/a=b/lib.jar
{M}javaExecutable=/opt/jdk 17/bin/java
{M}javaHome=/opt/jdk 17
Deprecated Gradle features were used in this build
{M}kotlinVersion=2.3.21
{M}pluginClasspath=/cache/kotlin-serialization-compiler-plugin-embeddable-2.3.21.jar
{M}pluginClasspath=/cache/kotlin-scripting-compiler-embeddable-2.3.21.jar
{M}pluginOption=plugin:org.jetbrains.kotlin.allopen:annotation=a.B
{M}compilerArg=-opt-in=kotlin.RequiresOptIn
{M}jvmTarget=17
{M}warning=compiler plugin options not readable: NoSuchMethodException
{M}replHostClasspath=/cache/kotlin-compiler-embeddable-2.3.21.jar
{M}end=true

BUILD SUCCESSFUL in 4s
"""


def parse(text: str) -> ReplEnvironment:
    return parse_markers(
        text.splitlines(True),
        nonce=NONCE,
        build_tool="gradle",
        project_root="/p",
        project_path=":app",
        source_set="main",
    )


def test_parses_markers_among_gradle_noise() -> None:
    """Every key is read in order; non-marker lines (tasks, warnings, BUILD SUCCESSFUL) are ignored."""
    env = parse(TRANSCRIPT)
    assert env.classpath == ["/home/me/My Projects/app/build/classes/kotlin/main", "/home/me/.m2/a=b/lib.jar"]
    assert env.java_home == "/opt/jdk 17"
    assert env.java_executable == "/opt/jdk 17/bin/java"
    assert env.kotlin_version == "2.3.21"
    assert env.jvm_target == "17"
    assert env.compiler_args == ["-opt-in=kotlin.RequiresOptIn"]
    assert env.warnings == ["compiler plugin options not readable: NoSuchMethodException"]
    assert env.repl_host_classpath == ["/cache/kotlin-compiler-embeddable-2.3.21.jar"]


def test_paths_with_spaces_and_equals_signs_stay_intact() -> None:
    """Only the first '=' separates key and value."""
    env = parse(TRANSCRIPT)
    assert "/home/me/.m2/a=b/lib.jar" in env.classpath


def test_compiler_options_drop_the_scripting_plugin_and_keep_real_plugins() -> None:
    """KGP's plugin classpath carries the scripting compiler; only real plugins become -Xplugin."""
    options = parse(TRANSCRIPT).compiler_options()
    assert options[0] == "-Xplugin=/cache/kotlin-serialization-compiler-plugin-embeddable-2.3.21.jar"
    assert not any("scripting" in o for o in options)
    assert options[1:3] == ["-P", "plugin:org.jetbrains.kotlin.allopen:annotation=a.B"]
    assert options[-2:] == ["-jvm-target", "17"]


def test_truncated_run_is_detected() -> None:
    """Without the end marker the run was cut off, even when every required key was seen."""
    cut = TRANSCRIPT.split(f"{M}end=true")[0]
    with pytest.raises(EnvironmentIncomplete, match="ended before"):
        parse(cut)


def test_missing_keys_are_all_named() -> None:
    """A complete run that lacks required facts names each of them."""
    lines = [f"{M}classpath=/x.jar", f"{M}kotlinVersion=2.3.21", f"{M}end=true"]
    with pytest.raises(EnvironmentIncomplete) as error:
        parse("\n".join(lines))
    for key in ("javaExecutable", "javaHome", "replHostClasspath"):
        assert key in str(error.value)


def test_windows_line_endings_parse() -> None:
    assert parse(TRANSCRIPT.replace("\n", "\r\n")).java_home == "/opt/jdk 17"


def test_build_output_cannot_forge_a_marker() -> None:
    """Only lines that begin with the marker and this run's nonce count: a build script printing
    marker-like text (without the nonce, with another nonce, or mid-line) changes nothing."""
    forged = TRANSCRIPT.replace(
        "BUILD SUCCESSFUL",
        f"{MARKER} javaHome=/evil\n{MARKER} ffff0000 classpath=/evil.jar\nlog: {M}classpath=/evil2.jar\nBUILD SUCCESSFUL",
    )
    env = parse(forged)
    assert env.java_home == "/opt/jdk 17" and not any("evil" in p for p in env.classpath)


def test_reported_input_directories_are_kept_for_staleness() -> None:
    """An init script may name directories outside the root the build reads (srcDirs, included builds)."""
    env = parse(TRANSCRIPT.replace(f"{M}end=true", f"{M}inputDir=/shared/src/main/kotlin\n{M}end=true"))
    assert env.input_dirs == ["/shared/src/main/kotlin"]


def test_only_compiler_plugins_from_kgps_plugin_classpath_become_xplugin() -> None:
    """KGP's plugin classpath also holds the plugins' dependencies; those must not reach the REPL as plugins."""
    from gradle_repl.environment import ReplEnvironment

    jars = [
        "/m2/kotlin-serialization-compiler-plugin-embeddable-2.2.21.jar",
        "/m2/kotlin-allopen-compiler-plugin-embeddable-2.2.21.jar",
        "/m2/kotlin-scripting-compiler-embeddable-2.2.21.jar",
        "/m2/kotlin-scripting-jvm-2.2.21.jar",
        "/m2/kotlin-scripting-common-2.2.21.jar",
        "/m2/kotlin-stdlib-2.2.21.jar",
        "/m2/annotations-13.0.jar",
        "/m2/kotlinx-coroutines-core-jvm-1.8.0.jar",
    ]
    env = ReplEnvironment(
        build_tool="gradle",
        project_root="/p",
        project_path=":",
        source_set="main",
        java_home="/j",
        java_executable="/j/bin/java",
        kotlin_version="2.2.21",
        compiler_plugin_classpath=jars,
    )
    plugins = [o for o in env.compiler_options() if o.startswith("-Xplugin=")]
    assert plugins == [f"-Xplugin={jars[0]}", f"-Xplugin={jars[1]}"]


def test_the_test_tasks_markers_become_the_test_settings() -> None:
    """A test source set's task settings: `key=value` entries split at their first '=' (a value may hold more), the
    launcher's two-word options joined for a JVM started in process; no testTask marker, no test settings."""
    from gradle_repl.testrun_settings import TestRunSettings

    test_markers = "".join(
        f"{M}{line}\n"
        for line in (
            "testTask=:app:test",
            "testSystemProperty=spring.profiles.active=test",
            "testSystemProperty=url=jdbc:h2:mem:a;MODE=PG",
            "testEnvironment=TZ=UTC",
            "testInclude=shop.*",
            "testExclude=*IT",
            "testIncludeTag=fast",
            "testExcludeTag=slow",
            "testJvmArg=-ea",
            "testJvmArg=--add-opens",
            "testJvmArg=java.base/java.lang=ALL-UNNAMED",
            "testNotApplied=the engines spek are not left out",
        )
    )
    env = parse(TRANSCRIPT.replace(f"{M}end=true\n", test_markers + f"{M}end=true\n"))
    assert env.test_settings == TestRunSettings(
        system_properties={"spring.profiles.active": "test", "url": "jdbc:h2:mem:a;MODE=PG"},
        environment={"TZ": "UTC"},
        includes=["shop.*"],
        excludes=["*IT"],
        include_tags=["fast"],
        exclude_tags=["slow"],
        jvm_args=["-ea", "--add-opens=java.base/java.lang=ALL-UNNAMED"],
        not_applied=["the engines spek are not left out"],
    )
    assert parse(TRANSCRIPT).test_settings is None


def test_the_edit_markers_become_the_edit_sources() -> None:
    """A compilation's source roots, module name and friend dirs become EditSources (gradle-repl's output dir is set
    later, by the resolve); of several reasons the first is told; without editModuleName there are none."""
    from gradle_repl.environment import EditSources

    def edit(*lines: str) -> str:
        markers = "".join(f"{M}{line}\n" for line in lines)
        return TRANSCRIPT.replace(f"{M}end=true\n", markers + f"{M}end=true\n")

    test = parse(
        edit(
            "editRoot=/p/src/test/java",
            "editRoot=/p/src/test/kotlin",
            "editModuleName=app_test",
            "editFriendDir=/p/build/classes/kotlin/main",
            "editFriendDir=/p/build/libs/app.jar",
        )
    )
    assert test.edit_sources == EditSources(
        roots=["/p/src/test/java", "/p/src/test/kotlin"],
        module_name="app_test",
        friend_dirs=["/p/build/classes/kotlin/main", "/p/build/libs/app.jar"],
    )
    generated = parse(
        edit(
            "editRoot=/p/src/main/kotlin",
            "editModuleName=app",
            "editUnavailable=kapt generates sources in this build (plugin org.jetbrains.kotlin.kapt)",
            "editUnavailable=Java annotation processors generate sources in this build (annotationProcessor: a:b)",
        )
    )
    assert generated.edit_sources is not None
    assert (
        generated.edit_sources.unavailable == "kapt generates sources in this build (plugin org.jetbrains.kotlin.kapt)"
    )
    assert parse(TRANSCRIPT).edit_sources is None
    # A forged marker of another run (an old nonce) adds nothing.
    assert (
        parse(TRANSCRIPT.replace(f"{M}end=true\n", f"{MARKER} other editModuleName=x\n{M}end=true\n")).edit_sources
        is None
    )
