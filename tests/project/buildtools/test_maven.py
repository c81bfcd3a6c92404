"""The Maven resolver produces a complete environment through a real `mvn` run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from gradle_repl.errors import BuildFailed, GradleReplError
from gradle_repl.project.buildtools import kotlin_daemons, maven, maven_extension, maven_speed
from gradle_repl.project.buildtools.maven import MAVEN, find_module, maven_command, maven_errors
from gradle_repl.project.buildtools.pom import KotlinSettings, kotlin_settings
from gradle_repl.project.process import ProcessOutcome, run_streaming
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.project.toolchain import find_mvn
from kotlindaemons import daemons_apart, daemons_in, stop_daemons
from support.paths import PROJECTS, SAMPLE_PROJECT, build_classpath, copy_project
from support.workers import SyncWorker

MULTI = PROJECTS / "maven-multi"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gradle_repl", *args], capture_output=True, text=True, timeout=600)


def test_resolve_json_prints_a_complete_environment() -> None:
    done = cli("resolve", str(SAMPLE_PROJECT), "--build-tool", "maven", "--json")
    assert done.returncode == 0, done.stderr
    env = json.loads(done.stdout)
    assert env["build_tool"] == "maven" and env["kotlin_version"] == "2.3.21"
    assert build_classpath(env["classpath"])[0].endswith("sample-project/target/classes")
    assert any("kotlinx-serialization-json-jvm-1.9.0.jar" in p for p in env["classpath"])
    assert any(
        "kotlin-serialization-compiler-plugin-embeddable-2.3.21.jar" in p for p in env["compiler_plugin_classpath"]
    )
    assert any("kotlin-compiler-embeddable-2.3.21.jar" in p for p in env["repl_host_classpath"])
    assert Path(env["java_executable"]).is_file()
    assert env["jvm_target"] == "17"
    assert env["repositories"] == ["https://repo.maven.apache.org/maven2"]  # Maven Central, from the super POM
    assert env["compiler_args"] == ["-opt-in=kotlin.ExperimentalStdlibApi"]


def test_summary_names_build_tool_kotlin_jdk_and_plugins() -> None:
    done = cli("resolve", str(SAMPLE_PROJECT), "--build-tool", "maven")
    assert done.returncode == 0, done.stderr
    for expected in (
        "Build tool:        maven",
        "Kotlin version:    2.3.21",
        "JDK:",
        "kotlin-serialization-compiler-plugin",
    ):
        assert expected in done.stdout


def test_module_is_found_by_directory_or_artifact_id() -> None:
    assert find_module(MULTI, ":app") == MULTI / "app"
    assert find_module(MULTI, "multi-core") == MULTI / "core"
    assert find_module(MULTI, ":") == MULTI
    with pytest.raises(GradleReplError, match="modules: app, core"):
        find_module(MULTI, ":nope")


@pytest.mark.jvm
def test_snippet_in_dependent_module_uses_classes_of_both(tmp_path: Path) -> None:
    project = copy_project(MULTI, tmp_path / "multi")
    env = resolve_environment(project, project_path=":app", source_set="test", build_tool="maven").environment
    assert str(project / "core/target/classes") in env.classpath
    worker = SyncWorker(env)
    try:
        assert worker.value("multi.app.Cart(listOf(multi.core.Money(199), multi.core.Money(1))).total()") == "2.00"
        assert worker.value("multi.app.CartFixtures.twoItems.total()") == "4.25"
        # The module's directory, as its own tests run in: relative paths mean what they mean there.
        assert Path(worker.value('System.getProperty("user.dir")')) == project / "app"
        assert (
            worker.value('java.io.File("pom.xml").readText().contains("<artifactId>multi-app</artifactId>")') == "true"
        )
    finally:
        worker.close()


def test_a_pom_that_does_not_compile_reports_the_compiler_messages(tmp_path: Path) -> None:
    project = copy_project(SAMPLE_PROJECT, tmp_path / "broken")
    (project / "src/main/kotlin/sample/Broken.kt").write_text('package sample\nval broken: Int = "text"\n')
    with pytest.raises(BuildFailed) as error:
        resolve_environment(project, build_tool="maven")
    message = str(error.value)
    assert message.startswith("Maven build failed:")
    assert "Broken.kt" in message and "mismatch" in message.lower()
    assert "Re-run Maven" not in message and "Traceback" not in message


def test_a_directory_without_a_build_is_one_clear_line(tmp_path: Path) -> None:
    done = cli("resolve", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0
    assert "no Gradle build" in done.stderr and "no Maven build (pom.xml)" in done.stderr


def test_unknown_source_set_is_rejected_clearly() -> None:
    with pytest.raises(GradleReplError, match="'main' and 'test'"):
        resolve_environment(SAMPLE_PROJECT, source_set="integration", build_tool="maven")


def add_to_pom(project: Path, anchor: str, text: str) -> None:
    pom = project / "pom.xml"
    source = pom.read_text()
    assert anchor in source, anchor
    pom.write_text(source.replace(anchor, anchor + text, 1))


def test_a_module_naming_its_own_directory_is_no_recursion(tmp_path: Path) -> None:
    project = copy_project(MULTI, tmp_path / "multi")
    add_to_pom(project, "<modules>", "<module>.</module><module>./</module>")
    assert find_module(project, ":core") == project / "core"
    with pytest.raises(GradleReplError, match="modules: app, core"):
        find_module(project, ":nope")


def test_a_module_outside_the_root_is_found_built_and_watched(tmp_path: Path) -> None:
    """An aggregator may name `../c`: it is a module like any other, and its files are inputs."""
    shutil.copytree(MULTI, tmp_path / "multi")
    aggregator = tmp_path / "aggregator"
    aggregator.mkdir()
    (aggregator / "pom.xml").write_text(
        "<project><modelVersion>4.0.0</modelVersion><groupId>multi</groupId><artifactId>aggregator</artifactId>"
        "<version>1.0</version><packaging>pom</packaging>"
        "<modules><module>../multi/core</module><module>../multi/app</module></modules></project>\n"
    )
    assert find_module(aggregator, "../multi/core") == tmp_path / "multi/core"
    assert find_module(aggregator, "multi-app") == tmp_path / "multi/app"
    assert {tmp_path / "multi/core", tmp_path / "multi/app"} <= set(MAVEN.inputs(aggregator).trees)
    env = resolve_environment(aggregator, project_path="multi-app", build_tool="maven").environment
    assert build_classpath(env.classpath)[0] == str(tmp_path / "multi/app/target/classes")
    assert str(tmp_path / "multi/core/target/classes") in env.classpath


def test_the_test_source_set_adds_test_classes_and_test_scope_dependencies(tmp_path: Path) -> None:
    """`main` sees neither; a copy, because the test build recompiles the main classes that other tests'
    JVMs (perhaps in another xdist worker) are loading from sample-project itself. Its POM has no namespace, which
    Maven accepts; so does the resolver (effective POM, modules, plugin settings)."""
    project = copy_project(SAMPLE_PROJECT, tmp_path / "scoped")
    pom = project / "pom.xml"
    text = pom.read_text()
    start, end = text.index("<project"), text.index(">", text.index("<project"))
    pom.write_text(text[:start] + "<project" + text[end:])
    add_to_pom(
        project,
        "<dependencies>",
        "<dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version>"
        "<scope>test</scope></dependency>",
    )
    main = resolve_environment(project, build_tool="maven").environment
    assert main.jvm_target == "17" and main.compiler_plugin_classpath
    test = resolve_environment(project, source_set="test", build_tool="maven").environment
    # Surefire's order: test classes and resources first, so src/test/resources wins over main's of the same name.
    assert build_classpath(test.classpath)[:2] == [
        str(project / "target/test-classes"),
        str(project / "target/classes"),
    ]
    assert (project / "target/test-classes/sample/Fixtures.class").is_file()
    assert not any("junit-4.13.2.jar" in p for p in main.classpath)
    assert any("junit-4.13.2.jar" in p for p in test.classpath)
    assert any("kotlinx-serialization-json-jvm" in p for p in main.classpath)


def dependency(group: str, artifact: str, version: str, scope: str = "compile") -> str:
    return (
        f"<dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version>"
        f"<scope>{scope}</scope></dependency>"
    )


def test_a_reactor_module_with_an_unresolvable_artifact_names_it_first(tmp_path: Path) -> None:
    """The error leads with Maven's first real [ERROR] line, the one naming the artifact it could not resolve,
    and leaves out the footer that says how to resume the build (`-rf :multi-app`)."""
    project = copy_project(MULTI, tmp_path / "multi")
    add_to_pom(project / "app", "<dependencies>", dependency("org.example.missing", "no-such-library", "1.0"))
    with pytest.raises(BuildFailed) as error:
        resolve_environment(project, project_path=":app", build_tool="maven")
    lines = str(error.value).splitlines()
    assert lines[0] == "Maven build failed:"
    assert "org.example.missing:no-such-library:jar:1.0" in lines[1], lines
    assert not any("-rf :" in line or "After correcting the problems" in line for line in lines), lines


def test_maven_error_text_is_its_error_lines_in_order_without_the_footer() -> None:
    """Compiler errors come first, as Maven printed them; '-> [Help 1]' is cut from the line it ends, not the line."""
    lines = [
        "[INFO] --- kotlin-maven-plugin:2.3.21:compile (compile) @ multi-app ---",
        "[ERROR] file:///p/app/src/main/kotlin/A.kt:1:19 Initializer type mismatch",
        "[INFO] BUILD FAILURE",
        (
            "[ERROR] Failed to execute goal org.jetbrains.kotlin:kotlin-maven-plugin:2.3.21:compile (compile) on project "
            "multi-app: Compilation failure -> [Help 1]"
        ),
        "[ERROR] ",
        "[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.",
        "[ERROR] Re-run Maven using the -X switch to enable full debug logging.",
        "[ERROR] For more information about the errors and possible solutions, please read the following articles:",
        "[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoFailureException",
        "[ERROR] After correcting the problems, you can resume the build with the command",
        "[ERROR]   mvn <args> -rf :multi-app",
    ]
    assert maven_errors(lines).splitlines() == [
        "file:///p/app/src/main/kotlin/A.kt:1:19 Initializer type mismatch",
        (
            "Failed to execute goal org.jetbrains.kotlin:kotlin-maven-plugin:2.3.21:compile (compile) on project "
            "multi-app: Compilation failure"
        ),
    ]


def test_main_needs_no_test_scope_artifact_and_keeps_the_classpath_it_had(tmp_path: Path) -> None:
    """A test-scope artifact no repository has (an offline laptop, a mirror without it) doesn't stop `main`, in a
    reactor built with -pl/-am: its classpath is exactly what build-classpath reported before, when every scope had
    to resolve (same jars, same order, the sibling module's classes; a test-scope commons-lang3 that wins the
    version conflict with commons-text's keeps it off, as Maven decides). `test` still needs it and says which."""
    project = copy_project(MULTI, tmp_path / "multi")
    app = project / "app"
    add_to_pom(
        app,
        "<dependencies>",
        dependency("org.apache.commons", "commons-text", "1.13.0")
        + dependency("org.slf4j", "slf4j-nop", "1.7.36", "runtime")
        + dependency("org.apache.commons", "commons-lang3", "3.19.0", "test"),
    )
    before = subprocess.run(
        maven_command([find_mvn()], project, app, test=False), cwd=project, capture_output=True, text=True
    )
    assert before.returncode == 0, before.stdout[-3000:]
    every_scope_resolved = (app / "target/gradle-repl/classpath.txt").read_text().split(os.pathsep)

    add_to_pom(app, "<dependencies>", dependency("org.example", "missing-test-only", "1.0", "test"))
    main = resolve_environment(project, project_path=":app", build_tool="maven").environment
    assert build_classpath(main.classpath) == [str(app / "target/classes"), *every_scope_resolved]
    assert str(project / "core/target/classes") in main.classpath
    assert any(p.endswith("slf4j-nop-1.7.36.jar") for p in main.classpath)
    with pytest.raises(BuildFailed) as error:
        resolve_environment(project, project_path=":app", source_set="test", build_tool="maven")
    assert "org.example:missing-test-only:jar:1.0" in str(error.value)


def test_only_main_loads_the_extension_and_without_javac_a_warning_says_what_that_costs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`test` needs the test scope anyway; where the extension can't be built, main runs as it did before it."""
    jar = Path("/cache/gradle-repl-maven.jar")
    main = maven_command(["mvn"], SAMPLE_PROJECT, SAMPLE_PROJECT, test=False, extension=jar)
    assert main[-2:] == [f"-Dmaven.ext.class.path={jar}", "-Dgradle-repl.classpathScope=runtime"]
    assert not any(
        "gradle-repl.classpathScope" in a
        for a in maven_command(["mvn"], SAMPLE_PROJECT, SAMPLE_PROJECT, test=True, extension=jar)
    )

    def no_javac() -> Path:
        raise maven_extension.ExtensionUnavailable("no javac (a JDK, not only a JRE, is needed to build it)")

    monkeypatch.setattr(maven, "extension_jar", no_javac)
    extension, warning = maven._runtime_scope_extension()
    assert extension is None and warning is not None
    assert "test-scope dependency" in warning and "no javac" in warning


def test_without_a_warm_kotlin_daemon_a_build_compiles_in_process() -> None:
    """kotlin-maven-plugin 2.2.20+ would start a Kotlin daemon that outlives the build: where the edit loop keeps none,
    a resolve's build says so (that a real one then leaves none behind, and builds whole, is the first resolve of
    test_a_resolve_compiles_in_the_kotlin_daemon_the_edit_loop_keeps_warm)."""
    command = maven_command(["mvn"], SAMPLE_PROJECT, SAMPLE_PROJECT, test=False)
    assert "-Dkotlin.compiler.daemon=false" in command and "-DincludeScope=runtime" in command


def test_a_resolve_compiles_in_the_kotlin_daemon_the_edit_loop_keeps_warm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an edit's compile has started gradle-repl's Kotlin daemon, a full resolve (another checkout of the
    project here; a build file's change or a new session alike) compiles in it: no second daemon, the daemon did the
    compile, and a Kotlin + Java module still builds whole (its Java classes too)."""
    run_files = tmp_path / "daemons"
    daemons_apart(monkeypatch, run_files)
    commands: list[list[str]] = []

    def recorded(command: list[str], **options: Any) -> ProcessOutcome:
        commands.append(command)
        return run_streaming(command, **options)

    monkeypatch.setattr("gradle_repl.project.buildtools.maven.run_streaming", recorded)
    first = copy_project(PROJECTS / "maven-mixed", tmp_path / "first")
    try:
        # Without a warm daemon, in process, and none left behind; the module (Kotlin calling its Java and back,
        # incremental compilation on in the POM, kotlin-maven-plugin 2.2.20) builds whole, as `mvn compile` does (that
        # version's incremental compile in process missed the Java sources: "Unresolved reference 'Handler'").
        env = resolve_environment(first, build_tool="maven").environment
        assert daemons_in(run_files) == []
        assert {"Handler.class", "Routes.class"} <= {p.name for p in (first / "target/classes/mixed").glob("*.class")}
        assert str(first / "target/classes") in env.classpath and env.kotlin_version == "2.2.20"
        assert MAVEN.recompile(first, project_path=":", source_set="main")
        [daemon] = daemons_in(run_files)
        assert kotlin_daemons.warm_daemon_running(run_files)
        second = copy_project(PROJECTS / "maven-mixed", tmp_path / "second")
        resolve_environment(second, build_tool="maven")
        first_resolve, edit, second_resolve = commands
        assert "-Dkotlin.compiler.daemon=false" in first_resolve and "-Dkotlin.compiler.daemon=true" in edit
        assert "-Dkotlin.compiler.daemon=true" in second_resolve and "help:effective-pom" in second_resolve
        assert [p.pid for p in daemons_in(run_files)] == [daemon.pid]  # the edit's daemon, no second one
        classes = {p.name for p in (second / "target/classes").rglob("*.class")}
        assert {"Handler.class", "Routes.class"} <= classes, classes
    finally:
        stop_daemons(run_files)


def test_a_warm_daemon_the_build_cant_reach_makes_it_build_again_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A daemon of gradle-repl's seems to run where the build looks (its command line, as doctor reads it), but the
    daemon the build's client starts can't run (a JVM option it refuses): the build fails on the daemon, and the
    resolve builds again in process, with no message of it in the result."""
    run_files = tmp_path / "daemons"
    daemons_apart(monkeypatch, run_files)
    refused = "-Dkotlin.daemon.jvm.options=-XX:+NoSuchOptionForThisTest -Dkotlin.daemon.startup.timeout=2000"
    monkeypatch.setenv("MAVEN_OPTS", f"{os.environ['MAVEN_OPTS']} {refused}")
    ours = [
        f"--daemon-shutdownDelayMilliseconds={maven_speed.KOTLIN_DAEMON_IDLE_SECONDS * 1000}",
        f"-{maven_speed.KOTLIN_DAEMON_HEAP}",
        "--daemon-runFilesPath",
        str(run_files),
    ]
    look_alike = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)", kotlin_daemons.DAEMON_MAIN_CLASS, *ours]
    )
    try:
        deadline = time.monotonic() + 30
        while not kotlin_daemons.warm_daemon_running(run_files):  # until its command line can be read
            assert look_alike.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        lines: list[str] = []
        env = resolve_environment(
            copy_project(SAMPLE_PROJECT, tmp_path / "sample"), build_tool="maven", on_progress=lines.append
        ).environment
    finally:
        look_alike.kill()
        look_alike.wait()
    assert maven.is_daemon_failure(lines)  # the first build went to the daemon and failed on it
    assert lines.count("[INFO] BUILD FAILURE") == 1 and lines.count("[INFO] BUILD SUCCESS") == 1
    assert "the Kotlin daemon could not compile the module: building again in process" in lines
    assert Path(build_classpath(env.classpath)[0], "sample").is_dir()
    assert not any("daemon" in warning for warning in env.warnings)


