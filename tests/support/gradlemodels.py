"""Runs the shipped init script against real Gradle project models, in-process, with no Gradle launcher.

Gradle's ProjectBuilder (the plugin-test fixture in `dev.gradleplugins:gradle-api`, Gradle's public API jars
on Maven Central) builds real projects; the real Kotlin Gradle plugin and its compiler-plugin Gradle plugins
apply to them and Gradle resolves their dependencies from Maven Central. tests/gradle-models/GradleModels.kt
and the init script's body (as `fun Gradle.initScript()`) are compiled together with the pinned Kotlin
compiler, run once per Gradle × KGP pair, and print each model's markers. Compiled harnesses and the
Gradle user home (its dependency cache) persist in the test cache.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gradle_repl.environment import ReplEnvironment, parse_markers
from gradle_repl.project.toolchain import PINNED_KOTLIN_VERSION, Coordinate, kotlin_policy_properties, resolve_jars
from gradle_repl.resources import init_script_path
from support.compiledonce import CompileFailed, compiled_once
from support.paths import REPO, persistent_test_cache
from support.shortjvm import SHORT_LIVED_JVM_FLAGS
from support.testtoolchain import fetch_test_toolchain

__all__ = ["Pair", "PAIRS", "pair_jars", "run_pair", "as_compilable_kotlin"]

HARNESS = REPO / "tests/gradle-models/GradleModels.kt"
# ProjectBuilder injects classes into JDK packages' loaders; Gradle's own launcher opens these too.
_ADD_OPENS = [f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in ("java.lang", "java.util", "java.lang.invoke")]
# Applying KGP, resolving from Maven Central and reporting three models; a cold dependency cache is the slow part.
RUN_TIMEOUT_SECONDS = 600


@dataclass(frozen=True)
class Pair:
    gradle: str
    kgp: str
    # KGP publishes one jar per Gradle API level; Maven can only pick it by classifier (None: the 7.6 one).
    classifier: str | None
    serialization_runtime: str

    @property
    def id(self) -> str:
        return f"gradle{self.gradle}-kgp{self.kgp}"

    @property
    def multiplatform(self) -> bool:
        """Whether the run also builds the Kotlin Multiplatform models: on every pair of the matrix."""
        return True

    @property
    def compose(self) -> bool:
        """Whether the multiplatform models apply the Compose compiler's Gradle plugin (it exists from KGP 2.0)."""
        return tuple(int(p) for p in self.kgp.split(".")[:2]) >= (2, 0)


PAIRS = [
    Pair("7.6", "1.9.25", None, "1.6.3"),
    # KGP 2.0 publishes a variant per Gradle API level up to 8.5; 8.11.1 takes its gradle85 one as it takes 2.1's.
    Pair("8.11.1", "2.0.21", "gradle85", "1.7.3"),
    Pair("7.6.4", "2.1.20", None, "1.8.1"),
    Pair("8.11.1", "2.1.20", "gradle85", "1.8.1"),
    # KGP 2.2 publishes a variant per Gradle API level up to 8.13; 8.11's own is needed by the multiplatform plugin
    # (its gradle85 variant declares a managed KotlinDependencies type that Gradle 8.11 refuses to decorate).
    Pair("8.11.1", "2.2.21", "gradle811", "1.9.0"),
]


def as_compilable_kotlin(script: str) -> str:
    """Imports and classes stay top-level (a script hoists its classes); the statements become the body
    of `fun Gradle.initScript()`."""
    lines = script.splitlines()
    first_class = next(i for i, line in enumerate(lines) if line.startswith("class "))
    imports = [line for line in lines[:first_class] if line.startswith("import ")]
    statements = [line for line in lines[:first_class] if not line.startswith("import ")]
    return "\n".join(
        [
            *imports,
            "import java.io.File",
            "import org.gradle.api.invocation.Gradle",
            "",
            "fun Gradle.initScript() {",
            *statements,
            "}",
            *lines[first_class:],
        ]
    )


