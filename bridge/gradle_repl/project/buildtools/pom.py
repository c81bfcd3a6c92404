"""Reading POMs: the modules and parents a build names, and from the effective POM what the
kotlin-maven-plugin compiles with and where a module's classes go.

Namespaces are dropped on reading: a POM without `xmlns` is as valid to Maven as one with it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from gradle_repl.environment import EditSources
from gradle_repl.errors import BuildFailed
from gradle_repl.project.toolchain import PINNED_KOTLIN_VERSION

__all__ = [
    "KotlinSettings",
    "PLUGINS",
    "parse",
    "modules",
    "parent_poms",
    "artifact_id",
    "packaging",
    "effective_project",
    "kotlin_settings",
    "output_dirs",
    "repositories",
    "source_dirs",
    "goal_configuration",
    "project_properties",
    "edit_sources",
]

# kotlin-maven-plugin's <compilerPlugins> names → the embeddable plugin jar, the plugin id, a preset.
PLUGINS: dict[str, tuple[str, str, str | None]] = {
    "kotlinx-serialization": (
        "kotlin-serialization-compiler-plugin-embeddable",
        "org.jetbrains.kotlinx.serialization",
        None,
    ),
    "all-open": ("kotlin-allopen-compiler-plugin-embeddable", "org.jetbrains.kotlin.allopen", None),
    "spring": ("kotlin-allopen-compiler-plugin-embeddable", "org.jetbrains.kotlin.allopen", "spring"),
    "no-arg": ("kotlin-noarg-compiler-plugin-embeddable", "org.jetbrains.kotlin.noarg", None),
    "jpa": ("kotlin-noarg-compiler-plugin-embeddable", "org.jetbrains.kotlin.noarg", "jpa"),
    "sam-with-receiver": (
        "kotlin-sam-with-receiver-compiler-plugin-embeddable",
        "org.jetbrains.kotlin.samWithReceiver",
        None,
    ),
    "lombok": ("kotlin-lombok-compiler-plugin-embeddable", "org.jetbrains.kotlin.lombok", None),
    "power-assert": ("kotlin-power-assert-compiler-plugin-embeddable", "org.jetbrains.kotlin.powerassert", None),
}
# What the kotlin-maven-plugin reads from a <configuration> element or, when absent there, from a
# property (its @Parameter(property = ...) in K2JVMCompileMojo / KotlinCompileMojoBase), and the
# compiler flag each becomes. jvmTarget is kept apart: the REPL takes it as its own option.
_FLAG_PARAMETERS = (
    ("languageVersion", "kotlin.compiler.languageVersion", "-language-version"),
    ("apiVersion", "kotlin.compiler.apiVersion", "-api-version"),
)
_BOOLEAN_PARAMETERS = (("javaParameters", "kotlin.compiler.javaParameters", "-java-parameters"),)
# The kotlin-maven-plugin hands every dependency of its own to the compiler as a plugin jar
# (KotlinCompileMojoBase.getCompilerPluginClassPaths): a plugin without a <compilerPlugins> name, Compose's for one,
# is applied so. JetBrains' are published as kotlin-<name>-compiler-plugin, -embeddable for the embeddable compiler
# (which the kotlin-maven-plugin uses from 2.2.20 on, and the REPL always does).
_DEPENDENCY_PLUGIN = re.compile(r"(kotlin-[a-z-]+-compiler-plugin)(?:-embeddable)?")


def parse(pom: Path) -> ET.Element:
    try:
        root = ET.parse(pom).getroot()
    except ET.ParseError as error:
        raise BuildFailed(f"{pom} is not valid XML: {error}") from None
    except OSError as error:
        raise BuildFailed(f"{pom} can't be read: {error.strerror}") from None
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.startswith("{"):
            element.tag = element.tag.split("}", 1)[1]
    return root


def _text(element: ET.Element | None, path: str) -> str:
    found = element.find(path) if element is not None else None
    return (found.text or "").strip() if found is not None else ""


def packaging(project: ET.Element) -> str:
    """The project's packaging: jar unless the POM says otherwise (pom for an aggregator or parent)."""
    return _text(project, "packaging") or "jar"


