"""The REPL environment of a Maven project: one `mvn` run compiles the module and reports its
classpath and effective POM; the Kotlin REPL host and compiler plugins come at the POM's Kotlin
version through Maven as well.
"""

from __future__ import annotations

import os
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from ..compiler_args import relevant_compiler_args
from ..environment import ReplEnvironment
from ..errors import BuildFailed, BuildToolNotFound, GradleReplError
from ..process import ProgressCallback, join_capped, run_streaming
from ..toolchain import (
    PINNED_KOTLIN_VERSION,
    Coordinate,
    find_mvn,
    repl_host_coordinates,
    repl_kotlin_version,
    resolve_jars,
)
from .base import BuildToolName

__all__ = ["MAVEN", "MavenBuild", "resolve_maven_environment", "find_module", "MAVEN_TIMEOUT_SECONDS"]

# A cold build of a module with downloads; past this the user's build is stuck, not slow.
MAVEN_TIMEOUT_SECONDS = 900.0
_NS = {"m": "http://maven.apache.org/POM/4.0.0"}
_OUT_DIR = "target/gradle-repl"
# kotlin-maven-plugin's <compilerPlugins> names → the embeddable plugin jar, the plugin id, a preset.
_PLUGINS: dict[str, tuple[str, str, str | None]] = {
    "kotlinx-serialization": ("kotlin-serialization-compiler-plugin-embeddable", "org.jetbrains.kotlinx.serialization", None),
    "all-open": ("kotlin-allopen-compiler-plugin-embeddable", "org.jetbrains.kotlin.allopen", None),
    "spring": ("kotlin-allopen-compiler-plugin-embeddable", "org.jetbrains.kotlin.allopen", "spring"),
    "no-arg": ("kotlin-noarg-compiler-plugin-embeddable", "org.jetbrains.kotlin.noarg", None),
    "jpa": ("kotlin-noarg-compiler-plugin-embeddable", "org.jetbrains.kotlin.noarg", "jpa"),
    "sam-with-receiver": ("kotlin-sam-with-receiver-compiler-plugin-embeddable", "org.jetbrains.kotlin.samWithReceiver", None),
    "lombok": ("kotlin-lombok-compiler-plugin-embeddable", "org.jetbrains.kotlin.lombok", None),
    "power-assert": ("kotlin-power-assert-compiler-plugin-embeddable", "org.jetbrains.kotlin.powerassert", None),
}
_MAVEN_NOISE = ("-> [Help", "Re-run Maven", "For more information", "[Help 1]", "To see the full stack trace")


class MavenBuild:
    name: BuildToolName = "maven"
    build_files = "pom.xml"

    def detect(self, root: Path) -> bool:
        return (root / "pom.xml").is_file()

    def check_runnable(self, root: Path) -> None:
        find_mvn()

    def is_build_input(self, path: Path, root: Path) -> bool:
        return path.name == "pom.xml" or ".mvn" in path.relative_to(root).parts

    def resolve(
        self, root: Path, *, project_path: str, source_set: str, on_progress: ProgressCallback | None = None
    ) -> ReplEnvironment:
        return resolve_maven_environment(root, project_path=project_path, source_set=source_set, on_progress=on_progress)


MAVEN = MavenBuild()


def find_module(root: Path, project_path: str) -> Path:
    """The module directory project_path names: ':'/'' is the root; else a relative directory or an
    artifactId, with ':' separators accepted as in Gradle (':core' or 'core')."""
    wanted = project_path.strip().strip(":").replace(":", "/")
    if not wanted:
        return root
    modules = list(_modules(root))
    for module in modules:
        if module.relative_to(root).as_posix() == wanted:
            return module
    for module in modules:
        if _artifact_id(module / "pom.xml") == wanted.rsplit("/", 1)[-1]:
            return module
    names = ", ".join(sorted(m.relative_to(root).as_posix() for m in modules)) or "none"
    raise GradleReplError(f"no Maven module {project_path!r} under {root}; modules: {names}")


def _modules(directory: Path):
    root = _parse(directory / "pom.xml")
    for element in root.findall("m:modules/m:module", _NS) + root.findall("m:profiles/m:profile/m:modules/m:module", _NS):
        child = (directory / (element.text or "").strip()).resolve()
        if (child / "pom.xml").is_file():
            yield child
            yield from _modules(child)


