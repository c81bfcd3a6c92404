"""The shipped init script against real Gradle project models (ProjectBuilder, real KGP, Gradle's real
dependency resolution from Maven Central), one JVM per Gradle × KGP pair, parsed by the product's own
parser; then a real session on a resolved environment. See tests/support/gradlemodels.py for how."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gradle_repl.environment import ReplEnvironment
from gradle_repl.project.plugin_support import load_plugins_at_repl_version
from gradle_repl.project.toolchain import PINNED_KOTLIN_VERSION, has_usable_repl
from gradle_repl.resources import init_script_path
from gradle_repl.testrun_settings import TestRunSettings
from support.gradlemodels import PAIRS, Pair, PairRun, run_pair
from support.shortjvm import SHORT_LIVED_JVM_FLAGS
from support.workers import SyncWorker

pytestmark = [pytest.mark.jvm, pytest.mark.gradle_models]


_RUNS: dict[str, PairRun] = {}


def _run(pair: Pair, tmp_path_factory: pytest.TempPathFactory) -> PairRun:
    """One harness JVM per pair for the whole module (a run builds every model the tests read)."""
    if pair.id not in _RUNS:
        run = run_pair(pair, tmp_path_factory.mktemp(pair.id))
        assert run.returncode == 0, run.output[-5000:]
        _RUNS[pair.id] = run
    return _RUNS[pair.id]


@pytest.fixture(scope="module", params=PAIRS, ids=[p.id for p in PAIRS])
def pair_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Pair, PairRun]:
    return request.param, _run(request.param, tmp_path_factory)


def _names(paths: list[str]) -> list[str]:
    return [Path(p).name for p in paths]


def check_single_module(pair: Pair, env: ReplEnvironment, source_set: str) -> None:
    """The facts a single-module Kotlin JVM build with serialization, all-open, a toolchain and free args must report."""
    assert env.source_set == source_set and env.project_path == ":"
    assert env.classpath[0].endswith(f"build/classes/java/{source_set}")
    assert any(p.endswith(f"build/classes/kotlin/{source_set}") for p in env.classpath)
    if source_set == "main":
        names = _names(env.classpath)
        assert any(n.startswith("commons-text-1.13.0") for n in names), names
        assert any(n.startswith(("kotlinx-serialization-json-jvm-", "kotlinx-serialization-json-")) for n in names), (
            names
        )
        assert any(n.startswith(f"kotlin-stdlib-{pair.kgp}") for n in names), names
    assert Path(env.java_home, "bin", "java").is_file() and env.java_executable.endswith("java")
    assert env.project_kotlin_version == pair.kgp
    assert any(p.endswith(f"src/{source_set}/kotlin") for p in env.input_dirs), env.input_dirs
    # The project's repositories, where a snippet's @file:DependsOn looks first (mavenCentral() here).
    assert env.repositories == ["https://repo.maven.apache.org/maven2/"], env.repositories
    if has_usable_repl(pair.kgp):
        assert env.kotlin_version == pair.kgp and not env.warnings, env.warnings
        plugins = _names(env.compiler_plugin_classpath)
        for plugin in ("kotlin-serialization-compiler-plugin-embeddable", "kotlin-allopen-compiler-plugin-embeddable"):
            assert any(n.startswith(f"{plugin}-{pair.kgp}") for n in plugins), plugins
        assert "plugin:org.jetbrains.kotlin.allopen:annotation=sample.Open" in env.compiler_plugin_options
        assert env.jvm_target == "17"
    else:
        # Older than the usable K2 REPL: the pinned REPL; the build's plugins reported as the build has them, then
        # loaded at the REPL's version with the build's options, and a warning that says so.
        assert env.kotlin_version == PINNED_KOTLIN_VERSION
        plugins = _names(env.compiler_plugin_classpath)
        assert any(n.startswith(f"kotlin-serialization-compiler-plugin-embeddable-{pair.kgp}") for n in plugins), (
            plugins
        )
        at_repl = env.model_copy(deep=True)
        load_plugins_at_repl_version(at_repl)
        assert sorted(_names(at_repl.compiler_plugin_classpath)) == [
            f"kotlin-allopen-compiler-plugin-embeddable-{PINNED_KOTLIN_VERSION}.jar",
            f"kotlin-serialization-compiler-plugin-embeddable-{PINNED_KOTLIN_VERSION}.jar",
        ], at_repl.compiler_plugin_classpath
        assert "plugin:org.jetbrains.kotlin.allopen:annotation=sample.Open" in at_repl.compiler_plugin_options
        assert any("no K2 REPL" in w and "compiler plugins at" in w for w in at_repl.warnings), at_repl.warnings
        assert not any(a.startswith(("-language-version", "-api-version")) for a in env.compiler_args), (
            env.compiler_args
        )
    if source_set == "main":
        assert "-Xjsr305=strict" in env.compiler_args, env.compiler_args
    host = _names(env.repl_host_classpath)
    assert f"kotlin-compiler-embeddable-{env.kotlin_version}.jar" in host, host


def test_a_single_module_build_reports_classpath_plugins_toolchain_and_args(pair_run: tuple[Pair, PairRun]) -> None:
    pair, run = pair_run
    check_single_module(pair, run.environment("single:main", project_path=":", source_set="main"), "main")
    assert ":classes" in run.depends_on("single:main")  # the source set is compiled before it is reported


def test_a_custom_source_set_reports_its_own_outputs(pair_run: tuple[Pair, PairRun]) -> None:
    pair, run = pair_run
    check_single_module(
        pair, run.environment("single:integration", project_path=":", source_set="integration"), "integration"
    )
    assert ":integrationClasses" in run.depends_on("single:integration")


def test_a_module_sees_the_module_it_depends_on(pair_run: tuple[Pair, PairRun]) -> None:
    _pair, run = pair_run
    env = run.environment("multi:app", project_path=":app", source_set="main")
    assert env.project_path == ":app" and env.project_dir and env.project_dir.endswith("multi/app")
    names = _names(env.classpath)
    assert "core.jar" in names, names  # :app -> project(":core"), resolved by Gradle to core's jar
    assert ":core:jar" in run.depends_on("multi:app")  # which Gradle builds first
    assert any(n.startswith("commons-lang3-3.17.0") for n in names), (
        names
    )  # :core's implementation dependency at runtime


def test_the_test_task_settings_reach_a_session_of_the_test_source_set(pair_run: tuple[Pair, PairRun]) -> None:
    """test { systemProperty("a","b"); environment("X","y"); useJUnitPlatform { includeTags("fast") }; jvmArgs(…);
    maxHeapSize; filter } as markers and as the model: only what the build set (not the inherited environment, not
    Gradle's defaults), a launcher option joined to its value as a JVM started in process takes it."""
    pair, run = pair_run
    block = run.block("single:test")
    assert "testTask=:test" in [line.split(" ", 2)[-1] for line in block if line.startswith("[gradle-mcp-repl-env]")], (
        block
    )
    env = run.environment("single:test", project_path=":", source_set="test")
    check_single_module(pair, env, "test")
    assert env.test_settings == TestRunSettings(
        # Gradle itself moves a -D of jvmArgs into the task's system properties (JvmOptions), set for the run alike.
        system_properties={"a": "b", "q": "1"},
        environment={"X": "y"},
        include_tags=["fast"],
        excludes=["*IT"],
        jvm_args=["-ea", "-Xmx1g", "--add-opens=java.base/java.lang=ALL-UNNAMED"],
    ), env.test_settings
    # The test source set's classpath: its own outputs, main's, and the test-scope dependencies.
    assert any(p.endswith("build/classes/kotlin/main") for p in env.classpath)
    assert "junit-jupiter-api-5.14.1.jar" in _names(env.classpath)
    assert run.environment("single:main", project_path=":", source_set="main").test_settings is None


def _edit_sources(env: ReplEnvironment, model_dir: str) -> tuple[set[str], str, set[str], str | None]:
    """The edit sources' roots and friend dirs relative to the model's directory, its module name, why not."""
    sources = env.edit_sources
    assert sources is not None, "no edit markers"

    def relative(paths: list[str]) -> set[str]:
        return {p.split(f"/{model_dir}/", 1)[1] for p in paths}

    return relative(sources.roots), sources.module_name, relative(sources.friend_dirs), sources.unavailable


def test_a_jvm_source_set_reports_how_its_edits_compile(pair_run: tuple[Pair, PairRun]) -> None:
    """What the session's own compile of an edit needs, on Gradle: a source set's own Kotlin and Java roots (a test
    source set's, not main's; no resources), the module name KGP's compile task uses (`single`, KGP's `single_test`
    for the test compilation) and, for the test compilation, main's outputs as friends (`internal` visible)."""
    _pair, run = pair_run
    main = run.environment("single:main", project_path=":", source_set="main")
    assert _edit_sources(main, "single") == ({"src/main/java", "src/main/kotlin"}, "single", set(), None)
    test = run.environment("single:test", project_path=":", source_set="test")
    roots, module, friends, unavailable = _edit_sources(test, "single")
    assert roots == {"src/test/java", "src/test/kotlin"} and module == "single_test" and unavailable is None
    assert {"build/classes/kotlin/main", "build/classes/java/main"} <= friends, friends
    custom = run.environment("single:integration", project_path=":", source_set="integration")
    assert _edit_sources(custom, "single")[:2] == (
        {"src/integration/java", "src/integration/kotlin"},
        "single_integration",
    )


def test_a_build_that_generates_sources_sends_every_edit_to_gradle(pair_run: tuple[Pair, PairRun]) -> None:
    """kapt applied, or a Java annotation processor declared: the session would compile against stale generated
    sources, so the reason is reported and every edit goes to Gradle."""
    _pair, run = pair_run
    kapt = run.environment("gen:kapt", project_path=":kapt", source_set="main").edit_sources
    assert (
        kapt is not None
        and kapt.unavailable == "kapt generates sources in this build (plugin org.jetbrains.kotlin.kapt)"
    )
    processors = run.environment("gen:processors", project_path=":processors", source_set="main").edit_sources
    assert processors is not None and processors.unavailable is not None
    assert processors.unavailable.startswith("Java annotation processors") and "auto-value" in processors.unavailable


LATEST = next(p for p in PAIRS if p.gradle == "8.11.1" and has_usable_repl(p.kgp))


def test_a_broken_init_script_fails_the_facts(tmp_path: Path) -> None:
    """The harness has teeth: an init script that reads a KGP property that doesn't exist (so drops the
    plugin options) no longer reports what the build would."""
    script = init_script_path().read_text()
    assert '"getPluginOptions"' in script
    run = run_pair(
        LATEST, tmp_path, script=script.replace('"getPluginOptions"', '"getPluginOptionsGone"'), multiplatform=False
    )
    env = run.environment("single:main", project_path=":", source_set="main")
    with pytest.raises(AssertionError):
        check_single_module(LATEST, env, "main")


def compile_like_the_build(env: ReplEnvironment, classes: str, sources: list[Path], *args: str) -> None:
    """The project's own code, compiled into its reported output dir by the resolved compiler with the build's
    plugins and options (what the build's compile task would do; the harness configures but never compiles)."""
    libraries = [p for p in env.classpath if p.endswith(".jar")]
    compiled = subprocess.run(
        [
            "java",
            *SHORT_LIVED_JVM_FLAGS,
            "-cp",
            ":".join(env.repl_host_classpath),
            "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler",
            *env.compiler_options(),
            *args,
            "-classpath",
            ":".join(libraries),
            "-d",
            classes,
            *map(str, sources),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr


PROJECT_SOURCE = """
package sample

annotation class Open

@Open
class Greeter(val name: String) {
    fun greet() = "hello, $name"
}
"""


def test_a_real_session_on_a_gradle_resolved_environment(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The Gradle path end to end minus the launcher: the model's environment, the project's code compiled by the
    resolved compiler with the build's plugins, a real worker calling it and round-tripping a snippet's
    @Serializable class."""
    env = _run(LATEST, tmp_path_factory).environment("single:main", project_path=":", source_set="main")
    classes = next(p for p in env.classpath if p.endswith("build/classes/kotlin/main"))
    source = tmp_path / "Greeter.kt"
    source.write_text(PROJECT_SOURCE)
    compile_like_the_build(env, classes, [source])
    worker = SyncWorker(env)
    try:
        assert worker.value('sample.Greeter("gradle").greet()') == "hello, gradle"
        # all-open from the build's option: the project's @Open class can be subclassed, overrides included.
        assert (
            worker.value('class Louder : sample.Greeter("x") { override fun greet() = "HI" }\nLouder().greet()') == "HI"
        )
        round_trip = (
            "import kotlinx.serialization.*\nimport kotlinx.serialization.json.*\n"
            "@Serializable data class Note(val text: String, val n: Int)\n"
            'Json.decodeFromString<Note>(Json.encodeToString(Note("x", 2))) == Note("x", 2)'
        )
        assert worker.value(round_trip) == "true"
    finally:
        worker.close()


# Kotlin Multiplatform: the JVM compilation is found through KGP's targets and compilations, not java source sets.
MULTIPLATFORM_PAIRS = [p for p in PAIRS if p.multiplatform]
# Both sides of KGP 2.2 must be covered (the Compose compiler plugin moved into Kotlin at 2.0; KGP 2.2 changed its
# Gradle variants); a harness change that drops one fails here rather than silently narrowing the matrix.
assert {has_usable_repl(p.kgp) for p in MULTIPLATFORM_PAIRS} == {True, False}


@pytest.fixture(scope="module", params=MULTIPLATFORM_PAIRS, ids=[p.id for p in MULTIPLATFORM_PAIRS])
def kmp_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Pair, PairRun]:
    return request.param, _run(request.param, tmp_path_factory)


def _plugins_as_loaded(pair: Pair, env: ReplEnvironment) -> ReplEnvironment:
    """The environment after the resolver's step that loads the build's plugins at the REPL's Kotlin version."""
    loaded = env.model_copy(deep=True)
    load_plugins_at_repl_version(loaded)
    expected = pair.kgp if has_usable_repl(pair.kgp) else PINNED_KOTLIN_VERSION
    names = _names(loaded.compiler_plugin_classpath)
    assert f"kotlin-serialization-compiler-plugin-embeddable-{expected}.jar" in names, names
    if pair.compose:
        assert f"kotlin-compose-compiler-plugin-embeddable-{expected}.jar" in names, names
        # The Compose Gradle plugin's own default: false on KGP 2.0, true from 2.1.
        source_information = "true" if tuple(int(p) for p in pair.kgp.split(".")[:2]) >= (2, 1) else "false"
        option = f"plugin:androidx.compose.compiler.plugins.kotlin:sourceInformation={source_information}"
        assert option in loaded.compiler_plugin_options, loaded.compiler_plugin_options
    return loaded


def _relative_inputs(env: ReplEnvironment, model: str) -> set[str]:
    return {d.split(f"/kmp/{model}/", 1)[1] for d in env.input_dirs if f"/kmp/{model}/" in d}


@pytest.mark.parametrize("source_set", ["main", "jvmMain", "commonMain"])
def test_a_multiplatform_jvm_target_reports_its_compilation(kmp_run: tuple[Pair, PairRun], source_set: str) -> None:
    """`main` (one JVM target), the KMP name `jvmMain` and the shared `commonMain` all name the jvm target's main
    compilation: its outputs and runtime dependencies, every source set it compiles (an edit in commonMain or the
    intermediate jvmSharedMain rebuilds), its compile task's plugins (Compose, serialization) and options."""
    pair, run = kmp_run
    model = "one"
    env = run.environment(f"kmp:one:{source_set}", project_path=":one", source_set=source_set)
    assert env.classpath[0].endswith("kmp/one/build/classes/kotlin/jvm/main"), env.classpath[:3]
    names = _names(env.classpath)
    for jar in ("runtime-desktop-1.7.3.jar", "commons-text-1.13.0.jar", f"kotlin-stdlib-{pair.kgp}.jar"):
        assert jar in names, names
    assert any(n.startswith("kotlinx-serialization-json-jvm-") for n in names), names
    assert {
        "src/commonMain/kotlin",
        "src/jvmSharedMain/kotlin",
        "src/jvmMain/kotlin",
        "src/commonMain/resources",
    } <= _relative_inputs(env, model)
    assert not any("Test" in d for d in _relative_inputs(env, model))
    assert env.project_kotlin_version == pair.kgp
    assert not any("compile task" in w for w in env.warnings), env.warnings
    assert run.depends_on(f"kmp:one:{source_set}") == [":one:jvmMainClasses"]
    _plugins_as_loaded(pair, env)


def test_a_multiplatform_test_compilation_sees_main_and_common_test(kmp_run: tuple[Pair, PairRun]) -> None:
    pair, run = kmp_run
    env = run.environment("kmp:one:jvmTest", project_path=":one", source_set="jvmTest")
    outputs = [p.split("/kmp/one/", 1)[1] for p in env.classpath if "/kmp/one/" in p]
    assert outputs[0] == "build/classes/kotlin/jvm/test" and "build/classes/kotlin/jvm/main" in outputs, outputs
    inputs = _relative_inputs(env, "one")
    assert {"src/jvmTest/kotlin", "src/commonTest/kotlin", "src/jvmMain/kotlin", "src/commonMain/kotlin"} <= inputs, (
        inputs
    )
    assert {":one:jvmTestClasses", ":one:jvmMainClasses"} <= set(run.depends_on("kmp:one:jvmTest"))
    _plugins_as_loaded(pair, env)
    # jvmTest's test dependencies, and the settings of KGP's jvmTest task (the Test task that runs these classes).
    assert "junit-jupiter-api-5.14.1.jar" in _names(env.classpath)
    assert env.test_settings == TestRunSettings(
        system_properties={"kmp": "jvm"}, exclude_tags=["slow"], jvm_args=["-ea"]
    ), env.test_settings
    assert run.environment("kmp:one:jvmMain", project_path=":one", source_set="jvmMain").test_settings is None


def test_a_multiplatform_jvm_compilation_reports_how_its_edits_compile(kmp_run: tuple[Pair, PairRun]) -> None:
    """jvmMain's edits compile with every source set the compilation compiles (commonMain, the intermediate
    jvmSharedMain, jvmMain) as one module; jvmTest's with its own (jvmTest, commonTest), KGP's `_test` module name and
    jvmMain's outputs as friends."""
    _pair, run = kmp_run
    main = run.environment("kmp:one:jvmMain", project_path=":one", source_set="jvmMain")
    roots, module, friends, unavailable = _edit_sources(main, "kmp/one")
    assert {"src/commonMain/kotlin", "src/jvmSharedMain/kotlin", "src/jvmMain/kotlin"} <= roots, roots
    assert not any("Test" in r or "resources" in r for r in roots), roots
    assert (module, friends, unavailable) == ("one", set(), None)
    test = run.environment("kmp:one:jvmTest", project_path=":one", source_set="jvmTest")
    roots, module, friends, unavailable = _edit_sources(test, "kmp/one")
    assert {"src/jvmTest/kotlin", "src/commonTest/kotlin"} <= roots and not any("Main" in r for r in roots), roots
    assert module == "one_test" and unavailable is None
    assert "build/classes/kotlin/jvm/main" in friends, friends


def test_one_of_several_jvm_targets_is_named_by_its_source_set(kmp_run: tuple[Pair, PairRun]) -> None:
    pair, run = kmp_run
    env = run.environment("kmp:two:desktopMain", project_path=":two", source_set="desktopMain")
    assert env.classpath[0].endswith("kmp/two/build/classes/kotlin/desktop/main"), env.classpath[:3]
    assert "src/commonMain/kotlin" in _relative_inputs(env, "two")
    assert run.depends_on("kmp:two:desktopMain") == [":two:desktopMainClasses"]
    _plugins_as_loaded(pair, env)


def test_ambiguous_missing_and_non_jvm_multiplatform_names_are_refused_with_the_choices(
    kmp_run: tuple[Pair, PairRun],
) -> None:
    _, run = kmp_run
    several = run.refusal("kmp:two:main")
    assert "several JVM targets (desktop, jvm)" in several and "desktopMain" in several and "jvmMain" in several, (
        several
    )
    missing = run.refusal("kmp:one:iosMain")
    assert "no JVM compilation 'iosMain'" in missing and "jvmMain, jvmTest, main, test" in missing, missing
    js_only = run.refusal("kmp:js-only:main")
    assert "has no JVM target (targets: js (js))" in js_only and "add jvm()" in js_only, js_only


COMMON_SOURCE = """
package shop

expect fun platformName(): String

data class Item(val name: String, val cents: Long)

fun describe(item: Item): String = "${item.name} at ${item.cents / 100.0} on ${platformName()}"
"""

JVM_SOURCE = """
package shop

actual fun platformName(): String = "JVM " + System.getProperty("java.specification.version")

fun jvmOnlyTotal(items: List<Item>): Long = items.sumOf { it.cents }
"""


def test_a_real_session_on_a_multiplatform_environment(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """commonMain and jvmMain code (expect/actual) compiled by the resolved compiler as KGP compiles a JVM target,
    called from a real session; the build's Compose compiler plugin transforms a snippet's @Composable function
    (the Composer parameter it adds is there) and serialization round-trips a snippet's class."""
    pair = next(p for p in MULTIPLATFORM_PAIRS if has_usable_repl(p.kgp))
    env = _run(pair, tmp_path_factory).environment("kmp:one:jvmMain", project_path=":one", source_set="jvmMain")
    classes = env.classpath[0]
    common, jvm = tmp_path / "Common.kt", tmp_path / "Jvm.kt"
    common.write_text(COMMON_SOURCE)
    jvm.write_text(JVM_SOURCE)
    # KGP compiles a JVM target's compilation as one module whose common sources are marked as such.
    compile_like_the_build(env, classes, [common, jvm], "-Xmulti-platform", f"-Xcommon-sources={common}")
    worker = SyncWorker(env)
    try:
        java = worker.value('System.getProperty("java.specification.version")')
        assert (
            Path(env.java_home, "release").read_text().count(f'JAVA_VERSION="{java}') == 1
        )  # the reported JDK runs it
        assert worker.value('shop.describe(shop.Item("tea", 250))') == f"tea at 2.5 on JVM {java}"
        assert worker.value('shop.jvmOnlyTotal(listOf(shop.Item("a", 1), shop.Item("b", 2)))') == "3"
        composable = (
            "import androidx.compose.runtime.Composable\n"
            "@Composable fun Badge(label: String) { println(label) }\n"
            "object Probe\n"
            'Probe::class.java.enclosingClass.declaredMethods.filter { it.name == "Badge" }'
            ".flatMap { m -> m.parameterTypes.map { it.simpleName } }.joinToString()"
        )
        assert "Composer" in worker.value(composable)
        round_trip = (
            "import kotlinx.serialization.*\nimport kotlinx.serialization.json.*\n"
            "@Serializable data class Order(val items: Int)\n"
            "Json.decodeFromString<Order>(Json.encodeToString(Order(3)))"
        )
        assert worker.value(round_trip) == "Order(items=3)"
    finally:
        worker.close()