def test_the_daemon_directory_is_the_one_the_builds_daemon_client_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """kotlin.daemon.options' runFilesPath from MAVEN_OPTS (after .mvn/jvm.config, so it wins, and the last -D of the
    property wins whole), else Kotlin's default for the OS."""
    opts = "-Xmx1g -Dkotlin.daemon.options=autoshutdownIdleSeconds=60,runFilesPath=/runs/a"
    assert kotlin_daemons.maven_daemon_run_files({"MAVEN_OPTS": opts}, "") == Path("/runs/a")
    config = "-Dkotlin.daemon.options=runFilesPath=/runs/config"
    assert kotlin_daemons.maven_daemon_run_files({}, config) == Path("/runs/config")
    assert kotlin_daemons.maven_daemon_run_files({"MAVEN_OPTS": opts}, config) == Path("/runs/a")
    other = "-Dkotlin.daemon.options=autoshutdownIdleSeconds=60"  # names no directory: the default's, not config's
    data = Path(__file__).parent  # any directory that exists
    assert (
        kotlin_daemons.maven_daemon_run_files({"MAVEN_OPTS": other, "XDG_DATA_HOME": str(data)}, config)
        == data / "kotlin" / "daemon"
    )
    commented = "# -Dkotlin.daemon.options=runFilesPath=/runs/commented\n-Xmx2g"
    assert kotlin_daemons.maven_daemon_run_files({"XDG_DATA_HOME": str(data)}, commented) == data / "kotlin" / "daemon"
    monkeypatch.setattr(sys, "platform", "darwin")
    support = Path.home() / "Library" / "Application Support"
    expected = support / "kotlin" / "daemon" if support.is_dir() else Path.home() / ".kotlin" / "daemon"
    assert kotlin_daemons.maven_daemon_run_files({}, "") == expected