def _parse(pom: Path) -> ET.Element:
    try:
        return ET.parse(pom).getroot()
    except ET.ParseError as error:
        raise BuildFailed(f"{pom} is not valid XML: {error}") from None


def _artifact_id(pom: Path) -> str:
    element = _parse(pom).find("m:artifactId", _NS)
    return (element.text or "").strip() if element is not None else ""


def resolve_maven_environment(
    project_root: Path, *, project_path: str, source_set: str, on_progress: ProgressCallback | None = None
) -> ReplEnvironment:
    root = project_root.resolve()
    if not (root / "pom.xml").is_file():
        raise BuildToolNotFound(f"no pom.xml in {root}")
    if source_set not in ("main", "test"):
        raise GradleReplError(f"Maven projects have the source sets 'main' and 'test', not {source_set!r}")
    module = find_module(root, project_path)
    test = source_set == "test"
    command = [find_mvn(), "-B", "-V", "-f", str(root / "pom.xml")]
    if module != root:
        command += ["-pl", module.relative_to(root).as_posix(), "-am"]
    command += [
        "test-compile" if test else "compile",
        "dependency:build-classpath",
        f"-Dmdep.outputFile={_OUT_DIR}/classpath.txt",
        f"-Dmdep.includeScope={'test' if test else 'runtime'}",
        "help:effective-pom",
        f"-Doutput={_OUT_DIR}/effective-pom.xml",
    ]
    # Outputs of an earlier run must never be mistaken for this run's.
    for directory in {root / _OUT_DIR, module / _OUT_DIR}:
        shutil.rmtree(directory, ignore_errors=True)
    outcome = run_streaming(command, cwd=root, timeout_seconds=MAVEN_TIMEOUT_SECONDS, on_line=on_progress)
    if outcome.timed_out:
        raise BuildFailed(f"Maven did not finish within {MAVEN_TIMEOUT_SECONDS:g} s")
    if outcome.returncode != 0:
        raise BuildFailed("Maven build failed:\n" + _maven_errors(outcome.lines))
    classpath_file = module / _OUT_DIR / "classpath.txt"
    if not classpath_file.is_file():
        raise BuildFailed(f"Maven finished but wrote no classpath to {classpath_file}")
    dependencies = [p for p in classpath_file.read_text(encoding="utf-8").strip().split(os.pathsep) if p]
    outputs = [module / "target" / "classes"] + ([module / "target" / "test-classes"] if test else [])
    # help:effective-pom runs once as an aggregator in a reactor: its file lands in the root.
    effective = next((d / "effective-pom.xml" for d in (module / _OUT_DIR, root / _OUT_DIR) if (d / "effective-pom.xml").is_file()), None)
    if effective is None:
        raise BuildFailed("Maven finished but wrote no effective POM")
    pom = _effective_pom(effective, _artifact_id(module / "pom.xml"))
    kotlin = _kotlin_settings(pom)
    java_home = _java_home(outcome.lines)
    repl_version, too_old = repl_kotlin_version(kotlin.version)
    if too_old:
        kotlin.warnings.append(too_old)
        kotlin.plugins, kotlin.plugin_options = [], []
    plugin_artifacts = sorted({_PLUGINS[name][0] for name in kotlin.plugins if name in _PLUGINS})
    requests = {"host": repl_host_coordinates(repl_version)}
    for artifact in plugin_artifacts:
        requests[artifact] = [Coordinate("org.jetbrains.kotlin", artifact, repl_version, transitive=False)]
    jars = resolve_jars(requests, on_progress=on_progress)
    return ReplEnvironment(
        build_tool="maven",
        project_root=str(root),
        project_path=project_path,
        source_set=source_set,
        java_home=java_home,
        java_executable=str(Path(java_home) / "bin" / "java"),
        kotlin_version=repl_version,
        project_kotlin_version=kotlin.version if too_old else None,
        jvm_target=kotlin.jvm_target,
        classpath=[str(p) for p in outputs] + dependencies,
        compiler_plugin_classpath=[j for artifact in plugin_artifacts for j in jars.by_request[artifact]],
        compiler_plugin_options=kotlin.plugin_options,
        compiler_args=relevant_compiler_args(kotlin.args),
        repl_host_classpath=jars.by_request["host"],
        warnings=kotlin.warnings,
    )


