"""Project classes updated in place after a rebuild, as IntelliJ's HotSwap updates a debugged JVM.

At start the worker reads every class file under the project's class output directories (and notes each jar's size
and time); after a rebuild it reads them again and compares *bytes*, not time stamps (Maven and Gradle rewrite
unchanged classes with the same bytes). Of the changed classes, the ones the JVM has loaded are redefined in one
`Instrumentation.redefineClasses` call through the agent (worker/classes/class_update_agent.py), so an inline function's callers change
with it; the others, and class files that appeared, are read from disk when first used (the project's loader has
the output directories on its class path). What the JVM can't do in place — a method or field added or removed,
supertypes changed, a class deleted, a jar changed — is refused with the reason, and the host restarts the session.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gradle_repl.frames import UpdateResult
from gradle_repl.worker.classes.class_files import initialiser_changed, read_class, refusal
from gradle_repl.worker.classes.class_update_agent import AGENT_CLASS
from gradle_repl.worker.java import JavaObject, byte_arrays, java_class, string_array
from gradle_repl.worker.results.safety import jstr

__all__ = ["ClassOutputs", "ClassUpdater"]

# How many names a refusal lists before "and N more".
_NAMED = 3
# New classes are copied for the compiler into temporary directories named for the worker's pid; a worker ends with
# os._exit (no clean-up runs), so each new worker removes those of workers no longer running.
_ADDED_PREFIX = "gradle-repl-added-classes-"


@dataclass(frozen=True)
class _ClassFile:
    stat: tuple[int, int]  # size and modification time: unchanged means the same bytes, and the file isn't read again
    packed: bytes  # the bytes, compressed: kept to name what a rebuild changed in a class


@dataclass(frozen=True)
class ClassOutputs:
    """The class files of the project's output directories by class name, and its jars' sizes and times."""

    classes: dict[str, _ClassFile]
    jars: dict[str, tuple[int, int]]

    @classmethod
    def read(cls, classpath: list[str], earlier: ClassOutputs | None = None) -> ClassOutputs:
        """The outputs as they are now; files whose size and time are as in `earlier` are not read again."""
        classes: dict[str, _ClassFile] = {}
        jars: dict[str, tuple[int, int]] = {}
        for entry in classpath:
            if os.path.isdir(entry):
                for path in Path(entry).rglob("*.class"):
                    relative = path.relative_to(entry).as_posix()
                    if relative.startswith("META-INF/") or relative.endswith("module-info.class"):
                        continue
                    name = relative.removesuffix(".class").replace("/", ".")
                    if name in classes:
                        continue  # an earlier class path entry's copy wins, as in the loader
                    stat = _stat(path)
                    known = earlier.classes.get(name) if earlier is not None else None
                    classes[name] = (
                        known
                        if known is not None and known.stat == stat
                        else _ClassFile(stat, zlib.compress(path.read_bytes(), 1))
                    )
            elif os.path.isfile(entry):
                jars[entry] = _stat(Path(entry))
        return cls(classes, jars)

    def bytes_of(self, name: str) -> bytes:
        return zlib.decompress(self.classes[name].packed)


def _stat(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


class ClassUpdater:
    """Brings the session's loaded project classes up to date with the class output directories."""

    def __init__(
        self,
        classpath: list[str],
        loader: JavaObject,
        *,
        unavailable: str | None,
        add_compile_root: Callable[[str], None],
    ) -> None:
        self._classpath = classpath
        self._loader = loader
        _remove_dead_workers_copies()
        self._outputs = ClassOutputs.read(classpath)
        self._unavailable = unavailable
        self._add_compile_root = add_compile_root

    def update(self) -> UpdateResult:
        now = ClassOutputs.read(self._classpath, self._outputs)
        before = self._outputs
        if jars := [Path(jar).name for jar, stat in now.jars.items() if before.jars.get(jar) != stat]:
            return UpdateResult(refused=f"a jar on the classpath changed ({_named(jars)})")
        if removed := sorted(set(before.classes) - set(now.classes)):
            return UpdateResult(refused=f"{_named(removed)} {'was' if len(removed) == 1 else 'were'} deleted")
        changed = sorted(
            name
            for name in set(now.classes) & set(before.classes)
            if now.classes[name].stat != before.classes[name].stat and now.bytes_of(name) != before.bytes_of(name)
        )
        added = sorted(set(now.classes) - set(before.classes))
        if not changed:
            return self._taken(now, [], 0, added, [])
        if self._unavailable is not None or not (agent := java_class(AGENT_CLASS)).available():
            return UpdateResult(refused=self._unavailable or "the JVM can't redefine classes")
        loaded = {jstr(name) for name in agent.loadedBy(self._loader)}
        reasons, initialisers = _shape_changes(before, now, changed, loaded)
        if reasons:
            return UpdateResult(
                refused="; ".join(reasons[:_NAMED])
                + (f" (and {len(reasons) - _NAMED} more)" if len(reasons) > _NAMED else "")
            )
        redefined = [name for name in changed if name in loaded]
        if redefined:
            contents = byte_arrays([now.bytes_of(name) for name in redefined])
            failure = agent.redefine(self._loader, string_array(redefined), contents)
            if failure is not None:
                return UpdateResult(refused=f"the JVM refused to redefine {_named(redefined)}: {jstr(failure)}")
        return self._taken(now, redefined, len(changed) - len(redefined), added, initialisers)

    def _taken(
        self, now: ClassOutputs, redefined: list[str], reloaded: int, added: list[str], initialisers: list[str]
    ) -> UpdateResult:
        """The outputs as the session runs them from now on, and what changed."""
        self._outputs = now
        if added:
            self._add_compile_root(_copied(now, added, self._classpath))
        return UpdateResult(redefined=redefined, reloaded=reloaded, added=added, initialisers=initialisers)


