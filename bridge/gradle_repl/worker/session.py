"""One REPL session inside the worker: the JVM, the facade's K2 REPL and the snippet loop."""

from __future__ import annotations

import base64
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jpype

from gradle_repl.frames import DescribeRequest, DisplayFrame, EvalRequest, ReadyFrame, ResultFrame, StartRequest, StreamFrame
from gradle_repl.errors import WorkerFailed
from gradle_repl.environment import DEPENDS_ON_UNAVAILABLE
from gradle_repl.worker import classdata
from gradle_repl.worker.declarations import Declarations
from gradle_repl.worker.failed_uses import FailedSnippet, FailedUse, explain_use_of_failed
from gradle_repl.worker.facade import build_dependency_addon, build_facade
from gradle_repl.worker.jvm import start_jvm
from gradle_repl.worker.kotlin_types import kotlin_type_name
from gradle_repl.worker.memory import HeapWatch
from gradle_repl.worker.plugin_hints import serialization_hint, with_hint
from gradle_repl.worker.safety import cap_text, jstr
from gradle_repl.worker.report import Diagnostic, StackFrame, ThrowableInfo, format_diagnostic, format_throwable

__all__ = ["ReplSession"]

# How often the loop collects output while a snippet runs: short enough that ordering across
# threads stays tight, long enough not to burn a core.
POLL_INTERVAL_MS = 20
# After Thread.interrupt(), how long a snippet gets to stop before the worker gives up on it.
# Unwinding an interrupted snippet through the REPL's evaluator takes well under a second, but seconds
# on a machine loaded by builds; a snippet still running after this is taken to ignore interruption.
INTERRUPT_GRACE_SECONDS = 6.0
# A cancel during compilation waits for the compiler (it can't be interrupted); past this it is stuck.
COMPILE_AFTER_CANCEL_SECONDS = 60.0

WARM_UP_SNIPPET = "kotlin.Unit"
_TRAINING_SNIPPETS = (
    "data class TrainingPoint(val x: Int, val y: Int = 0)",
    'listOf(TrainingPoint(1), TrainingPoint(2)).map { "${it.x}" }.joinToString()',
    "object TrainingObject { fun f(n: Int): Int = if (n < 2) n else f(n - 1) }\nrunCatching { TrainingObject.f(3) }",
)
_HOST_RUNTIME_JARS = ("kotlin-stdlib-", "kotlin-script-runtime-")
# kotlin-scripting-dependencies-<version>.jar (not -maven-): DependsOn and Repository, shared with the host loader.
_DEPENDENCY_ANNOTATIONS_JAR = re.compile(r"kotlin-scripting-dependencies-\d")
_FILE_DEPENDS_ON = re.compile(r"^\s*@file\s*:\s*(?:DependsOn|Repository)\b", re.MULTILINE)

# The REPL numbers snippets from the warm-up on; users count from their own first snippet.
_WARM_UP_SNIPPETS = 1
# Cause chains can be cyclic; a readable report never needs more than this many.
_MAX_CAUSES = 20

Send = Callable[[Any], None]


class _ClassData:
    """Which class-data archive this JVM maps, or writes when it is the training worker."""

    def __init__(self, archive: Path | None, *, train: bool) -> None:
        self.archive = archive
        self.train = train
        self.mapped = archive if archive is not None and not train and archive.is_file() else None
        self._written = archive.with_name(f"{archive.name}.{os.getpid()}.tmp") if archive and train else None

    @classmethod
    def for_request(cls, request: StartRequest) -> _ClassData:
        env = request.environment
        wanted = request.class_data_sharing or request.train_class_data
        archive = classdata.archive_path(env.java_home, env.repl_host_classpath) if wanted else None
        return cls(archive, train=request.train_class_data)

    def jvm_options(self) -> list[str]:
        if self._written is not None:
            return [f"-XX:ArchiveClassesAtExit={self._written}"]
        if self.mapped is not None:
            # auto: an archive the JVM finds unusable is skipped with a warning in the worker log.
            return [f"-XX:SharedArchiveFile={self.mapped}", "-Xshare:auto"]
        return []

    def write(self) -> None:
        if self._written is None or self.archive is None:
            raise WorkerFailed("this worker was not started to write a class-data archive")
        jpype.shutdownJVM()  # the JVM writes the archive while it shuts down
        if self._written.is_file():
            os.replace(self._written, self.archive)
        else:
            classdata.mark_training_failed(self.archive, "the JVM wrote no archive; see the worker log")