def artifact_id(pom: Path) -> str:
    return _text(parse(pom), "artifactId")


def modules(root: Path) -> list[Path]:
    """Every module directory the root POM aggregates (profiles included), each once, in order.

    A module may sit outside root ("../c"); a module naming its own or an ancestor's directory
    ("<module>.</module>") is ignored, as Maven does not build a project twice.
    """
    found: list[Path] = []
    seen = {root.resolve()}
    stack = [root.resolve()]
    while stack:
        directory = stack.pop(0)
        pom = parse(directory / "pom.xml")
        for element in pom.findall("modules/module") + pom.findall("profiles/profile/modules/module"):
            name = (element.text or "").strip()
            child = (directory / name).resolve()
            if child.is_file():
                child = child.parent
            if not name or child in seen or not (child / "pom.xml").is_file():
                continue
            seen.add(child)
            found.append(child)
            stack.append(child)
    return found


def parent_poms(pom_dirs: list[Path]) -> list[Path]:
    """Parent POM files reached through <parent><relativePath> (default ../pom.xml), each once."""
    parents: list[Path] = []
    pending = [d / "pom.xml" for d in pom_dirs]
    seen = set(pending)
    while pending:
        pom = pending.pop()
        try:
            element = parse(pom).find("parent")
        except BuildFailed:
            continue
        if element is None:
            continue
        relative = _text(element, "relativePath") if element.find("relativePath") is not None else "../pom.xml"
        if not relative:
            continue  # <relativePath/>: the parent comes from a repository
        candidate = (pom.parent / relative).resolve()
        if candidate.is_dir():
            candidate = candidate / "pom.xml"
        if candidate.is_file() and candidate not in seen:
            seen.add(candidate)
            parents.append(candidate)
            pending.append(candidate)
    return parents


def effective_project(path: Path, module: Path) -> ET.Element:
    """The module's <project> in an effective POM: the one whose build directory sits in the module."""
    root = parse(path)
    projects = [root] if root.tag == "project" else root.findall("project")
    for project in projects:
        directory = _text(project, "build/directory")
        if directory and Path(directory).parent.resolve() == module.resolve():
            return project
    raise BuildFailed(f"the effective POM in {path} has no project for {module}")


def output_dirs(project: ET.Element, module: Path, *, test: bool) -> list[Path]:
    """build.outputDirectory, with testOutputDirectory before it for tests (surefire's order: a test resource such
    as src/test/resources/application.properties wins over main's of the same name), as the build sets them."""
    main = _text(project, "build/outputDirectory") or str(module / "target" / "classes")
    tests = _text(project, "build/testOutputDirectory") or str(module / "target" / "test-classes")
    return ([Path(tests)] if test else []) + [Path(main)]


def source_dirs(project: ET.Element) -> list[str]:
    """Directories holding the project's sources and resources, as the effective POM names them."""
    dirs = [_text(project, "build/sourceDirectory"), _text(project, "build/testSourceDirectory")]
    dirs += [(e.text or "").strip() for e in project.findall("build/resources/resource/directory")]
    dirs += [(e.text or "").strip() for e in project.findall("build/testResources/testResource/directory")]
    for plugin in project.findall("build/plugins/plugin"):
        for path in (
            "configuration/sourceDirs/sourceDir",
            "executions/execution/configuration/sourceDirs/sourceDir",
            "executions/execution/configuration/sources/source",
        ):
            dirs += [(e.text or "").strip() for e in plugin.findall(path)]
    return [d for d in dict.fromkeys(dirs) if d and "${" not in d]


@dataclass
class KotlinSettings:
    version: str = PINNED_KOTLIN_VERSION
    jvm_target: str | None = None
    plugins: list[str] = field(default_factory=list)
    # Embeddable plugin jars applied as dependencies of the kotlin-maven-plugin (artifact names).
    plugin_artifacts: list[str] = field(default_factory=list)
    plugin_options: list[str] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def goal_configuration(plugin: ET.Element, goal: str) -> dict[str, ET.Element]:
    """The plugin's configuration for one goal: the execution running the goal overrides the plugin's own."""
    merged: dict[str, ET.Element] = {}
    configs = [plugin.find("configuration")] + [
        execution.find("configuration")
        for execution in plugin.findall("executions/execution")
        if goal in [(g.text or "").strip() for g in execution.findall("goals/goal")]
    ]
    for config in configs:
        if config is not None:
            merged.update({child.tag: child for child in config if isinstance(child.tag, str)})
    return merged


