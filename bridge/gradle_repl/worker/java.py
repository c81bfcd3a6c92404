"""The worker's one door to JPype: every JVM object the worker's Python touches gets its type here, once.

JPype ships no type information, and its proxies answer any attribute at run time. So:
- the facade's own objects (jvm-worker's Kotlin: `ReplDriver`, `RunningSnippet`, `SnippetOutcome`, `ReplOutput`,
  `ReplEvent`, `Renderer`, `ExitGuard`, the completion add-on's `Completer`) each get a Protocol naming exactly the
  members the worker uses, with the types JPype hands back for them;
- the JDK objects the worker reads by reflection (a snippet's `Class`, its `Field`s and `Method`s, a `Throwable`'s
  chain, the memory beans) are `JavaObject`: they are walked generically, member by member, and every value read
  from one is converted (`str`, `int`, `jstr`) where it is read;
- JPype's functions are wrapped with types, so no other module imports `jpype`.

Only worker processes import this module at run time (others name its Protocols under TYPE_CHECKING): the server
and the CLI never load JPype (tests/repo/test_architecture.py).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import _jpype
import jpype

__all__ = [
    "JavaObject",
    "JavaException",
    "addon_loader",
    "byte_array",
    "byte_arrays",
    "ReplDriver",
    "RunningSnippet",
    "SnippetOutcome",
    "ReplEvent",
    "ReplOutput",
    "Renderer",
    "ExitGuard",
    "Completer",
    "TestRuns",
    "TestRun",
    "TestFailure",
    "test_runs",
    "CompletionOutcome",
    "CompletionCandidate",
    "java_class",
    "repl_output",
    "exit_guard",
    "renderer",
    "repl_driver",
    "completer",
    "string_array",
    "java_string",
    "start_vm",
    "shutdown_vm",
    "unlink_python_gc_from_java_gc",
    "implements",
    "override",
]

# A JDK object read by reflection (Class, Field, Method, Throwable, ClassLoader, memory beans): JPype's proxy, whose
# members exist only at run time. Named once here; what is read from one is converted where it is read.
JavaObject = Any

# Any exception thrown by Java code (JPype's base class of every Java throwable raised into Python).
JavaException: type[Exception] = jpype.JException

_T = TypeVar("_T")  # a class made a Java interface's implementation
_F = TypeVar("_F", bound=Callable[..., object])


class ReplEvent(Protocol):
    """gradlerepl.runtime.ReplEvent: one thing a snippet printed or displayed."""

    @property
    def kind(self) -> JavaObject: ...  # ReplEventKind: STDOUT, STDERR or DISPLAY (read by .name())
    @property
    def text(self) -> JavaObject: ...  # a java.lang.String (lone surrogates possible: read with jstr)
    @property
    def displayKind(self) -> JavaObject: ...
    @property
    def mime(self) -> JavaObject: ...
    @property
    def bytes(self) -> JavaObject: ...  # byte[] or null


class SnippetOutcome(Protocol):
    """gradlerepl.repl.SnippetOutcome: what compiling (and running) one snippet came to."""

    @property
    def diagnostics(self) -> Sequence[JavaObject]: ...  # kotlin.script.experimental.api.ScriptDiagnostic
    @property
    def compiled(self) -> bool: ...
    @property
    def result(self) -> JavaObject | None: ...  # ResultValue: Value, Unit or Error
    @property
    def rendered(self) -> ReplEvent | None: ...
    @property
    def renderError(self) -> JavaObject | None: ...  # a Throwable
    @property
    def compiledScript(self) -> JavaObject | None: ...  # the compiled snippet an attached session sends to its JVM
    @property
    def internalError(self) -> JavaObject | None: ...  # a Throwable
    @property
    def cancelledBeforeEvaluation(self) -> bool: ...
    @property
    def valueType(self) -> JavaObject | None: ...  # a java.lang.String
    @property
    def compileNanos(self) -> int: ...
    @property
    def evaluateNanos(self) -> int: ...
    @property
    def renderNanos(self) -> int: ...
    @property
    def dependedModules(self) -> int: ...


class RunningSnippet(Protocol):
    """gradlerepl.repl.RunningSnippet: a snippet compiling or running on its own thread."""

    def join(self, millis: int) -> bool: ...
    def getOutcome(self) -> SnippetOutcome | None: ...
    def getEvaluating(self) -> bool: ...
    def cancel(self) -> None: ...
    def stack(self) -> JavaObject: ...  # a java.lang.String


class ReplDriver(Protocol):
    """gradlerepl.repl.ReplDriver: the K2 REPL of one session."""

    def start(self, code: str, sourceName: str) -> RunningSnippet: ...
    def check(self, code: str, sourceName: str) -> RunningSnippet: ...
    def compileThrowaway(self, code: str, sourceName: str) -> RunningSnippet: ...  # as a run would, then taken back
    def compileOnly(
        self, code: str, sourceName: str
    ) -> RunningSnippet: ...  # compiles, runs nothing (attached sessions)
    def namesLibraries(self, code: str) -> bool: ...
    def addedLibraries(self) -> Sequence[JavaObject]: ...  # String[]
    def addedRepositories(self) -> Sequence[JavaObject]: ...  # String[]
    def addCompileRoots(
        self, paths: JavaObject
    ) -> None: ...  # String[]: class directories later snippets compile against
    def stateObjectClassFiles(self) -> JavaObject: ...  # Map<String, byte[]>: the REPL's state object, by binary name
    def historyIndexed(self) -> bool: ...  # compilations read earlier snippets from SnippetHistoryIndex


class ReplOutput(Protocol):
    """gradlerepl.runtime.ReplOutput (a Kotlin object): everything snippets print or display."""

    def install(self) -> None: ...
    def beginSnippet(self, maxBytes: int) -> None: ...
    def droppedBytes(self) -> int: ...
    def drain(self) -> Sequence[ReplEvent]: ...


class Renderer(Protocol):
    """gradlerepl.runtime.Renderer (a Kotlin object): values as text or images."""

    def fitImage(self, image: JavaObject, maxBytes: int) -> JavaObject | None: ...  # byte[] in, byte[] or null out


class ExitGuard(Protocol):
    """gradlerepl.repl.ExitGuard (a Kotlin object): a snippet's System.exit, refused and remembered."""

    def install(self) -> None: ...
    def requestedStatus(self) -> int | None: ...