def _maven_errors(lines: list[str], limit: int = 40) -> str:
    errors = [
        line.removeprefix("[ERROR] ").rstrip()
        for line in lines
        if line.startswith("[ERROR]") and not any(noise in line for noise in _MAVEN_NOISE)
    ]
    errors = [e for e in errors if e.strip()]
    if not errors:
        errors = lines[-limit:]
    return join_capped(errors, limit)


def _java_home(lines: list[str]) -> str:
    """The JDK running Maven, from `mvn -V` ("Java version: 17.0.15, vendor: …, runtime: /path")."""
    for line in lines:
        match = re.search(r"runtime: (.+)$", line)
        if line.startswith("Java version:") and match:
            return match.group(1).strip()
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        return java_home
    raise BuildFailed("could not tell which JDK Maven runs on; set JAVA_HOME")


def _effective_pom(path: Path, artifact_id: str) -> ET.Element:
    root = _parse(path)
    projects = [root] if root.tag.endswith("project") else root.findall("m:project", _NS)
    for project in projects:
        if (project.findtext("m:artifactId", default="", namespaces=_NS)).strip() == artifact_id:
            return project
    raise BuildFailed(f"the effective POM in {path} has no project {artifact_id!r}")


class _KotlinSettings:
    def __init__(self) -> None:
        self.version = PINNED_KOTLIN_VERSION
        self.jvm_target: str | None = None
        self.plugins: list[str] = []
        self.plugin_options: list[str] = []
        self.args: list[str] = []
        self.warnings: list[str] = []


def _kotlin_settings(project: ET.Element) -> _KotlinSettings:
    settings = _KotlinSettings()
    plugin = next(
        (
            p
            for p in project.findall("m:build/m:plugins/m:plugin", _NS)
            if p.findtext("m:artifactId", default="", namespaces=_NS) == "kotlin-maven-plugin"
        ),
        None,
    )
    if plugin is None:
        settings.warnings.append(
            f"no kotlin-maven-plugin in the POM; the REPL uses Kotlin {PINNED_KOTLIN_VERSION} and no compiler plugins"
        )
        return settings
    settings.version = plugin.findtext("m:version", default=PINNED_KOTLIN_VERSION, namespaces=_NS).strip()
    configurations = [plugin.find("m:configuration", _NS)] + [
        execution.find("m:configuration", _NS) for execution in plugin.findall("m:executions/m:execution", _NS)
    ]
    for config in (c for c in configurations if c is not None):
        settings.jvm_target = config.findtext("m:jvmTarget", default=settings.jvm_target, namespaces=_NS)
        for tag, flag in (("languageVersion", "-language-version"), ("apiVersion", "-api-version")):
            value = config.findtext(f"m:{tag}", namespaces=_NS)
            if value and flag not in settings.args:
                settings.args += [flag, value.strip()]
        # The effective POM repeats the plugin's configuration in every execution.
        for arg in (a.text.strip() for a in config.findall("m:args/m:arg", _NS) if a.text):
            if arg not in settings.args:
                settings.args.append(arg)
        for name in (p.text.strip() for p in config.findall("m:compilerPlugins/m:plugin", _NS) if p.text):
            if name in settings.plugins:
                continue
            settings.plugins.append(name)
            known = _PLUGINS.get(name)
            if known is None:
                settings.warnings.append(f"compiler plugin {name!r} is not known to gradle-repl; snippets compile without it")
            elif known[2]:
                settings.plugin_options.append(f"plugin:{known[1]}:preset={known[2]}")
        for option in (o.text.strip() for o in config.findall("m:pluginOptions/m:option", _NS) if o.text):
            name, _, rest = option.partition(":")
            known = _PLUGINS.get(name)
            if known is None:
                settings.warnings.append(f"plugin option {option!r} names an unknown plugin; ignored")
            else:
                settings.plugin_options.append(f"plugin:{known[1]}:{rest}")
    return settings
