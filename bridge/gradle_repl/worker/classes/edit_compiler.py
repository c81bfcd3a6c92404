"""Edited sources of the session's own module compiled in the worker, as IntelliJ's HotSwap compiles only the changed
files with the IDE's warm compiler.

The changed Kotlin files go through `K2JVMCompiler` (kotlin-compiler-embeddable, already on this JVM's class path for
the REPL) with the project's compiler plugins, their options, its free arguments and JVM target, its module name (so
`internal` resolves as in the build) and its class path, gradle-repl's own output directory first; the changed Java
files through the JDK's `javax.tools` compiler. Each compile writes to a fresh staging directory: only when every
class it wrote could be what the build tool would write too — no class's shape changed (a member added or removed,
supertypes, modifiers: the JVM could not redefine it, and the build tool must see the change) and no constant's value
changed (other files hold the old value) — are the class files moved into the output directory, which stands ahead
of the build's on the session's class path. Errors only in the edited files are reported as the build tool reports
them; errors elsewhere, or anything unexpected, hand the edit to the build tool.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import CompileRequest, CompileResult
from gradle_repl.worker.classes.class_files import constant_changed, read_class, refusal
from gradle_repl.worker.java import JavaException, java_class, string_array
from gradle_repl.worker.kotlinc import DIAGNOSTIC, kotlinc
from gradle_repl.worker.results.safety import jstr

__all__ = ["EditCompiler"]

# Where a jar declares annotation processors for javac's discovery (java.util.ServiceLoader).
_PROCESSOR_SERVICE = "META-INF/services/javax.annotation.processing.Processor"


class EditCompiler:
    """Compiles a session's edited sources against its environment."""

    def __init__(self, environment: ReplEnvironment) -> None:
        self._environment = environment

    def compile(self, request: CompileRequest) -> CompileResult:
        staging = Path(tempfile.mkdtemp(prefix="gradle-repl-edit-"))
        try:
            return self._compiled(request, staging)
        except JavaException as error:  # the compiler itself failed: the build tool decides
            return CompileResult(fall_back=f"the session's compiler failed ({error})")
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _compiled(self, request: CompileRequest, staging: Path) -> CompileResult:
        kotlin = [f for f in request.files if f.endswith(".kt")]
        java = [f for f in request.files if f.endswith(".java")]
        output = Path(request.output_dir)
        # Main sources edited in a test session compile as the build compiles them: without the test outputs.
        hidden = {output, *(Path(d) for d in request.hidden_dirs)}
        classpath = [str(output), *(p for p in self._environment.classpath if Path(p) not in hidden)]
        if kotlin:
            # Java files go along so that Kotlin sees their new declarations; kotlinc writes no class for them.
            errors = kotlinc([*kotlin, *java, "-d", str(staging), *self._kotlin_options(request, classpath)])
            if errors is not None:
                return _errors(errors, request.files)
        if java and (processor := _annotation_processor(classpath)) is not None:
            return CompileResult(fall_back=f"javac would run the annotation processor in {Path(processor).name}")
        if java:
            errors = _javac(java, staging, [str(staging), *classpath], self._environment)
            if errors is not None:
                return _errors(errors, request.files)
        written = sorted(p for p in staging.rglob("*.class"))
        names = [p.relative_to(staging).as_posix().removesuffix(".class").replace("/", ".") for p in written]
        if (why := _differs_from_build(names, written, classpath)) is not None:
            return CompileResult(fall_back=why)
        for path in (p for p in staging.rglob("*") if p.is_file()):
            target = output / path.relative_to(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
        return CompileResult(classes=names)

    def _kotlin_options(self, request: CompileRequest, classpath: list[str]) -> list[str]:
        env = self._environment
        friends = [f"-Xfriend-paths={','.join(request.friend_dirs)}"] if request.friend_dirs else []
        # The build's options (ReplEnvironment's): the session's opt-ins are for snippets, not the project.
        options = env.compiler_options()
        return [
            "-classpath",
            os.pathsep.join(classpath),
            "-module-name",
            request.module_name,
            "-no-stdlib",
            "-no-reflect",
            *friends,
            *options,
        ]


def _javac(files: list[str], staging: Path, classpath: list[str], env: ReplEnvironment) -> list[str] | None:
    compiler = java_class("javax.tools.ToolProvider").getSystemJavaCompiler()
    if compiler is None:
        return ["this JVM has no Java compiler (a JRE, not a JDK)"]
    release = ["--release", env.jvm_target] if env.jvm_target and env.jvm_target.isdigit() else []
    buffer = java_class("java.io.ByteArrayOutputStream")()
    code = compiler.run(
        None,
        buffer,
        buffer,
        string_array(
            [
                "-d",
                str(staging),
                "-classpath",
                os.pathsep.join(classpath),
                "-proc:none",
                # Local variable names and lines, as Maven's and Gradle's Java compiles write them by default (probes
                # show a method's locals by them).
                "-g",
                *release,
                *files,
            ]
        ),
    )
    return None if int(code) == 0 else (jstr(buffer.toString("UTF-8")).splitlines() or ["javac failed"])


def _annotation_processor(classpath: list[str]) -> str | None:
    """The first class path jar javac would find an annotation processor in (it runs those it finds by default)."""
    for entry in (p for p in classpath if p.endswith(".jar") and os.path.isfile(p)):
        try:
            with zipfile.ZipFile(entry) as jar:
                if _PROCESSOR_SERVICE in jar.namelist():
                    return entry
        except (OSError, zipfile.BadZipFile):
            continue
    return None


def _errors(lines: list[str], edited: list[str]) -> CompileResult:
    """The edited files' errors as the build tool gives them; errors elsewhere or unreadable ones are the build tool's."""
    found = []
    for line in lines:
        match = DIAGNOSTIC.match(line.strip())
        if match is None:
            continue
        if not any(Path(match["file"]).resolve() == Path(file).resolve() for file in edited):
            return CompileResult(
                fall_back=f"the compile reports errors in {Path(match['file']).name}, which was not edited"
            )
        column = f":{match['column']}" if match["column"] else ""
        found.append(f"{match['file']}:{match['line']}{column}: {match['message']}")
    if not found:
        return CompileResult(fall_back="the session's compiler failed: " + (lines[0] if lines else "no message"))
    return CompileResult(errors=found)


def _differs_from_build(names: list[str], written: list[Path], classpath: list[str]) -> str | None:
    """Why classes compiled so could differ from the build tool's; None when they can't."""
    for name, path in zip(names, written, strict=False):
        before = _class_file(name, classpath)
        if before is None:
            continue  # a new class: loadable from the output directory, nothing compiled against it yet
        old, new = read_class(before.read_bytes()), read_class(path.read_bytes())
        if (why := refusal(old, new)) is not None:
            return f"the class shape changed ({name}: {why})"
        if (constant := constant_changed(old, new)) is not None:
            return f"a const val's value changed ({name}.{constant})"
    return None


def _class_file(name: str, classpath: list[str]) -> Path | None:
    """The class file the session's loader finds first for name."""
    relative = name.replace(".", "/") + ".class"
    return next((Path(d) / relative for d in classpath if os.path.isdir(d) and (Path(d) / relative).is_file()), None)
