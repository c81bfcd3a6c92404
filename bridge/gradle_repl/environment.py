"""The resolved REPL environment of a project and the parser of the init script's markers.

The Gradle init script prints `[gradle-mcp-repl-env] <nonce> key=value` lines among Gradle's own
output. The nonce is fresh per run (passed as -Pgradle-repl.nonce), so text a build script prints can
never pass for a marker; only lines that *begin* with the marker and this run's nonce count.
List-valued keys repeat once per entry, in order; `end=true` closes a complete run, so a cut-off
run is told apart from a finished one. The tables below are the one list of the keys: the script gets the marker and
its keys from them (`init_script_declarations`, written into the script handed to Gradle), so it can emit no other.

A session's worker starts from a SessionSpec: this environment, the session's options and its placement.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from gradle_repl.errors import EnvironmentIncomplete
from gradle_repl.options import SessionOptions
from gradle_repl.settings import DEFAULT_PROJECT_PATH, DEFAULT_SOURCE_SET
from gradle_repl.testrun_settings import TestRunSettings, jvm_options

__all__ = [
    "OwnJvm",
    "Attached",
    "Placement",
    "AttachedOverTcp",
    "SessionSpec",
    "MARKER",
    "DEPENDS_ON_UNAVAILABLE",
    "COMPOSE_PLUGIN_MISSING",
    "SKIKO_RUNTIME_MISSING",
    "BuildToolChoice",
    "BuildToolName",
    "EditSources",
    "ReplEnvironment",
    "ReplJarsReady",
    "is_plugin_jar",
    "MARKER_KEYS",
    "init_script_declarations",
    "marker_prefix",
    "new_nonce",
    "parse_markers",
]

MARKER = "[gradle-mcp-repl-env]"
# How every reason that @file:DependsOn can't be used begins, on the project side and in the worker alike.
DEPENDS_ON_UNAVAILABLE = "@file:DependsOn is unavailable"
# How the project side's lines about a Compose session's gaps begin; the worker finds them by it for its hints.
COMPOSE_PLUGIN_MISSING = "Compose UI is on the classpath but the Compose compiler plugin is not applied to snippets"
SKIKO_RUNTIME_MISSING = "Compose can't draw in this session: the runtime classpath has no Skiko native library"
# The build tools in buildtools/ by name; a new one adds its name here.
BuildToolName = Literal["gradle", "maven"]
# What a caller may ask for: one of them, or the first that can run.
BuildToolChoice = Literal["auto", "gradle", "maven"]
# Compose Multiplatform's UI for the JVM (org.jetbrains.compose.ui:ui-desktop) and the Compose compiler plugin of
# Kotlin 2.0+ (kotlin-compose-compiler-plugin, -embeddable for the embeddable compiler the REPL uses).
_COMPOSE_UI_JAR = re.compile(r"ui-desktop-\d[\w.+-]*\.jar")
_COMPOSE_PLUGIN_JAR = re.compile(r"kotlin-compose-compiler-plugin(-embeddable)?-\d[\w.+-]*\.jar")

_REQUIRED = ("javaExecutable", "javaHome", "kotlinVersion", "replHostClasspath")
_LIST_KEYS = {
    "classpath": "classpath",
    "pluginClasspath": "compiler_plugin_classpath",
    "pluginOption": "compiler_plugin_options",
    "compilerArg": "compiler_args",
    "replHostClasspath": "repl_host_classpath",
    "warning": "warnings",
    "inputDir": "input_dirs",
    "repository": "repositories",
}
# The test task's settings (a test source set's): list keys into TestRunSettings; `testTask` names the task and says
# there is one; `key=value` entries (system properties, environment) split at their first '='.
_TEST_LIST_KEYS = {
    "testInclude": "includes",
    "testExclude": "excludes",
    "testIncludeTag": "include_tags",
    "testExcludeTag": "exclude_tags",
    "testJvmArg": "jvm_args",
    "testNotApplied": "not_applied",
}
_TEST_MAP_KEYS = {"testSystemProperty": "system_properties", "testEnvironment": "environment"}
# How an edit of the source set's own sources compiles in the session (EditSources); `editModuleName` says the build
# reported them. The output dir is gradle-repl's, set after the resolve (session_classes.py).
_EDIT_LIST_KEYS = {"editRoot": "roots", "editFriendDir": "friend_dirs"}
_EDIT_SCALAR_KEYS = {"editModuleName": "module_name", "editUnavailable": "unavailable"}
_SCALAR_KEYS = {
    "javaExecutable": "java_executable",
    "javaHome": "java_home",
    "kotlinVersion": "kotlin_version",
    "projectKotlinVersion": "project_kotlin_version",
    "jvmTarget": "jvm_target",
    "projectPath": "project_path",
    "projectDir": "project_dir",
    "sourceSet": "source_set",
}
# The last line of a complete run, and the key that says the source set has a test task (and names it).
_END = "end"
_TEST_TASK = "testTask"
# Every key a marker line may carry, in the tables' order: the init script's `MarkerKey` entries.
MARKER_KEYS: tuple[str, ...] = (
    *_LIST_KEYS,
    *_SCALAR_KEYS,
    _TEST_TASK,
    *_TEST_LIST_KEYS,
    *_TEST_MAP_KEYS,
    *_EDIT_LIST_KEYS,
    *_EDIT_SCALAR_KEYS,
    _END,
)


class EditSources(BaseModel):
    """What the session needs to compile an edit of its own module's sources itself, as the build would."""

    roots: list[str] = Field(description="the source set's Kotlin and Java source directories")
    module_name: str = Field(description="the compiler's -module-name in the build (`internal` is per module)")
    friend_dirs: list[str] = Field(default_factory=list, description="class outputs whose internals the sources see")
    output_dir: str = Field(
        default="", description="gradle-repl's class output, first on the class path; set by the resolve"
    )
    unavailable: str | None = Field(default=None, description="why every edit goes to the build tool (kapt, KSP, ...)")
    hidden_dirs: list[str] = Field(
        default_factory=list,
        description="class path entries the compile must not see: a test source set's outputs, for its main sources",
    )
    stale_outputs: list[str] = Field(
        default_factory=list,
        description=(
            "what the build tool leaves a deleted source's classes in (kotlin-maven-plugin compiles over its output "
            "and removes nothing): emptied before it compiles an edit that deleted a source file"
        ),
    )
    main_sources: EditSources | None = Field(
        default=None,
        description=(
            "a test source set's main sources, which its edit loop compiles too (into the main source set's own "
            "directory, as the build's test-compile compiles main first); None for a main source set"
        ),
    )