def project_properties(project: ET.Element) -> dict[str, str]:
    """The effective POM's <properties>, interpolated as Maven interpolates them."""
    return {
        child.tag: (child.text or "").strip() for child in project.findall("properties/*") if isinstance(child.tag, str)
    }


def _value(config: dict[str, ET.Element], properties: dict[str, str], name: str, prop: str) -> str | None:
    """A mojo parameter as Maven sets it: the <configuration> element, else the property it names."""
    element = config.get(name)
    value = (element.text or "").strip() if element is not None else properties.get(prop, "")
    return value if value and "${" not in value else None


def kotlin_settings(project: ET.Element, *, test: bool) -> KotlinSettings:
    settings = KotlinSettings()
    plugin = next(
        (p for p in project.findall("build/plugins/plugin") if _text(p, "artifactId") == "kotlin-maven-plugin"), None
    )
    if plugin is None:
        settings.warnings.append(
            f"no kotlin-maven-plugin in the POM; the REPL uses Kotlin {PINNED_KOTLIN_VERSION} and no compiler plugins"
        )
        return settings
    settings.version = _text(plugin, "version") or PINNED_KOTLIN_VERSION
    properties = project_properties(project)
    config = goal_configuration(plugin, "test-compile" if test else "compile")
    settings.jvm_target = _value(config, properties, "jvmTarget", "kotlin.compiler.jvmTarget")
    for name, prop, flag in _FLAG_PARAMETERS:
        if (value := _value(config, properties, name, prop)) is not None:
            settings.args += [flag, value]
    for name, prop, flag in _BOOLEAN_PARAMETERS:
        if (_value(config, properties, name, prop) or "").lower() == "true":
            settings.args.append(flag)
    settings.args += (
        [(a.text or "").strip() for a in config["args"].findall("arg") if (a.text or "").strip()]
        if "args" in config
        else []
    )
    names = (
        [(p.text or "").strip() for p in config["compilerPlugins"].findall("plugin")]
        if "compilerPlugins" in config
        else []
    )
    for name in dict.fromkeys(n for n in names if n):
        settings.plugins.append(name)
        known = PLUGINS.get(name)
        if known is None:
            settings.warnings.append(
                f"compiler plugin {name!r} is not known to gradle-repl; snippets compile without it"
            )
        elif known[2]:
            settings.plugin_options.append(f"plugin:{known[1]}:preset={known[2]}")
    options = (
        [(o.text or "").strip() for o in config["pluginOptions"].findall("option")] if "pluginOptions" in config else []
    )
    for option in (o for o in options if o):
        name, _, rest = option.partition(":")
        known = PLUGINS.get(name)
        if known is None:
            settings.warnings.append(f"plugin option {option!r} names an unknown plugin; ignored")
        else:
            settings.plugin_options.append(f"plugin:{known[1]}:{rest}")
    _dependency_plugins(plugin, settings)
    return settings


def _dependency_plugins(plugin: ET.Element, settings: KotlinSettings) -> None:
    """The compiler plugins the kotlin-maven-plugin's own <dependencies> apply. The kotlin-maven-* jars only carry
    what a <compilerPlugins> name needs (read above); any other jar outside org.jetbrains.kotlin is a plugin
    gradle-repl doesn't know."""
    for dependency in plugin.findall("dependencies/dependency"):
        group, artifact = _text(dependency, "groupId"), _text(dependency, "artifactId")
        if group != "org.jetbrains.kotlin":
            settings.warnings.append(
                f"compiler plugin {group}:{artifact} (a dependency of the kotlin-maven-plugin) is not known to "
                "gradle-repl; snippets compile without it"
            )
        elif match := _DEPENDENCY_PLUGIN.fullmatch(artifact):
            settings.plugin_artifacts.append(f"{match.group(1)}-embeddable")