def _jar_name(path: str) -> str:
    return Path(path).name


class ReplSession:
    """Created by start(); evaluate() answers one request; exit_code set means: reply, then exit."""

    def __init__(self, request: StartRequest, driver: Any, output: Any, renderer: Any, class_data: _ClassData) -> None:
        self._request = request
        self._class_data = class_data
        self._heap = HeapWatch()
        self._exit_guard: Any = None
        # Snippets that failed, by the REPL's number: it still lets later snippets see their declarations.
        self._failed: dict[int, FailedSnippet] = {}
        self._declarations = Declarations()
        self._libraries_unavailable: str | None = None
        # Said with an error about serializers when snippets can't have them; None when they can.
        self._serialization_hint = serialization_hint(request.environment)
        self._driver = driver
        self._output = output
        self._renderer = renderer
        self.exit_code: int | None = None

    @classmethod
    def start(cls, request: StartRequest) -> tuple[ReplSession, ReadyFrame]:
        started = time.monotonic()
        env = request.environment
        class_data = _ClassData.for_request(request)
        # DependsOn/Repository go on the JVM's classpath: the compiler loads them by name from there. Maven's
        # resolver stays in the facade's loader, out of the compiler's and the project's way.
        annotations = [p for p in env.dependency_resolver_classpath if _DEPENDENCY_ANNOTATIONS_JAR.match(_jar_name(p))]
        resolver = [p for p in env.dependency_resolver_classpath if p not in annotations]
        start_jvm(
            env.java_home, [*env.repl_host_classpath, *annotations],
            heap_mb=request.heap_mb, full_jit=request.full_jit, extra_options=class_data.jvm_options(),
        )
        facade, compiled = build_facade(env.kotlin_version, env.repl_host_classpath)
        # Why @file:DependsOn can't be used in this session; None when it can.
        libraries_unavailable = env.dependency_resolver_unavailable or DEPENDS_ON_UNAVAILABLE
        addon: Path | None = None
        if env.dependency_resolver_classpath:
            try:
                addon, _ = build_dependency_addon(env.kotlin_version, [*env.repl_host_classpath, str(facade), *env.dependency_resolver_classpath])
            except WorkerFailed as error:  # an optional add-on: the session starts without it
                libraries_unavailable = f"{DEPENDS_ON_UNAVAILABLE}: its add-on did not compile ({str(error).splitlines()[0]})"
        jars = [str(facade), *([str(addon), *resolver] if addon is not None else [])]
        urls = [jpype.JClass("java.io.File")(jar).toURI().toURL() for jar in jars]
        system = jpype.JClass("java.lang.ClassLoader").getSystemClassLoader()
        facade_loader = jpype.JClass("java.net.URLClassLoader")(urls, system)

        def facade_class(name: str) -> Any:
            return jpype.JClass(name, loader=facade_loader)

        output = facade_class("gradlerepl.runtime.ReplOutput")
        output.install()
        exit_guard = facade_class("gradlerepl.host.ExitGuard")
        exit_guard.install()
        snippet_loader = facade_class("gradlerepl.host.SnippetClassLoaders").create(env.classpath, facade_loader)
        libraries = None
        if addon is not None:
            try:
                libraries = facade_class("gradlerepl.dependencies.AddedLibraries")(env.classpath, env.repositories)
                libraries_unavailable = None
            except (jpype.JException, TypeError) as error:
                libraries_unavailable = f"{DEPENDS_ON_UNAVAILABLE}: its resolver could not be made ({error})"
        driver = facade_class("gradlerepl.host.ReplDriver")(
            _compile_classpath(env.classpath, env.repl_host_classpath, str(facade), annotations),
            snippet_loader,
            env.compiler_options(),
            libraries,
        )
        session = cls(request, driver, output, facade_class("gradlerepl.runtime.Renderer"), class_data)
        session._exit_guard = exit_guard
        session._libraries_unavailable = libraries_unavailable
        session._warm_up()
        ready = ReadyFrame(
            pid=os.getpid(),
            kotlin_version=env.kotlin_version,
            java_version=str(jpype.JClass("java.lang.System").getProperty("java.version")),
            facade_compiled=compiled,
            startup_ms=int((time.monotonic() - started) * 1000),
            class_data_archive=str(class_data.mapped) if class_data.mapped else None,
        )
        if request.train_class_data:
            session._train()
        return session, ready

    def write_class_data(self) -> None:
        """Training only: ends the JVM, which writes the archive, and moves it into place."""
        self._class_data.write()

    def _train(self) -> None:
        """Compiles what typical snippets need (a class, a lambda, a template), so the archive holds it."""
        for code in _TRAINING_SNIPPETS:
            running = self._driver.start(code)
            running.join(0)
        self._output.drain()

    def _warm_up(self) -> None:
        """Runs a first snippet that cannot fail.

        The K2 REPL emits its shared state class into the first snippet it compiles; if a user's
        first snippet failed to compile, every later one would fail with NoClassDefFoundError.
        It also loads the compiler, so the user's first snippet comes back as fast as later ones.
        """
        running = self._driver.start(WARM_UP_SNIPPET)
        running.join(0)  # Thread.join(0): wait until done
        outcome = running.getOutcome()
        if outcome is None or not outcome.compiled or outcome.result is None:
            detail = [str(d.getMessage()) for d in outcome.diagnostics] if outcome is not None else []
            if outcome is not None and outcome.internalError is not None:
                detail.append("\n".join(format_throwable(_chain(outcome.internalError))))
            raise WorkerFailed(f"the Kotlin REPL failed its warm-up snippet: {detail}")
        self._output.drain()

    def evaluate(self, request: EvalRequest, send: Send, cancel: threading.Event) -> None:
        """Runs one snippet, sending its output as it comes and its result last; a timeout or a set
        `cancel` stops it the same way (interrupt, then give up on the JVM)."""
        started = time.monotonic()
        if self._libraries_unavailable is not None and _FILE_DEPENDS_ON.search(request.code):
            message = f"{self._libraries_unavailable}. Add the library to the build instead; the next call picks up the changed build."
            send(ResultFrame(type="error", error_kind="compile", message=message))
            return
        truncated = _Counter()
        self._output.beginSnippet(self._request.output_limit_bytes)
        running = self._driver.start(request.code)
        deadline = started + request.timeout_ms / 1000
        finished = False
        while not finished:
            finished = bool(running.join(POLL_INTERVAL_MS))
            self._forward_output(send, truncated)
            if not finished and (cancel.is_set() or time.monotonic() > deadline):
                result = self._stop(running, request, cancelled=cancel.is_set())
                break
        else:
            outcome = running.getOutcome()
            result = self._result(outcome, request.code, truncated)
            if result.type == "error" and outcome is not None:
                self._failed[int(outcome.number)] = FailedSnippet(request.code, compiled=bool(outcome.compiled))
                result.message = with_hint(result.message, self._serialization_hint)
            self._record_declarations(outcome, request.code, failed=result.type == "error")
        self._forward_output(send, truncated)
        result = self._unless_exit_requested(result)
        result.truncated_bytes = truncated.value + int(self._output.droppedBytes())
        if (heap_warning := self._heap.warning()) is not None:
            result.warnings.append(heap_warning)
        result.duration_ms = int((time.monotonic() - started) * 1000)
        result.declared = len(self._declarations)
        send(result)

    def describe(self, request: DescribeRequest) -> ResultFrame:
        description = self._declarations.describe()
        description.libraries = [jstr(c) for c in self._driver.addedLibraries()]
        return ResultFrame(id=request.id, type="success", description=description, declared=len(self._declarations))

    def _record_declarations(self, outcome: Any, code: str, *, failed: bool) -> None:
        try:
            script_class = outcome.result.getScriptClass() if outcome is not None and outcome.result is not None else None
            if script_class is None:
                return
            instance = outcome.result.getScriptInstance()
            self._declarations.record(script_class, instance, int(outcome.number) - _WARM_UP_SNIPPETS, code, failed=failed)
        except Exception as error:  # noqa: BLE001 - describing less must never cost the snippet its reply
            print(f"reading the declarations of snippet {outcome.number} failed: {error}", file=sys.stderr)

    def _stop(self, running: Any, request: EvalRequest, *, cancelled: bool) -> ResultFrame:
        why = "Cancelled by the client" if cancelled else f"Timed out after {request.timeout_ms / 1000:g} s"
        kind = "cancelled" if cancelled else "timeout"
        running.cancel()
        compiling_until = time.monotonic() + COMPILE_AFTER_CANCEL_SECONDS
        while not running.join(int(INTERRUPT_GRACE_SECONDS * 1000)):
            # Still compiling: compilation ends by itself and the snippet then never runs; wait for it.
            if running.getEvaluating() or time.monotonic() > compiling_until:
                break
        else:
            outcome = running.getOutcome()
            if outcome is not None and outcome.cancelledBeforeEvaluation:
                return ResultFrame(
                    type="error", error_kind=kind,
                    message=f"{why} while the snippet compiled; it never ran. The session's state is kept.",
                )
            return ResultFrame(
                type="error",
                error_kind=kind,
                message=f"{why}; the snippet was interrupted and stopped. The session's state is kept.",
            )
        # The JVM offers no safe way to kill a thread that ignores interruption.
        print(f"[gradle-repl] snippet {request.id} still running {INTERRUPT_GRACE_SECONDS:g} s after interrupt():\n"
              f"{jstr(running.stack())}", file=sys.stderr, flush=True)
        self.exit_code = 0
        return ResultFrame(
            type="error",
            error_kind=kind,
            state_lost=True,
            message=f"{why} and the snippet ignored interruption; its worker was stopped and the session's "
            "state is lost. The next call starts a fresh session.",
        )

    def _forward_output(self, send: Send, truncated: _Counter) -> None:
        limit = self._request.frame_limit_bytes
        for event in self._output.drain():
            kind = str(event.kind)
            if kind in ("stdout", "stderr"):
                send(StreamFrame(event=kind, data=_cap_text(jstr(event.text), limit, truncated)))  # type: ignore[arg-type]
            else:
                send(self._display_frame(event, truncated))

    def _display_frame(self, event: Any, truncated: _Counter) -> DisplayFrame:
        limit = self._request.frame_limit_bytes
        kind = str(event.displayKind)
        mime = str(event.mime)
        if kind != "image":
            return DisplayFrame(kind=kind, mime=mime, data=_cap_text(jstr(event.text), limit, truncated))  # type: ignore[arg-type]
        data = bytes(event.bytes)
        # base64 grows data by a third: fit the encoded frame, not the raw bytes.
        raw_limit = limit * 3 // 4
        if len(data) > raw_limit:
            fitted = self._renderer.fitImage(event.bytes, raw_limit)
            if fitted is None:
                truncated.value += len(data)
                return DisplayFrame(
                    kind="text",
                    mime="text/plain",
                    data=f"[image dropped: {len(data)} bytes of {mime} did not fit the {raw_limit}-byte frame limit "
                    "even downscaled]",
                )
            meta = {"downscaled_from_bytes": str(len(data))}
            return DisplayFrame(kind="image", mime="image/png", data=base64.b64encode(bytes(fitted)).decode(), meta=meta)
        return DisplayFrame(kind="image", mime=mime, data=base64.b64encode(data).decode())

    def _result(self, outcome: Any, code: str, truncated: _Counter) -> ResultFrame:
        diagnostics = [_diagnostic(d) for d in outcome.diagnostics]
        compile_warnings = [format_diagnostic(d, code) for d in diagnostics if d.severity == "WARNING"]
        if outcome.internalError is not None:
            headline, stack = format_throwable(_chain(outcome.internalError))
            return ResultFrame(type="error", error_kind="internal", message=f"REPL failure: {headline}", stack=stack)
        if not outcome.compiled:
            errors = [format_diagnostic(d, code) for d in diagnostics if d.severity in ("ERROR", "FATAL")]
            return ResultFrame(
                type="error",
                error_kind="compile",
                message="\n".join(errors) or "compilation failed without a diagnostic",
                compile_warnings=compile_warnings,
            )
        result = outcome.result
        kind = str(result.getClass().getSimpleName()) if result is not None else "NotEvaluated"
        if kind == "Error":
            chain = _chain(result.getError())
            headline, stack = format_throwable(chain)
            if any(info.class_name == "java.lang.OutOfMemoryError" for info in chain):
                self.exit_code = 0
                return ResultFrame(
                    type="error",
                    error_kind="out_of_memory",
                    state_lost=True,
                    message=f"{headline}\nThe session's JVM ran out of its {self._request.heap_mb} MB heap; "
                    "the worker was replaced and the session's state is lost.",
                    stack=stack,
                )
            if (use := self._use_of_failed(chain, code, int(outcome.number))) is not None:
                # The error's frames are REPL internals, not the user's code: the message says it all.
                return ResultFrame(type="error", error_kind="runtime", message=use.message(), compile_warnings=compile_warnings)
            return ResultFrame(type="error", error_kind="runtime", message=headline, stack=stack, compile_warnings=compile_warnings)
        if kind == "Value":
            value_type = kotlin_type_name(_declared_type(result))
            if outcome.renderError is not None:
                headline, _ = format_throwable(_chain(outcome.renderError))
                value = DisplayFrame(kind="text", mime="text/plain", data=f"<toString() threw {headline}>")
            else:
                value = self._display_frame(outcome.rendered, truncated)
            return ResultFrame(type="success", value=value, value_type=value_type, compile_warnings=compile_warnings)
        if kind == "Unit":
            return ResultFrame(type="success", value_type="kotlin.Unit", compile_warnings=compile_warnings)
        return ResultFrame(type="error", error_kind="internal", message="the snippet was compiled but not evaluated")


    def _unless_exit_requested(self, result: ResultFrame) -> ResultFrame:
        """After a snippet called System.exit (refused by the exit guard): reply, then end with its status."""
        status = self._exit_guard.requestedStatus()
        if status is None:
            return result
        self.exit_code = int(status)
        return ResultFrame(
            type="error",
            error_kind="exited",
            state_lost=True,
            message=f"The snippet called System.exit({int(status)}): the session's JVM is stopped and its state is lost "
            "(shutdown hooks a snippet registered don't run). The next call starts a fresh session.",
        )

    def _use_of_failed(self, chain: list[ThrowableInfo], code: str, number: int) -> FailedUse | None:
        """The declarations of failed snippets that snippet `number` met, when that is what its error was."""
        if not self._failed:
            return None
        uninitialised = {name: label + _WARM_UP_SNIPPETS for name, label in self._declarations.uninitialised().items()}
        return explain_use_of_failed(chain, code=code, number=number, uninitialised=uninitialised, failed=self._failed)