def test_maven_error_text_is_at_most_twenty_lines_and_never_a_stack() -> None:
    """A build that printed a stack trace and hundreds of errors: the message holds the first 20 error lines, no
    `at …` frame, and says how many more there were."""
    lines = ["[INFO] --- kotlin-maven-plugin:2.3.21:compile (compile) @ app ---"]
    lines += [f"[ERROR] file:///p/A{n}.kt:1:1 Unresolved reference 'x{n}'." for n in range(200)]
    lines += ["[ERROR] java.lang.IllegalStateException: boom", "[ERROR] \tat org.example.Thing.run(Thing.java:12)"]
    text = maven_errors(lines).splitlines()
    assert text[0] == "file:///p/A0.kt:1:1 Unresolved reference 'x0'." and len(text) == 21
    assert text[-1].startswith("…") and "more" in text[-1], text[-1]
    assert not any(line.lstrip().startswith("at ") for line in text)
    traced = ["[ERROR] Failed to execute goal x: boom", "[ERROR] java.lang.IllegalStateException: boom"]
    traced += [f"[ERROR] \tat org.example.Frame{n}.run(Frame{n}.java:{n})" for n in range(30)] + [
        "[ERROR] \t... 12 more"
    ]
    shown = maven_errors(traced).splitlines()
    assert shown[:2] == ["Failed to execute goal x: boom", "java.lang.IllegalStateException: boom"], shown
    assert not any(line.strip().startswith(("at ", "... ")) for line in shown), shown