def pair_jars(pair: Pair) -> dict[str, list[str]]:
    """The Gradle API, KGP and compiler-plugin jars a pair's harness compiles and runs with."""
    kotlin = "org.jetbrains.kotlin"
    return resolve_jars(
        {
            "gradle-api": [Coordinate("dev.gradleplugins", "gradle-api", pair.gradle)],
            "kgp": [
                Coordinate(kotlin, "kotlin-gradle-plugin", pair.kgp, classifier=pair.classifier),
                Coordinate(kotlin, "kotlin-serialization", pair.kgp, classifier=pair.classifier),
                Coordinate(kotlin, "kotlin-allopen", pair.kgp, classifier=pair.classifier),
                *(
                    [Coordinate(kotlin, "compose-compiler-gradle-plugin", pair.kgp, classifier=pair.classifier)]
                    if pair.compose
                    else []
                ),
            ],
            "sam": [
                Coordinate(
                    kotlin,
                    "kotlin-sam-with-receiver-compiler-plugin-embeddable",
                    PINNED_KOTLIN_VERSION,
                    transitive=False,
                )
            ],
            # A Gradle distribution carries kotlin-reflect (its embedded Kotlin's), the flattened API jar doesn't; KGP 1.9's
            # multiplatform targets call it (KotlinTargetWithTestsConfigurator: kotlin.reflect.full.KClasses). At the
            # pinned stdlib's version, which the harness runs on.
            "reflect": [Coordinate(kotlin, "kotlin-reflect", PINNED_KOTLIN_VERSION, transitive=False)],
            # External modules Gradle's module registry looks up by jar name for project dependencies.
            "gradle-externals": [Coordinate("javax.inject", "javax.inject", "1")],
        }
    ).by_request


def _compile(pair: Pair, script: str, jars: dict[str, list[str]]) -> Path:
    """The harness plus this init script, compiled once per (script, harness, Gradle API) and cached."""
    host = fetch_test_toolchain().repl_host
    api = [j for j in jars["gradle-api"] if j.endswith(".jar")]
    flags = [
        "-no-stdlib",
        "-no-reflect",
        # Gradle 8.11 embeds Kotlin 2.0; code for a newer stdlib would not run against its API.
        "-language-version",
        "2.0",
        "-api-version",
        "2.0",
        "-jvm-target",
        "11",
        f"-Xplugin={jars['sam'][0]}",
        "-P",
        "plugin:org.jetbrains.kotlin.samWithReceiver:annotation=org.gradle.api.HasImplicitReceiver",
        "-classpath",
        os.pathsep.join([*api, *host]),
    ]

    source_text = as_compilable_kotlin(script)

    def run_compiler(work: Path) -> subprocess.CompletedProcess[str]:
        source = work / "ReplEnvInit.kt"
        source.write_text(source_text)
        return subprocess.run(
            # (test_init_script_api compiles the script and its own harness with -Werror; -language-version 2.0
            # here warns.)
            [
                "java",
                *SHORT_LIVED_JVM_FLAGS,
                "-cp",
                os.pathsep.join(host),
                "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler",
                *flags,
                "-d",
                str(work),
                str(source),
                str(HARNESS),
            ],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_SECONDS,
        )

    compiled = compiled_once("gradle-models", [source_text, HARNESS.read_text(), *flags], run_compiler)
    if isinstance(compiled, CompileFailed):
        raise AssertionError(f"the harness did not compile against Gradle {pair.gradle}:\n{compiled.message}")
    return compiled.classes


@dataclass(frozen=True)
class PairRun:
    output: str
    returncode: int

    def block(self, name: str) -> list[str]:
        """What one model printed, between its "=== name" and "=== end name" lines."""
        start = self.output.index(f"=== {name}\n")
        end = self.output.index(f"=== end {name}\n", start)
        return self.output[start:end].splitlines()[1:]

    def environment(self, name: str, *, project_path: str, source_set: str) -> ReplEnvironment:
        """The environment the product's own parser reads from one model's markers."""
        return parse_markers(
            self.block(name),
            nonce="harness",
            build_tool="gradle",
            project_root="/harness",
            project_path=project_path,
            source_set=source_set,
        )

    def depends_on(self, name: str) -> list[str]:
        """The tasks Gradle would run before the model's resolveReplEnvironment (the harness resolves its dependsOn)."""
        return [line.removeprefix("dependsOn=") for line in self.block(name) if line.startswith("dependsOn=")]

    def refusal(self, name: str) -> str:
        """The message of the GradleException a model's report ended with (the harness prints it as `error=`)."""
        errors = [line.removeprefix("error=") for line in self.block(name) if line.startswith("error=")]
        assert errors, f"{name} was not refused:\n" + "\n".join(self.block(name))
        return errors[0]