class ReplEnvironment(BaseModel):
    """Everything a worker needs to run a project's code in a Kotlin REPL."""

    build_tool: BuildToolName | None = Field(
        description="the build tool that resolved it; None for a running JVM attached to without a project"
    )
    project_root: str
    project_path: str = DEFAULT_PROJECT_PATH
    source_set: str = DEFAULT_SOURCE_SET
    project_dir: str | None = Field(
        default=None, description="the module's directory; the worker JVM's working directory"
    )
    java_executable: str
    java_home: str
    kotlin_version: str = Field(description="the REPL compiler's version (the project's, when it has a K2 REPL)")
    project_kotlin_version: str | None = Field(default=None, description="the build's Kotlin, when it differs")
    jvm_target: str | None = None
    classpath: list[str] = Field(default_factory=list, description="runtime classpath, outputs first")
    compiler_plugin_classpath: list[str] = Field(default_factory=list)
    compiler_plugin_options: list[str] = Field(default_factory=list, description="each as plugin:<id>:<key>=<value>")
    compiler_args: list[str] = Field(default_factory=list, description="free args that change compilation")
    repl_host_classpath: list[str] = Field(default_factory=list, description="REPL compiler and scripting jars")
    repositories: list[str] = Field(
        default_factory=list,
        description="the build's Maven repositories, searched by @file:DependsOn before Maven Central",
    )
    dependency_resolver_classpath: list[str] = Field(
        default_factory=list,
        description="Kotlin scripting's Maven resolver for @file:DependsOn; empty when unavailable",
    )
    dependency_resolver_unavailable: str | None = Field(
        default=None, description="why @file:DependsOn can't be used (also one of the warnings); None when it can"
    )
    warnings: list[str] = Field(default_factory=list)
    input_dirs: list[str] = Field(
        default_factory=list, description="directories the build reads (source dirs, included builds), for staleness"
    )
    build_inputs_hash: str = ""
    sources_stamp: float = Field(default=0.0, description="when the build compiled the sources it reports")
    test_settings: TestRunSettings | None = Field(
        default=None,
        description="the build's test configuration; set for a test source set whose build configures its tests",
    )

    edit_sources: EditSources | None = Field(
        default=None,
        description="how an edit of the source set's own sources compiles in the session; None: by the build tool",
    )

    def compiler_options(self) -> list[str]:
        """The build's compiler options: plugins, their options, free args, the JVM target (a session's opt-ins are
        SessionSpec.compiler_options's)."""
        plugins = [f"-Xplugin={jar}" for jar in self.compiler_plugin_classpath if is_plugin_jar(jar)]
        options: list[str] = []
        for option in self.compiler_plugin_options:
            options += ["-P", option]
        target = ["-jvm-target", self.jvm_target] if self.jvm_target else []
        return plugins + options + self.compiler_args + target

    def has_compose_ui(self) -> bool:
        """Whether Compose UI for the JVM is on the runtime classpath (what renderComposable needs)."""
        return any(_COMPOSE_UI_JAR.fullmatch(_jar_name(entry)) for entry in self.classpath)

    def compose_compiler_plugin(self) -> str | None:
        """The Compose compiler plugin jar snippets compile with, or None: then they can't declare @Composable functions."""
        return next(
            (jar for jar in self.compiler_plugin_classpath if _COMPOSE_PLUGIN_JAR.fullmatch(_jar_name(jar))), None
        )

    def summary(self) -> str:
        """A few lines for a person: what was resolved."""
        plugins = [_plugin_name(jar) for jar in self.compiler_plugin_classpath if is_plugin_jar(jar)]
        lines = [
            f"Build tool:        {self.build_tool}",
            f"Project:           {self.project_root} (project {self.project_path}, source set {self.source_set})",
            f"Kotlin version:    {self.kotlin_version}",
            f"JDK:               {self.java_home}",
            f"Classpath entries: {len(self.classpath)}",
            f"Compiler plugins:  {', '.join(plugins) if plugins else 'none'}",
        ]
        lines += [f"Warning:           {w}" for w in self.warnings]
        return "\n".join(lines)