class CompletionCandidate(Protocol):
    @property
    def text(self) -> JavaObject: ...
    @property
    def kind(self) -> JavaObject: ...
    @property
    def detail(self) -> JavaObject: ...
    @property
    def rank(self) -> int: ...
    @property
    def importName(self) -> JavaObject: ...  # a java.lang.String: the class to import ("java.io.File"), else empty


class CompletionOutcome(Protocol):
    @property
    def candidates(self) -> Sequence[CompletionCandidate]: ...
    @property
    def found(self) -> bool: ...
    @property
    def position(self) -> JavaObject: ...  # a java.lang.String: where the cursor is ("scope", "member", ...)
    @property
    def internalError(self) -> JavaObject | None: ...  # a Throwable


class Completer(Protocol):
    """gradlerepl.completion.Completer (jvm-worker/runs-in-worker/completion): what fits at a cursor."""

    def complete(
        self, code: str, start: int, cursor: int, sourceName: str, packages: JavaObject
    ) -> CompletionOutcome: ...


class TestFailure(Protocol):
    """gradlerepl.junit.TestFailure (jvm-worker/runs-in-worker/junit): one failed test of a run (Kotlin properties, read
    through their getters)."""

    def getTest(self) -> JavaObject: ...  # java.lang.String
    def getDisplayName(self) -> JavaObject: ...  # java.lang.String
    def getException(self) -> JavaObject | None: ...  # a Throwable
    def getOutput(self) -> JavaObject: ...  # java.lang.String


class TestRun(Protocol):
    """gradlerepl.junit.TestRun: a test run on its own thread."""

    def getPassed(self) -> int: ...
    def getFailed(self) -> int: ...
    def getSkipped(self) -> int: ...
    def getAborted(self) -> int: ...
    def getRefusal(self) -> JavaObject | None: ...  # java.lang.String
    def getInternalError(self) -> JavaObject | None: ...  # a Throwable
    def failureList(self) -> Sequence[TestFailure]: ...
    def drainFinished(self) -> Sequence[JavaObject]: ...  # String[]
    def notes(self) -> Sequence[JavaObject]: ...  # String[]: which known failures ran, which dropped out
    def knownFailing(self) -> Sequence[JavaObject]: ...  # String[]: unique ids
    def cancel(self) -> None: ...
    def forceStop(self) -> bool: ...
    def join(self, millis: int) -> bool: ...
    def stack(self) -> JavaObject: ...  # java.lang.String


class TestRuns(Protocol):
    """gradlerepl.junit.TestRuns (a Kotlin object): starts test runs in the project's class loader."""

    def start(
        self,
        selectors: JavaObject,
        roots: JavaObject,
        includes: JavaObject,
        excludes: JavaObject,
        includeTags: JavaObject,
        excludeTags: JavaObject,
        failedOnly: bool,
        knownFailing: JavaObject,
        outputLimit: int,
        loader: JavaObject,
    ) -> TestRun: ...  # every JavaObject but the loader a String[]


def test_runs(loader: JavaObject) -> TestRuns:
    """The test runner loaded by `loader`: the snippets' loader, where the project's classes and engines are."""
    made: TestRuns = java_class("gradlerepl.junit.TestRuns", loader=loader)
    return made