@pytest.mark.jvm
def test_kotlin_settings_come_from_properties_and_outputs_from_the_build(tmp_path: Path) -> None:
    """kotlin.compiler.jvmTarget (a property, as the plugin reads it) reaches the REPL: an inline fun built
    for 17 is callable; a custom outputDirectory is on the classpath instead of target/classes."""
    project = copy_project(SAMPLE_PROJECT, tmp_path / "props")
    pom = project / "pom.xml"
    pom.write_text(pom.read_text().replace("<jvmTarget>17</jvmTarget>", ""))
    add_to_pom(
        project,
        "<properties>",
        "<kotlin.compiler.jvmTarget>17</kotlin.compiler.jvmTarget>"
        "<kotlin.compiler.languageVersion>2.2</kotlin.compiler.languageVersion>",
    )
    add_to_pom(project, "<build>", "<outputDirectory>${project.basedir}/out-classes</outputDirectory>")
    (project / "src/main/kotlin/sample/Inline.kt").write_text(
        "package sample\ninline fun twice(block: () -> Int): Int = block() + block()\n"
    )
    env = resolve_environment(project, build_tool="maven").environment
    assert env.jvm_target == "17"
    assert env.compiler_args[:2] == ["-language-version", "2.2"]
    assert build_classpath(env.classpath)[0] == str(project / "out-classes")
    worker = SyncWorker(env)
    try:
        assert worker.value("sample.twice { 21 }") == "42"
    finally:
        worker.close()