_MISSING_MODULE = re.compile(r"Cannot locate manifest for module '(gradle-[\w-]+)'")
# How many unknown Gradle modules one run may discover before giving up (each costs a rerun, once per machine).
_MODULE_DISCOVERY_RUNS = 8
# The modules the harness's models make Gradle look up, as discovered on Gradle 7.6-8.11 (base-annotations went in 8.x,
# logging and stdlib-java-extensions came). Seeded before the first run: discovering them costs a whole harness run each
# (five or six per pair on a new machine, ~10 s of CPU apiece); a manifest naming a module a version lacks is never read.
_KNOWN_MODULES = (
    "base-services",
    "base-annotations",
    "core",
    "core-api",
    "dependency-management",
    "logging",
    "stdlib-java-extensions",
)


def run_pair(pair: Pair, work: Path, *, script: str | None = None, multiplatform: bool | None = None) -> PairRun:
    """Builds the pair's project models and runs the (shipped, unless given) init script on them; the multiplatform
    models too where the pair has them, unless `multiplatform` is False."""
    with_multiplatform = pair.multiplatform if multiplatform is None else multiplatform and pair.multiplatform
    script = script if script is not None else init_script_path().read_text()
    jars = pair_jars(pair)
    classes = _compile(pair, script, jars)
    stdlib = next(j for j in fetch_test_toolchain().repl_host if Path(j).name.startswith("kotlin-stdlib-"))
    user_home = persistent_test_cache() / "gradle-user-home"
    for module in _KNOWN_MODULES:
        _add_module_manifest(pair, f"gradle-{module}")
    for _ in range(_MODULE_DISCOVERY_RUNS):
        # The pinned stdlib first: the harness was compiled by the pinned compiler.
        classpath = [
            str(classes),
            stdlib,
            *jars["reflect"],
            *_module_manifests(pair),
            *jars["gradle-api"],
            *jars["kgp"],
            *jars["gradle-externals"],
        ]
        done = subprocess.run(
            # The Kotlin version policy, as gradle-repl passes it to a real Gradle (-P properties).
            [
                "java",
                "-Xmx1g",
                *SHORT_LIVED_JVM_FLAGS,
                *_ADD_OPENS,
                *(f"-D{k}={v}" for k, v in kotlin_policy_properties().items()),
                "-cp",
                os.pathsep.join(classpath),
                "GradleModelsKt",
                str(work / f"run{_}"),
                str(user_home),
                pair.serialization_runtime,
                str(with_multiplatform).lower(),
                str(pair.compose).lower(),
            ],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_SECONDS,
        )
        output = done.stdout + done.stderr
        missing = _MISSING_MODULE.search(output)
        if missing is None or not _add_module_manifest(pair, missing.group(1)):
            return PairRun(output, done.returncode)
    return PairRun(output, done.returncode)


def _manifest_root(pair: Pair) -> Path:
    return persistent_test_cache() / "gradle-module-manifests" / pair.gradle


def _module_manifests(pair: Pair) -> list[str]:
    """Gradle finds its internal modules (for project dependencies) by a `gradle-<m>-classpath.properties`
    manifest in `<m>/bin` on the classpath when no distribution exists (DefaultModuleRegistry, "embedded
    mode"). The API jar has the classes but not the manifests: empty ones, naming no further jars, suffice."""
    root = _manifest_root(pair)
    return [str(d) for d in sorted(root.glob("*/bin"))] if root.is_dir() else []


def _add_module_manifest(pair: Pair, module: str) -> bool:
    directory = _manifest_root(pair) / module.removeprefix("gradle-") / "bin"
    manifest = directory / f"{module}-classpath.properties"
    if manifest.is_file():
        return False
    directory.mkdir(parents=True, exist_ok=True)
    manifest.write_text("projects=\nruntime=\n")
    return True