def _shape_changes(
    before: ClassOutputs, now: ClassOutputs, changed: list[str], loaded: set[str]
) -> tuple[list[str], list[str]]:
    """Why the JVM would refuse the changed classes (`Foo: a method was added: …`), and the loaded ones whose static
    initialiser changed. A class not loaded yet would load its new shape, but the compiler has read the old one and
    would compile later snippets against members that are gone: a changed shape refuses, loaded or not."""
    reasons: list[str] = []
    initialisers: list[str] = []
    for name in changed:
        old, new = read_class(before.bytes_of(name)), read_class(now.bytes_of(name))
        if (why := refusal(old, new)) is not None:
            reasons.append(f"{name}: {why}")
        elif name in loaded and initialiser_changed(old, new):
            initialisers.append(name)
    return reasons, initialisers


def _copied(outputs: ClassOutputs, names: list[str], classpath: list[str]) -> str:
    """A new directory holding the named classes and the output directories' Kotlin module files (how the compiler
    finds top-level functions in a new file's facade class), for the compiler to index as a root of its own.

    Each output directory's module file is kept under a name of its own: the session's compile writes one with the
    module's name listing only the files it compiled, the build's output one of the same name listing the rest, and
    the compiler reads every `META-INF/*.kotlin_module` of a root and merges their parts. Copied under one name, the
    later would replace the earlier, and a new file's top-level functions would not resolve."""
    root = Path(tempfile.mkdtemp(prefix=f"{_ADDED_PREFIX}{os.getpid()}-"))
    for name in names:
        target = root / (name.replace(".", "/") + ".class")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(outputs.bytes_of(name))
    for index, entry in enumerate(e for e in classpath if os.path.isdir(e)):
        for module in Path(entry).glob("META-INF/*.kotlin_module"):
            (root / "META-INF").mkdir(exist_ok=True)
            shutil.copyfile(module, root / "META-INF" / f"{index}-{module.name}")
    return str(root)


def _remove_dead_workers_copies() -> None:
    import psutil  # here: an update that adds classes is rare, and psutil is ~30 ms of every worker's start

    for directory in Path(tempfile.gettempdir()).glob(f"{_ADDED_PREFIX}*-*"):
        pid = directory.name.removeprefix(_ADDED_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not psutil.pid_exists(int(pid)):
            shutil.rmtree(directory, ignore_errors=True)


def _named(names: list[str]) -> str:
    shown = ", ".join(names[:_NAMED])
    return shown + (f" and {len(names) - _NAMED} more" if len(names) > _NAMED else "")
