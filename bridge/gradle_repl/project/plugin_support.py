"""A session's compiler plugins: which ones the REPL compiler loads, and what they do to classes declared in
snippets where that differs from the build."""

from __future__ import annotations

import re
from pathlib import Path

from gradle_repl.environment import ReplEnvironment, is_plugin_jar
from gradle_repl.errors import GradleReplError
from gradle_repl.project.buildtools.pom import PLUGINS
from gradle_repl.project.process import ProgressCallback
from gradle_repl.project.toolchain import Coordinate, kotlin_version_tuple, repl_kotlin_version, resolve_jars

__all__ = ["snippet_class_warnings", "load_plugins_at_repl_version"]

# JetBrains publishes each of its compiler plugins with every Kotlin release, under one artifact name, plugin id and
# set of options: kotlin-serialization-compiler-plugin-embeddable-1.9.24.jar has a 2.3.21 twin.
_JETBRAINS_PLUGIN_JAR = re.compile(r"(kotlin-[a-z-]+-compiler-plugin-embeddable)-(\d[\w.+-]*)\.jar")
# The plugin id of each, so options of a plugin that isn't loaded are not passed on.
_PLUGIN_IDS: dict[str, str] = {
    **{artifact: plugin_id for artifact, plugin_id, _ in PLUGINS.values()},
    "kotlin-compose-compiler-plugin-embeddable": "androidx.compose.compiler.plugins.kotlin",
    "kotlin-assignment-compiler-plugin-embeddable": "org.jetbrains.kotlin.assignment",
}

# Before Kotlin 2.3.20 the K2 REPL has compiler plugins treat a snippet's classes as local classes (2.2 compiles
# them as such; 2.3.0 and 2.3.10 emit nested classes of the snippet, but plugins still see local ones). all-open
# then opens the class but not its members (its status transformer skips members of local classes) and no-arg
# refuses them ("Noarg constructor generation is not possible for local classes"). Measured in real sessions on
# 2.2.21, 2.3.0, 2.3.10 (both as described), 2.3.20 and 2.3.21 (both act as in the build); serialization and
# sam-with-receiver work on all of them.
_LOCAL_SNIPPET_CLASSES_BEFORE = (2, 3, 20)
_REFUSED_ON_LOCAL_CLASSES = {
    "kotlin-allopen-compiler-plugin": "all-open opens their class but leaves its members final",
    "kotlin-noarg-compiler-plugin": "no-arg refuses them (no default constructor)",
}


def snippet_class_warnings(environment: ReplEnvironment) -> list[str]:
    """One line per plugin that won't act on snippet-declared classes as it does on the project's."""
    if kotlin_version_tuple(environment.kotlin_version) >= _LOCAL_SNIPPET_CLASSES_BEFORE:
        return []
    jars = [Path(j).name for j in environment.compiler_plugin_classpath]
    effects = [
        effect for prefix, effect in _REFUSED_ON_LOCAL_CLASSES.items() if any(j.startswith(prefix) for j in jars)
    ]
    if not effects:
        return []
    return [
        (
            f"Kotlin {environment.kotlin_version}'s REPL has compiler plugins treat classes declared in snippets as local "
            f"classes: {'; '.join(effects)}. The project's own classes are unaffected; from Kotlin "
            f"{'.'.join(map(str, _LOCAL_SNIPPET_CLASSES_BEFORE))} on, snippet classes get these plugins as the build's classes do"
        )
    ]


def load_plugins_at_repl_version(environment: ReplEnvironment, on_progress: ProgressCallback | None = None) -> None:
    """On a project whose Kotlin has no K2 REPL, loads the build's JetBrains compiler plugins at the REPL's Kotlin
    version (a plugin must match the compiler that loads it) with the build's options, and names in a warning
    each plugin that can't come along. Changes `environment` itself."""
    project = environment.project_kotlin_version
    if project is None or project == environment.kotlin_version:
        return
    _, warning = repl_kotlin_version(project)
    environment.warnings += [warning] if warning else []
    loaded: list[str] = []
    loaded_ids: set[str] = set()
    left_out_foreign = False
    for jar in environment.compiler_plugin_classpath:
        name = Path(jar).name
        match = _JETBRAINS_PLUGIN_JAR.fullmatch(name)
        if match is None:
            if is_plugin_jar(jar):
                left_out_foreign = True
                environment.warnings.append(
                    f"compiler plugin {name} is built for Kotlin {project} and has no counterpart at Kotlin "
                    f"{environment.kotlin_version}: snippets compile without it"
                )
            continue
        artifact, version = match.groups()
        twin = jar if version == environment.kotlin_version else _twin(artifact, environment, on_progress)
        if twin is not None:
            loaded.append(twin)
            loaded_ids.add(_PLUGIN_IDS.get(artifact, artifact))
    environment.compiler_plugin_classpath = list(dict.fromkeys(loaded))
    environment.compiler_plugin_options = [
        option
        for option in environment.compiler_plugin_options
        if _plugin_id(option) in loaded_ids or (_plugin_id(option) not in _PLUGIN_IDS.values() and not left_out_foreign)
    ]


def _plugin_id(option: str) -> str:
    """org.jetbrains.kotlin.allopen of plugin:org.jetbrains.kotlin.allopen:annotation=x."""
    return option.split(":", 2)[1] if option.count(":") >= 2 else ""


def _twin(artifact: str, environment: ReplEnvironment, on_progress: ProgressCallback | None) -> str | None:
    """The plugin's jar at the REPL's Kotlin version, or None (with a warning) where it can't be fetched."""
    coordinate = Coordinate("org.jetbrains.kotlin", artifact, environment.kotlin_version, transitive=False)
    try:
        (jar,) = resolve_jars({artifact: [coordinate]}, on_progress=on_progress).by_request[artifact]
        return jar
    except GradleReplError as error:
        first_line = (str(error).strip().splitlines() or ["unknown error"])[0]
        environment.warnings.append(
            f"compiler plugin {artifact} could not be fetched at Kotlin {environment.kotlin_version} ({first_line}): "
            "snippets compile without it"
        )
        return None