# What a session's worker starts from: the resolved environment above, the session's options, and where its snippets
# run (its placement) — in a JVM of the session's own, or in a running JVM it is attached to. Each layer decides by the
# placement's type, in one place: the host (an attached session is never resolved again, nor given a spare), the
# worker's boot (which runner, which agent).


class OwnJvm(BaseModel):
    """The snippets run in the worker's own JVM, on the project's class path."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["own"] = "own"


class Attached(BaseModel):
    """The snippets run in the running JVM `pid`: compiled in the worker, evaluated by the agent in that JVM."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["attached"] = "attached"
    pid: int


class AttachedOverTcp(BaseModel):
    """The snippets run in the JVM whose agent listens at `address` (`host:port`), reached over TCP with `token`: an app
    in a container, on another host or in a pod. Nothing of it is a file or a pid here."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["tcp"] = "tcp"
    address: str
    token: str = Field(repr=False, description="the agent's token: never shown, logged or echoed")
    run: str = Field(description="the app's run its agent named when the session attached (a restart names another)")

    def __str__(self) -> str:
        return f"the app at {self.address}"


Placement = Annotated[OwnJvm | Attached | AttachedOverTcp, Field(discriminator="kind")]


class SessionSpec(BaseModel):
    """Everything a session's worker starts from."""

    environment: ReplEnvironment
    options: SessionOptions = Field(default_factory=SessionOptions, description="what the session's first call chose")
    placement: Placement = Field(default_factory=OwnJvm)

    @property
    def attached_pid(self) -> int | None:
        """The running JVM the snippets run in, when the session is attached to one on this machine by its pid."""
        return self.placement.pid if isinstance(self.placement, Attached) else None

    @property
    def attached_address(self) -> str | None:
        """The address of the agent the snippets run behind, when the session is attached over TCP."""
        return self.placement.address if isinstance(self.placement, AttachedOverTcp) else None

    @property
    def is_attached(self) -> bool:
        return not isinstance(self.placement, OwnJvm)

    def compiler_options(self) -> list[str]:
        """The REPL compiler's options: the environment's (plugins, their options, free args, JVM target), then the
        session's opt-ins."""
        return [*self.environment.compiler_options(), *self.options.compiler_options()]

    def with_options(self, options: SessionOptions) -> SessionSpec:
        """This spec for a session with these options."""
        return self if options == self.options else self.model_copy(update={"options": options})

    def plain(self) -> SessionSpec:
        """The spec of a worker started ahead of a session on this environment (a spare, a trainer): the default
        options, in a JVM of its own."""
        return SessionSpec(environment=self.environment)


# What a resolve calls once the REPL's jars are in hand while its build still runs (a machine's first Maven resolve
# fetches them beside the build): with an environment that holds only the JDK, the REPL's Kotlin and its jars (host,
# compiler plugins, @file:DependsOn's resolver), so the host can compile what a worker needs before the build ends.
# Called on the thread that fetched the jars, at most once per resolve, maybe after the resolve ended (when its build
# failed); it must return at once.
ReplJarsReady = Callable[[ReplEnvironment], None]