def test_execution_configuration_overrides_the_plugins_own() -> None:
    project = ET.fromstring(
        "<project><properties><kotlin.compiler.jvmTarget>11</kotlin.compiler.jvmTarget>"
        "<kotlin.compiler.apiVersion>2.1</kotlin.compiler.apiVersion></properties><build><plugins><plugin>"
        "<artifactId>kotlin-maven-plugin</artifactId><version>2.3.21</version>"
        "<configuration><jvmTarget>17</jvmTarget><javaParameters>true</javaParameters><args><arg>-Xa</arg></args></configuration>"
        "<executions><execution><id>test-compile</id><goals><goal>test-compile</goal></goals>"
        "<configuration><jvmTarget>21</jvmTarget><args><arg>-Xb</arg></args></configuration></execution></executions>"
        "</plugin></plugins></build></project>"
    )
    main = kotlin_settings(project, test=False)
    assert main.jvm_target == "17" and main.args == ["-api-version", "2.1", "-java-parameters", "-Xa"]
    test = kotlin_settings(project, test=True)
    assert test.jvm_target == "21" and test.args == ["-api-version", "2.1", "-java-parameters", "-Xb"]
    configuration = project.find("build/plugins/plugin/configuration")
    assert configuration is not None
    del configuration[0]
    assert kotlin_settings(project, test=False).jvm_target == "11"