def java_class(name: str, *, loader: JavaObject | None = None) -> JavaObject:
    """The Java class `name` (from `loader` when given): call it to construct, read its static members."""
    return jpype.JClass(name) if loader is None else jpype.JClass(name, loader=loader)


def repl_output(loader: JavaObject) -> ReplOutput:
    made: ReplOutput = java_class("gradlerepl.runtime.ReplOutput", loader=loader)
    return made


def exit_guard(loader: JavaObject) -> ExitGuard:
    made: ExitGuard = java_class("gradlerepl.repl.ExitGuard", loader=loader)
    return made


def renderer(loader: JavaObject) -> Renderer:
    made: Renderer = java_class("gradlerepl.runtime.Renderer", loader=loader)
    return made


def repl_driver(
    loader: JavaObject,
    classpath: list[str],
    snippet_loader: JavaObject,
    compiler_options: list[str],
    libraries: JavaObject,
    imports: list[str],
) -> ReplDriver:
    """A session's K2 REPL; `libraries` is the dependencies add-on's AddedLibraries, or None without it."""
    made: ReplDriver = java_class("gradlerepl.repl.ReplDriver", loader=loader)(
        classpath, snippet_loader, compiler_options, libraries, imports
    )
    return made


def addon_loader(jar: Path, parent: JavaObject) -> JavaObject:
    """A class loader over an add-on jar of the facade's (completion, class phases), the facade's loader its parent."""
    url = java_class("java.io.File")(str(jar)).toURI().toURL()
    return java_class("java.net.URLClassLoader")([url], parent)


def completer(loader: JavaObject, driver: ReplDriver, index_classpath: Sequence[str]) -> Completer:
    """The add-on's Completer; `index_classpath` is what its class index reads (with the JDK's modules)."""
    made: Completer = java_class("gradlerepl.completion.Completer", loader=loader)(
        driver, string_array(index_classpath)
    )
    return made


def string_array(items: Sequence[str]) -> JavaObject:
    """A Java String[] of the items."""
    return jpype.JArray(jpype.JString)(list(items))


def int_array(items: Sequence[int]) -> JavaObject:
    """A Java int[] of the items."""
    return jpype.JArray(jpype.JInt)(list(items))


def byte_array(data: bytes) -> JavaObject:
    """A Java byte[] of the bytes."""
    return jpype.JArray(jpype.JByte)(data)


def byte_arrays(items: Sequence[bytes]) -> JavaObject:
    """A Java byte[][] of the items (class files handed to the JVM)."""
    return jpype.JArray(jpype.JArray(jpype.JByte))([byte_array(item) for item in items])


def object_array(element: JavaObject, items: Sequence[JavaObject]) -> JavaObject:
    """A Java array of `element` (a class java_class gave, from any loader) holding items."""
    array = jpype.JClass("java.lang.reflect.Array").newInstance(element.class_, len(items))
    for index, item in enumerate(items):
        array[index] = item
    return array


def nullable_byte_arrays(items: Sequence[bytes | None]) -> JavaObject:
    """byte[][] whose entries may be null."""
    return jpype.JArray(jpype.JArray(jpype.JByte))([None if item is None else byte_array(item) for item in items])


def java_string(text: str) -> JavaObject:
    return jpype.JString(text)


def start_vm(libjvm: str, options: Sequence[str], *, classpath: Sequence[str]) -> None:
    """Starts the one JVM this process may ever have; Java strings stay Java strings (read with jstr)."""
    jpype.startJVM(libjvm, *options, classpath=list(classpath), convertStrings=False)


def shutdown_vm() -> None:
    jpype.shutdownJVM()


def unlink_python_gc_from_java_gc() -> None:
    """JPype hooks Python's collector: when the process's malloc'd memory has grown by 10 MB since it
    last looked, it runs a full Java GC (System.gc()). In a worker that memory is mostly the JVM's own
    (compiled code, class metadata of each snippet), so a declaration-heavy session took a 0.2–0.7 s full
    collection every ~12 snippets (JFR, bench/profile.py) for nothing: the few Java objects Python holds
    don't need it, and the JVM collects when its heap needs to. A snippet's own System.gc() still runs.
    The same hook also ran a Python collection after Java ones; Python now collects on its own schedule."""
    collect = getattr(_jpype, "_collect", None)
    while collect is not None and collect in gc.callbacks:
        gc.callbacks.remove(collect)


def implements(interface: str) -> Callable[[type[_T]], type[_T]]:
    """A Python class as an implementation of the Java `interface` (JPype's JImplements, typed)."""
    decorate: Callable[[type[_T]], type[_T]] = jpype.JImplements(interface)
    return decorate


def override(method: _F) -> _F:
    """Marks a method of an `implements` class as the Java interface's (JPype's JOverride, typed)."""
    marked: _F = jpype.JOverride(method)
    return marked
