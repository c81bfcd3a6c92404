"""Chooses the build tool and returns a project's REPL environment, from the cache when still valid."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from gradle_repl import package_version
from gradle_repl.environment import ReplEnvironment, ReplJarsReady
from gradle_repl.errors import BuildFailed, BuildToolNotFound, GradleReplError
from gradle_repl.project.build_inputs import Fingerprint, Inputs
from gradle_repl.project.buildlock import build_slot, project_lock
from gradle_repl.project.buildtools import BuildTool, BuildToolChoice
from gradle_repl.project.buildtools.choice import candidates, remember
from gradle_repl.project.cache import CacheKey, EnvironmentCache
from gradle_repl.project.compiler_args import plugin_options_in, relevant_compiler_args
from gradle_repl.project.compose_support import compose_warnings
from gradle_repl.project.dependency_support import add_dependency_resolver
from gradle_repl.project.freshness import observe, remember_unchanged, stale_reason
from gradle_repl.project.junit_launcher import add_test_launcher
from gradle_repl.project.kotlin_reflect import use_project_kotlin_reflect
from gradle_repl.project.plugin_support import load_plugins_at_repl_version, snippet_class_warnings
from gradle_repl.project.process import ProgressCallback
from gradle_repl.project.recompile import SessionCompile, recompiled
from gradle_repl.project.session_classes import with_session_classes
from gradle_repl.settings import DEFAULT_BUILD_TOOL, DEFAULT_PROJECT_PATH, DEFAULT_SOURCE_SET

__all__ = ["BuildToolChoice", "Resolved", "resolve_environment"]

_PACKAGE = Path(__file__).resolve().parent
_SAYS_ERROR = re.compile(r"Exception|Error|error:|Could not|FAILED")


@dataclass(frozen=True)
class Resolved:
    environment: ReplEnvironment
    from_cache: bool
    seconds: float
    # One line per build tool that could not run before this one did (buildTool=auto).
    notices: tuple[str, ...] = ()

    def origin(self) -> str:
        return "from cache" if self.from_cache else f"resolved in {self.seconds:.1f} s"


def _check_root(project_root: str | Path) -> Path:
    root = Path(project_root).expanduser()
    if not str(project_root).strip():
        raise GradleReplError("the project root is empty; pass the absolute path of a Gradle or Maven project")
    if not root.exists():
        raise GradleReplError(f"the project root {root} does not exist")
    if not root.is_dir():
        raise GradleReplError(f"the project root {root} is not a directory")
    return root.resolve()


def resolve_environment(
    project_root: str | Path,
    *,
    project_path: str = DEFAULT_PROJECT_PATH,
    source_set: str = DEFAULT_SOURCE_SET,
    build_tool: BuildToolChoice = DEFAULT_BUILD_TOOL,
    refresh: bool = False,
    on_progress: ProgressCallback | None = None,
    cache: EnvironmentCache | None = None,
    compile_in_session: SessionCompile | None = None,
    on_repl_jars: ReplJarsReady | None = None,
) -> Resolved:
    """The environment of root's source set; with `auto`, from the first build tool that can run. `on_repl_jars` is
    called when the REPL's jars are in hand before the build ends (environment.ReplJarsReady)."""
    started = time.monotonic()
    root = _check_root(project_root)
    tools = candidates(root, build_tool)
    skipped: list[str] = []
    for index, tool in enumerate(tools):
        try:
            # Threads of this process check and build one project one at a time: a caller that waited gets
            # the environment the first one produced instead of building again.
            with project_lock(root):
                resolved = _resolve_locked(
                    root,
                    tool,
                    project_path,
                    source_set,
                    refresh,
                    on_progress,
                    cache or EnvironmentCache(),
                    started,
                    compile_in_session,
                    on_repl_jars,
                )
        except (BuildToolNotFound, BuildFailed) as error:
            couldnt_run = isinstance(error, BuildToolNotFound) or not error.started
            if not couldnt_run or index == len(tools) - 1:
                if skipped:
                    raise type(error)(f"{error}\n({'; '.join(skipped)})") from None
                raise
            skipped.append(f"{_name(tool)} could not run: {_first_line(error)}")
            if on_progress is not None:
                on_progress(f"{skipped[-1]}; trying {_name(tools[index + 1])}")
            continue
        remember(root, tool)
        notices = tuple(f"[{reason}; used {_name(tool)} instead]" for reason in skipped)
        return dataclasses.replace(resolved, notices=notices + resolved.notices)
    raise AssertionError("candidates() returns at least one tool")


def _name(tool: BuildTool) -> str:
    return tool.name.capitalize()


def _first_line(error: Exception) -> str:
    """The line of a failure that says most: what went wrong, else the first naming an error, else the last."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    body = lines[1:] or lines or [type(error).__name__]
    line = next((body[i + 1] for i, text in enumerate(body[:-1]) if text == "* What went wrong:"), None)
    line = line or next((text for text in body if _SAYS_ERROR.search(text)), body[-1])
    return line if len(line) <= 200 else line[:199] + "…"


@cache
def _resolver_code_hash() -> str:
    """gradle-repl's version and its resolver code: a new release or a local edit must not reuse old results."""
    digest = hashlib.sha256(package_version().encode())
    # Every module of the project side and the model it fills: any of them can change what a resolve reports.
    modules = [*_PACKAGE.rglob("*.py"), _PACKAGE.parent / "environment.py", _PACKAGE.parent / "testrun_settings.py"]
    for path in sorted(modules):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _cache_key(root: Path, tool: BuildTool, project_path: str, source_set: str) -> CacheKey:
    facts = {"resolver": _resolver_code_hash(), "JAVA_HOME": os.environ.get("JAVA_HOME", ""), **tool.facts()}
    return CacheKey(
        build_tool=tool.name,
        project_root=str(root),
        project_path=tool.project_key(root, project_path),
        source_set=source_set,
        facts=facts,
    )