def test_compiler_plugins_applied_as_dependencies_of_the_kotlin_maven_plugin_are_reported() -> None:
    """The kotlin-maven-plugin hands its own dependencies to the compiler as plugins: Compose's (which has no
    <compilerPlugins> name) is reported as its embeddable jar, whichever of the two the build names; the
    kotlin-maven-* carriers of named plugins add nothing; a third-party plugin is named in one line."""

    def dependency(group: str, artifact: str) -> str:
        return f"<dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>2.1.20</version></dependency>"

    def settings(*dependencies: str) -> KotlinSettings:
        return kotlin_settings(
            ET.fromstring(
                "<project><build><plugins><plugin><artifactId>kotlin-maven-plugin</artifactId><version>2.1.20</version>"
                "<configuration><compilerPlugins><plugin>kotlinx-serialization</plugin></compilerPlugins></configuration>"
                f"<dependencies>{''.join(dependencies)}</dependencies></plugin></plugins></build></project>"
            ),
            test=False,
        )

    for artifact in ("kotlin-compose-compiler-plugin", "kotlin-compose-compiler-plugin-embeddable"):
        found = settings(
            dependency("org.jetbrains.kotlin", artifact),
            dependency("org.jetbrains.kotlin", "kotlin-maven-serialization"),
        )
        assert found.plugins == ["kotlinx-serialization"] and found.warnings == []
        assert found.plugin_artifacts == ["kotlin-compose-compiler-plugin-embeddable"]
    foreign = settings(dependency("dev.example", "redacted-compiler-plugin"))
    assert foreign.plugin_artifacts == [] and foreign.warnings == [
        (
            "compiler plugin dev.example:redacted-compiler-plugin (a dependency of the kotlin-maven-plugin) is not known to "
            "gradle-repl; snippets compile without it"
        )
    ]