class _Counter:
    def __init__(self) -> None:
        self.value = 0


def _cap_text(text: str, limit: int, truncated: _Counter) -> str:
    capped, cut = cap_text(text, limit)
    truncated.value += cut
    return capped


def _declared_type(result: Any) -> str:
    """The result's type as the REPL reports it; where that is an erased JVM name (Kotlin 2.2), the result
    snippet's generic return type, so `List<Int>` doesn't read as a bare `java.util.List`."""
    reported = jstr(result.getType())
    if reported.startswith("kotlin.") or "->" in reported or "<" in reported:
        return reported
    try:
        owner = jpype.JClass("kotlin.jvm.JvmClassMappingKt").getJavaClass(result.getScriptClass())
        # K2 snippets return their value from $$eval(); its generic return type is the value's declared type.
        method = owner.getDeclaredMethod("$$eval")
        if jstr(method.getReturnType().getName()) == reported:
            return jstr(method.getGenericReturnType().getTypeName())
        return reported
    except Exception:  # noqa: BLE001 - another REPL layout: the reported name will do
        return reported


def _compile_classpath(project: list[str], host: list[str], facade: str, annotations: list[str]) -> list[str]:
    """The project classpath, plus the host's stdlib where the project has none, plus the display API and
    the @file:DependsOn/@file:Repository annotations."""
    present = {prefix for prefix in _HOST_RUNTIME_JARS for p in project if _jar_name(p).startswith(prefix)}
    extra = [p for p in host for prefix in _HOST_RUNTIME_JARS if _jar_name(p).startswith(prefix) and prefix not in present]
    return [*project, *extra, facade, *annotations]


def _diagnostic(d: Any) -> Diagnostic:
    location = d.getLocation()
    start = location.getStart() if location is not None else None
    message = jstr(d.getMessage())
    if d.getException() is not None:
        message += f" ({d.getException()})"
    return Diagnostic(
        severity=str(d.getSeverity().name()),
        message=message,
        line=int(start.getLine()) if start is not None else None,
        column=int(start.getCol()) if start is not None else None,
    )


def _chain(throwable: Any) -> list[ThrowableInfo]:
    chain: list[ThrowableInfo] = []
    while throwable is not None and len(chain) < _MAX_CAUSES:
        frames = tuple(
            StackFrame(
                class_name=str(e.getClassName()),
                method=str(e.getMethodName()),
                file=str(e.getFileName()) if e.getFileName() is not None else None,
                line=int(e.getLineNumber()),
            )
            for e in throwable.getStackTrace()
        )
        message = throwable.getMessage()
        chain.append(ThrowableInfo(str(throwable.getClass().getName()), jstr(message) if message is not None else None, frames))
        cause = throwable.getCause()
        throwable = cause if cause is not None and not cause.equals(throwable) else None
    return chain