# KGP's compiler-plugin classpath carries the plugins' own dependencies too: the scripting plugin, the
# compiler, the stdlib and their libraries. The REPL host brings its own copies, and handing any of them
# to the compiler as a plugin breaks compilation or loads a second copy.
_NOT_PLUGINS = (
    "kotlin-scripting-",
    "kotlin-compiler",
    "kotlin-stdlib",
    "kotlin-script-runtime",
    "kotlin-reflect",
    "kotlin-daemon",
    "kotlinx-coroutines-",
    "annotations-",
    "trove4j",
)


def is_plugin_jar(jar: str) -> bool:
    return not _jar_name(jar).startswith(_NOT_PLUGINS)


def _jar_name(jar: str) -> str:
    return jar.replace("\\", "/").rsplit("/", 1)[-1]


def _plugin_name(jar: str) -> str:
    return _jar_name(jar).removesuffix(".jar")


def new_nonce() -> str:
    """A fresh per-run token for the init script's marker lines."""
    return secrets.token_hex(8)


def init_script_declarations() -> str:
    """The marker and its keys as the init script names them: `enum class MarkerKey`, one entry per key, named as it is
    printed, and the marker as its `MARKER`; so the script's `emit(MarkerKey.classpath, ...)` can say no key this
    parser lacks. Class declarations only: they go at the script's end, among its classes."""
    return "\n".join(
        [
            "// Generated from bridge/gradle_repl/environment.py, the one table of the markers' keys: not to be edited.",
            "/** The keys a marker line carries (`key=value`), each named as it is printed. */",
            "enum class MarkerKey {",
            ",\n".join(f"    {key}" for key in MARKER_KEYS) + ";",
            "",
            "    companion object {",
            "        /** What every marker line begins with, before the run's nonce. */",
            f'        const val MARKER = "{MARKER}"',
            "    }",
            "}",
            "",
        ]
    )


def marker_prefix(nonce: str) -> str:
    """What every marker line of the run with this nonce begins with."""
    return f"{MARKER} {nonce} "


def parse_markers(
    lines: Iterable[str],
    *,
    nonce: str,
    build_tool: BuildToolName,
    project_root: str,
    project_path: str,
    source_set: str,
) -> ReplEnvironment:
    """Builds the environment from a build's output; lines not starting with this run's marker are ignored.

    Raises EnvironmentIncomplete naming every missing key, or saying the run was cut off.
    """
    prefix = marker_prefix(nonce)
    values: dict[str, object] = {"project_path": project_path, "source_set": source_set}
    lists: dict[str, list[str]] = {field: [] for field in _LIST_KEYS.values()}
    seen: set[str] = set()
    test_lists: dict[str, list[str]] = {field: [] for field in _TEST_LIST_KEYS.values()}
    test_maps: dict[str, dict[str, str]] = {field: {} for field in _TEST_MAP_KEYS.values()}
    edit_lists: dict[str, list[str]] = {field: [] for field in _EDIT_LIST_KEYS.values()}
    edit_values: dict[str, str] = {}
    ended = False
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line.startswith(prefix):
            continue
        key, sep, value = line[len(prefix) :].partition("=")
        if not sep:
            continue
        seen.add(key)
        if key == _END:
            ended = True
        elif key in _LIST_KEYS:
            lists[_LIST_KEYS[key]].append(value)
        elif key in _SCALAR_KEYS:
            values[_SCALAR_KEYS[key]] = value
        elif key in _TEST_LIST_KEYS:
            test_lists[_TEST_LIST_KEYS[key]].append(value)
        elif key in _TEST_MAP_KEYS:
            name, _, entry = value.partition("=")
            test_maps[_TEST_MAP_KEYS[key]][name] = entry
        elif key in _EDIT_LIST_KEYS:
            edit_lists[_EDIT_LIST_KEYS[key]].append(value)
        elif key in _EDIT_SCALAR_KEYS:
            # Several reasons (an unreadable setting and kapt): the first is told.
            edit_values.setdefault(_EDIT_SCALAR_KEYS[key], value)
    missing = [key for key in _REQUIRED if key not in seen]
    if not ended:
        raise EnvironmentIncomplete(
            "the build's output ended before the REPL environment was complete (no end marker)"
            + (f"; missing: {', '.join(missing)}" if missing else "")
        )
    if missing:
        raise EnvironmentIncomplete(f"the build did not report: {', '.join(missing)}")
    if _TEST_TASK in seen:
        test_lists["jvm_args"] = jvm_options(test_lists["jvm_args"])
        values["test_settings"] = TestRunSettings.model_validate({**test_lists, **test_maps})
    if "editModuleName" in seen:
        values["edit_sources"] = EditSources.model_validate({**edit_lists, **edit_values})
    return ReplEnvironment.model_validate({"build_tool": build_tool, "project_root": project_root, **values, **lists})