def test_an_aggregator_root_says_where_the_classes_are_and_is_served_from_the_cache(tmp_path: Path) -> None:
    """A reactor's root POM (packaging pom) has no classes: the reply names its modules and how to pick one, and
    the output directory Maven never made doesn't read as a vanished one that rebuilds the project on every call."""
    project = copy_project(MULTI, tmp_path / "multi")
    first = resolve_environment(project, build_tool="maven")
    assert not first.from_cache and not (project / "target/classes").exists()
    (warning,) = [w for w in first.environment.warnings if "only aggregates modules" in w]
    assert "(core, app)" in warning and "--project" in warning
    assert all(Path(entry).exists() for entry in first.environment.classpath)
    assert resolve_environment(project, build_tool="maven").from_cache


@pytest.mark.parametrize("executable", [True, False], ids=["mvnw", "mvnw-without-exec-bit"])
def test_the_builds_own_maven_wrapper_runs_it(tmp_path: Path, executable: bool) -> None:
    """A build that ships mvnw pins the Maven it needs: the wrapper runs the build, not the `mvn` on PATH (a
    wrapper without its executable bit runs through sh)."""
    project = copy_project(PROJECTS / "maven-mixed", tmp_path / "wrapped")
    called = tmp_path / "wrapper-ran"
    wrapper = project / "mvnw"
    wrapper.write_text(f'#!/bin/sh\necho "$@" > "{called}"\nexec "{find_mvn()}" "$@"\n')
    wrapper.chmod(0o755 if executable else 0o644)
    env = resolve_environment(project, build_tool="maven").environment
    assert called.is_file() and "help:effective-pom" in called.read_text()
    assert (project / "target/classes/mixed/Routes.class").is_file() and env.kotlin_version == "2.2.20"


def test_one_module_spelled_three_ways_is_built_once(tmp_path: Path) -> None:
    """`:app`, `app` and the module's artifactId name one module: one build, then the cache (each spelling
    rebuilt it before, a minute each on a real reactor)."""
    project = copy_project(MULTI, tmp_path / "multi")
    assert not resolve_environment(project, project_path=":app", build_tool="maven").from_cache
    assert resolve_environment(project, project_path="app", build_tool="maven").from_cache
    assert resolve_environment(project, project_path="multi-app", build_tool="maven").from_cache
    assert not resolve_environment(project, project_path=":core", build_tool="maven").from_cache