def _resolve_locked(
    root: Path,
    tool: BuildTool,
    project_path: str,
    source_set: str,
    refresh: bool,
    on_progress: ProgressCallback | None,
    cache: EnvironmentCache,
    started: float,
    compile_in_session: SessionCompile | None = None,
    on_repl_jars: ReplJarsReady | None = None,
) -> Resolved:
    key = _cache_key(root, tool, project_path, source_set)
    entry = None if refresh else cache.get(key)
    if entry is not None:
        reason = stale_reason(entry)
        if reason is None:
            return Resolved(entry.environment, True, time.monotonic() - started)
        if on_progress is not None:
            on_progress(f"rebuilding: {reason}")
    tool.check_runnable(root)
    # Only a build takes the slot that other processes share: a cache hit, once per snippet, never waits
    # on another process's build or touches its lock file.
    with build_slot(root, on_progress) as waited:
        if waited and not refresh and (entry := cache.get(key)) is not None and stale_reason(entry) is None:
            return Resolved(entry.environment, True, time.monotonic() - started)  # built while this one waited
        if (
            entry is not None
            and (
                done := recompiled(
                    root,
                    tool,
                    entry,
                    cache,
                    key,
                    project_path=project_path,
                    source_set=source_set,
                    on_progress=on_progress,
                    compile_in_session=compile_in_session,
                )
            )
            is not None
        ):
            environment, notice = done
            return Resolved(environment, False, time.monotonic() - started, notices=(notice,) if notice else ())
        return _build(root, tool, project_path, source_set, on_progress, cache, key, started, on_repl_jars)


def _build(
    root: Path,
    tool: BuildTool,
    project_path: str,
    source_set: str,
    on_progress: ProgressCallback | None,
    cache: EnvironmentCache,
    key: CacheKey,
    started: float,
    on_repl_jars: ReplJarsReady | None,
) -> Resolved:
    inputs = tool.inputs(root)
    # Watched and fingerprinted before the build: an edit while it runs makes this entry stale.
    mark = observe(inputs.trees)
    fingerprint = Fingerprint.take(inputs)
    resolved_at = time.time()
    if on_progress is not None:
        on_progress(f"resolving {root} ({tool.name}, project {project_path}, source set {source_set})")
    environment = tool.resolve(
        root, project_path=project_path, source_set=source_set, on_progress=on_progress, on_repl_jars=on_repl_jars
    )
    # An output directory the build never made (a pom-packaged module, a module without main sources) holds nothing;
    # kept, it would read as "no longer exists" on every later check and rebuild the project each time.
    environment.classpath = [entry for entry in environment.classpath if os.path.exists(entry)]
    # The build's output wins: classes a session compiled for an earlier edit are dropped (project/session_classes.py).
    with_session_classes(environment)
    # One filter for every build tool: plugin options given as free arguments (`-P plugin:…`) join the plugins'
    # options, and of the rest only arguments that change what code compiles reach the REPL.
    free = plugin_options_in(environment.compiler_args)
    environment.compiler_plugin_options = list(dict.fromkeys(environment.compiler_plugin_options + free.options))
    environment.warnings += [
        f"compiler argument -P {value!r} is not a plugin option (plugin:<id>:<option>=<value>); snippets compile without it"
        for value in free.malformed
    ]
    environment.compiler_args = relevant_compiler_args(free.rest)
    # The environment is the resolve's own until stored: the helpers below change it, each named by its verb (a
    # `with_*` name returns a copy instead, as ReplEnvironment.with_options and _with_reported_dirs do).
    load_plugins_at_repl_version(environment, on_progress)
    environment.warnings += snippet_class_warnings(environment) + compose_warnings(environment)
    use_project_kotlin_reflect(environment)
    add_dependency_resolver(environment, on_progress)
    add_test_launcher(environment, on_progress)
    fingerprint = _with_reported_dirs(fingerprint, inputs, environment)
    environment.build_inputs_hash = fingerprint.build_hash()
    environment.sources_stamp = resolved_at
    stored = cache.put(key, environment, fingerprint, resolved_at=resolved_at)
    remember_unchanged(stored, mark)
    return Resolved(environment, False, time.monotonic() - started)


def _with_reported_dirs(fingerprint: Fingerprint, inputs: Inputs, environment: ReplEnvironment) -> Fingerprint:
    """Adds the input directories the build reported that the tool's own reading missed."""
    known = [Path(t) for t in fingerprint.trees]
    extra = tuple(
        Path(d)
        for d in dict.fromkeys(environment.input_dirs)
        if Path(d).is_dir() and not any(Path(d).is_relative_to(t) for t in known)
    )
    if not extra:
        return fingerprint
    more = Fingerprint.take(Inputs(trees=extra, is_build_file=inputs.is_build_file))
    return Fingerprint(
        trees=fingerprint.trees + more.trees,
        files=fingerprint.files,
        stats={**fingerprint.stats, **more.stats},
        build_hashes={**fingerprint.build_hashes, **more.build_hashes},
    )