def repositories(project: ET.Element) -> list[str]:
    """The module's Maven repositories from its effective POM (Maven Central included, as the super POM adds it)."""
    urls = [_text(r, "url") for r in project.findall("repositories/repository")]
    return list(dict.fromkeys(u for u in urls if u))


# Generated sources make an edit's result depend on more than the edited file: the build tool compiles those edits.
# Each entry: a plugin's artifactId (or a fragment of it), the execution goal or configuration that enables it, and
# what a notice calls it. kapt is a goal of the kotlin-maven-plugin (KaptJVMCompilerMojo); KSP for Maven is a
# third-party plugin (com.dyescape:kotlin-maven-symbol-processing) or a dependency of the kotlin-maven-plugin.
_GENERATING = "kapt or KSP generates sources in this build"


def edit_sources(project: ET.Element, module: Path, outputs: list[Path], *, test: bool) -> EditSources:
    """How an edit of the source set's own sources compiles as the kotlin-maven-plugin would compile it: its source
    roots, module name (K2JVMCompileMojo's `${project.artifactId}`, KotlinTestCompileMojo's `…-test`) and friend
    paths (the outputs on its class path), or why it can't (sources generated by kapt, KSP, annotation processors)."""
    goal = "test-compile" if test else "compile"
    kind = "test" if test else "main"
    roots = [_text(project, "build/testSourceDirectory" if test else "build/sourceDirectory")]
    roots += [str(module / "src" / kind / language) for language in ("kotlin", "java")]
    unavailable = None
    artifact = _text(project, "artifactId")
    module_name = artifact + ("-test" if test else "")
    for plugin in project.findall("build/plugins/plugin"):
        name = _text(plugin, "artifactId")
        goals = {(g.text or "").strip() for g in plugin.findall("executions/execution/goals/goal")}
        if name == "kotlin-maven-plugin":
            config = goal_configuration(plugin, goal)
            if "sourceDirs" in config:
                roots += [(e.text or "").strip() for e in config["sourceDirs"].findall("sourceDir")]
            if "moduleName" in config and (config["moduleName"].text or "").strip() and not test:
                module_name = (config["moduleName"].text or "").strip()
            dependencies = " ".join(_text(d, "artifactId") for d in plugin.findall("dependencies/dependency"))
            if "kapt" in goals or "test-kapt" in goals or "symbol-processing" in dependencies or "ksp" in dependencies:
                unavailable = _GENERATING
        elif "symbol-processing" in name or "ksp" in name.split("-"):
            unavailable = _GENERATING
        elif name == "maven-compiler-plugin":
            config = goal_configuration(plugin, "testCompile" if test else "compile")
            processors = any(tag in config for tag in ("annotationProcessorPaths", "annotationProcessors"))
            if processors and (config["proc"].text or "").strip() != "none" if "proc" in config else processors:
                unavailable = "Java annotation processors generate sources in this build"
        elif name == "build-helper-maven-plugin" and ({"add-source", "add-test-source"} & goals):
            unavailable = "the build adds generated source directories (build-helper-maven-plugin)"
    main = None
    if test:
        # Surefire's test session runs the main classes too: an edit of them compiles as `compile` would, its class
        # path without the test outputs.
        main_outputs = output_dirs(project, module, test=False)
        main = edit_sources(project, module, main_outputs, test=False)
        main.hidden_dirs = [str(p) for p in outputs if p not in main_outputs]
    # kotlin-maven-plugin's incremental caches name the outputs it wrote: gone with them, it compiles everything.
    build_directory = _text(project, "build/directory") or str(module / "target")
    return EditSources(
        roots=[r for r in dict.fromkeys(roots) if r and "${" not in r],
        module_name=module_name,
        friend_dirs=[str(p) for p in outputs],
        stale_outputs=[str(p) for p in outputs] + [str(Path(build_directory) / "kotlin-ic")],
        unavailable=unavailable,
        main_sources=main,
    )
