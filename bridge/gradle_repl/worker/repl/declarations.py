"""What a session holds: the names its snippets declared, newest definition winning, so an agent can
pick up a session it did not start.

The K2 REPL compiles snippet N to a class `_N_repl`: its vals and vars are static fields with
getters (and setters), its functions are methods, its classes and objects nested classes. These are
read by reflection after each snippet that ran. Imports and typealiases leave nothing to reflect on
and are read from the snippet's text.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from gradle_repl.frames import Declaration, DeclarationKind, SessionDescription
from gradle_repl.worker.java import JavaException, JavaObject, implements, java_class, java_string, override
from gradle_repl.worker.results.kotlin_types import kotlin_type_name, property_accessors, without_snippet_classes
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.results.value_text import (
    DESCRIBE_SECONDS,
    VALUE_LIMIT_CHARS,
    VALUE_SECONDS,
    shown_value,
    unfinished,
    unreadable,
)
from gradle_repl.worker.runner import StoredValue, ValueReader

__all__ = ["Declarations", "composable_parameters"]

_RESULT_FIELD = re.compile(r"res\d+$")
_IMPORT = re.compile(r"^\s*import\s+([\w.`]+(?:\.\*)?(?:\s+as\s+\w+)?)\s*;?\s*$", re.MULTILINE)
_COMPOSER = "androidx.compose.runtime.Composer"
_TYPEALIAS = re.compile(
    r"^\s*(?:(?:private|internal|public)\s+)?typealias\s+(\w+)(\s*<[^=]*>)?\s*=\s*(.+?)\s*$", re.MULTILINE
)


@dataclass
class _Held:
    declaration: Declaration
    field: JavaObject = None  # the field holding a val's or var's value: static on 2.3, the snippet instance's on 2.2
    instance: JavaObject = None
    failed: bool = False  # its snippet threw: the REPL still resolves the name, but it holds no value


class Declarations:
    def __init__(self) -> None:
        # Keyed so that a redefinition replaces: by name, except functions, which overload by parameters.
        self._held: dict[str, _Held] = {}
        self._imports: dict[str, None] = {}

    def __len__(self) -> int:
        return len(self._held)

    def record(self, owner: JavaObject, instance: JavaObject, snippet: int, code: str, *, failed: bool) -> None:
        """Adds what a snippet that ran declared, read from its Java class (`_N_repl`); a name declared again moves to
        the end with its new meaning. A snippet that threw still counts: later snippets resolve its names (to values
        never set). `instance` is None when the snippet ran in another JVM: its values are read there."""
        accessors: set[str] = set()
        methods = {jstr(m.getName()) for m in owner.getDeclaredMethods()}
        for field in owner.getDeclaredFields():
            name = jstr(field.getName())
            if _RESULT_FIELD.match(name):
                # An expression snippet's value, which the REPL keeps in a field of its own (read by getRes2()).
                accessors |= set(property_accessors(name))
                continue
            if field.isSynthetic() or name == "INSTANCE" or "$" in name:
                continue
            getter, setter = property_accessors(name)
            kind: DeclarationKind = "var" if setter in methods else "val"
            accessors |= {getter, setter}
            kotlin_type = kotlin_type_name(jstr(field.getGenericType().getTypeName()))
            self._put(
                name,
                _Held(
                    Declaration(kind=kind, name=name, signature=f"{kind} {name}: {kotlin_type}", snippet=snippet),
                    field,
                    instance,
                    failed,
                ),
            )
        for method in owner.getDeclaredMethods():
            name = jstr(method.getName())
            # `$`: the compiler's own; `-`: mangled for a value class (`getDur-UwyO8pc`, a val's getter on 2.2).
            if method.isSynthetic() or method.isBridge() or "$" in name or "-" in name or name in accessors:
                continue
            written, composable = composable_parameters(
                [jstr(t.getTypeName()) for t in method.getGenericParameterTypes()]
            )
            parameters = ", ".join(kotlin_type_name(t) for t in written)
            returns = kotlin_type_name(jstr(method.getGenericReturnType().getTypeName()))
            signature = f"{'@Composable ' if composable else ''}fun {name}({parameters}): {returns}"
            self._put(
                f"fun {name}({parameters})",
                _Held(Declaration(kind="fun", name=name, signature=signature, snippet=snippet)),
            )
        for nested in owner.getDeclaredClasses():
            if nested.isSynthetic() or nested.isAnonymousClass():
                continue
            name = jstr(nested.getSimpleName())
            kind = _class_kind(nested)
            self._put(name, _Held(Declaration(kind=kind, name=name, signature=f"{kind} {name}", snippet=snippet)))
        for alias, parameters, target in _TYPEALIAS.findall(code):
            signature = f"typealias {alias}{parameters.strip()} = {target}"
            self._put(alias, _Held(Declaration(kind="typealias", name=alias, signature=signature, snippet=snippet)))
        for imported in _IMPORT.findall(code):
            self._imports.pop(imported, None)
            self._imports[imported] = None

    def describe(self, read: ValueReader | None = None) -> SessionDescription:
        """The declarations with their values: read here, or by `read` (the JVM the snippets ran in)."""
        readable = [held for held in self._held.values() if not held.failed and held.field is not None]
        value_classes = {
            id(held): _value_class_type(held.field, held.declaration.signature.partition(": ")[2])
            for held in self._held.values()
            if held.field is not None
        }
        if read is None:
            deadline = time.monotonic() + DESCRIBE_SECONDS
            texts = [_render(held.field, held.instance, deadline, value_classes[id(held)]) for held in readable]
        else:
            texts = read(
                [
                    StoredValue(
                        jstr(h.field.getDeclaringClass().getName()),
                        jstr(h.field.getName()),
                        _value_class_name(value_classes[id(h)]),
                    )
                    for h in readable
                ]
            )
        values = {id(held): text for held, text in zip(readable, texts, strict=True)}
        declarations = []
        for held in self._held.values():
            declaration = held.declaration.model_copy()
            if held.failed:
                declaration.value = "<not initialised: its snippet failed>"
            elif held.field is not None:
                declaration.value = values[id(held)]
            if (value_class := value_classes.get(id(held))) is not None:
                declaration.signature = f"{declaration.signature.partition(': ')[0]}: {value_class.name}"
            declarations.append(declaration)
        return SessionDescription(declarations=declarations, imports=list(self._imports))

    def imports(self) -> list[str]:
        """What the session's snippets imported (`java.io.File`, `java.util.*`), oldest first."""
        return list(self._imports)

    def names(self) -> list[Declaration]:
        """What the session declared, newest definition winning, without reading any value."""
        return [held.declaration for held in self._held.values()]

    def uninitialised(self) -> dict[str, int]:
        """Each val or var that a failed snippet declared and that still holds null, with that snippet's number:
        what a NullPointerException from a later snippet may have met."""
        return {
            held.declaration.name: held.declaration.snippet
            for held in self._held.values()
            if held.failed and held.field is not None and _holds_null(held.field, held.instance)
        }

    def _put(self, key: str, held: _Held) -> None:
        self._held.pop(key, None)
        self._held[key] = held


@dataclass(frozen=True)
class _ValueClassType:
    """A val's or var's type where its field holds another: a value class's field holds the underlying value (a
    Duration's field is a long), so the field says kotlin.Long where the snippet says Duration."""

    name: str  # as the snippet declared it
    box: JavaObject  # the value class's static box-impl, which makes the value the program sees; None if it has none


def _value_class_name(value_class: _ValueClassType | None) -> str | None:
    return value_class.name if value_class is not None else None


def _value_class_type(field: JavaObject, written: str) -> _ValueClassType | None:
    """The declared type, when it is another class than the field's (`written`). Kotlin's reflection reads it from
    the class's metadata; it runs at describe time only (its first use loads hundreds of classes), and where it
    can't be had (no kotlin-reflect beside the snippet's classes) the field's type stands."""
    loader = field.getDeclaringClass().getClassLoader()
    try:
        kotlin_property = java_class("kotlin.reflect.jvm.ReflectJvmMapping", loader=loader).getKotlinProperty(field)
        if kotlin_property is None:
            return None
        returned = kotlin_property.getReturnType()
        declared = without_snippet_classes(jstr(returned.toString()))
    except (JavaException, TypeError):
        return None
    if _classifier(declared) == _classifier(written):
        return None  # the same class: the field's spelling, as every other signature here reads
    return _ValueClassType(declared, _box(returned, loader))


def _box(kotlin_type: JavaObject, loader: JavaObject) -> JavaObject:
    """The static box-impl of the value class a Kotlin type names, or None."""
    try:
        value_class = _java_class_of(kotlin_type, loader)
        methods = value_class.getDeclaredMethods() if value_class is not None else []
    except (JavaException, TypeError):
        return None
    modifier = java_class("java.lang.reflect.Modifier")
    return next(
        (
            m
            for m in methods
            if jstr(m.getName()) == "box-impl" and m.getParameterCount() == 1 and modifier.isStatic(m.getModifiers())
        ),
        None,
    )


def _java_class_of(kotlin_type: JavaObject, loader: JavaObject) -> JavaObject:
    """The class a Kotlin type names. Kotlin's reflection finds no classifier for a class a snippet declared (and
    names it `_2_repl._2_repl.Meters`): that one is a nested class of its snippet's class, `_2_repl$Meters`."""
    classifier = kotlin_type.getClassifier()
    if classifier is not None:
        return java_class("kotlin.jvm.JvmClassMappingKt", loader=loader).getJavaClass(classifier)
    owner, _, nested = jstr(kotlin_type.toString()).rstrip("?").partition("<")[0].rpartition(".")
    # The snippet's own loader answers a name it doesn't hold with null, not ClassNotFoundException.
    return loader.loadClass(f"{owner.split('.')[0]}${nested}") if owner else None


def _classifier(type_name: str) -> str:
    return type_name.split("<", 1)[0].rstrip("?")


def composable_parameters(types: list[str]) -> tuple[list[str], bool]:
    """A function's parameters as written, and whether it is @Composable: the Compose compiler plugin adds a Composer
    and then only ints ($changed, $default) to the end of a composable function's JVM parameters (the annotation itself
    leaves nothing to reflect on)."""
    if _COMPOSER in types:
        cut = types.index(_COMPOSER)
        if cut + 1 < len(types) and all(t == "int" for t in types[cut + 1 :]):
            return types[:cut], True
    return types, False


def _holds_null(field: JavaObject, instance: JavaObject) -> bool:
    """Whether a val's or var's field holds null; one that can't be read counts as null, as its snippet failed."""
    try:
        field.setAccessible(True)
        static = java_class("java.lang.reflect.Modifier").isStatic(field.getModifiers())
        return field.get(None if static else instance) is None
    except (JavaException, TypeError):
        return True


def _class_kind(nested: JavaObject) -> DeclarationKind:
    if nested.isAnnotation():
        return "annotation class"
    if nested.isInterface():
        return "interface"
    if nested.isEnum():
        return "enum class"
    fields = {jstr(f.getName()) for f in nested.getDeclaredFields()}
    if "INSTANCE" in fields:
        return "object"
    methods = {jstr(m.getName()) for m in nested.getDeclaredMethods()}
    return "data class" if {"copy", "component1"} <= methods else "class"


def _render(field: JavaObject, instance: JavaObject, deadline: float, value_class: _ValueClassType | None) -> str:
    """The value's toString(), capped, on its own thread: a toString that blocks (a lazy proxy, a closed
    connection) costs at most VALUE_SECONDS, and the whole description at most DESCRIBE_SECONDS. A value class's
    value is boxed first, so that it reads as the program shows it (`5s`, not the Duration's nanoseconds)."""
    left = min(VALUE_SECONDS, deadline - time.monotonic())
    if left <= 0:
        return unfinished(0)
    box = value_class.box if value_class is not None else None
    task = java_class("java.util.concurrent.FutureTask")(_reader()(field, instance, box))
    thread = java_class("java.lang.Thread")(task, "describe-value")
    thread.setDaemon(True)
    thread.start()
    try:
        text = jstr(task.get(int(left * 1000), java_class("java.util.concurrent.TimeUnit").MILLISECONDS))
    except java_class("java.util.concurrent.TimeoutException"):
        thread.interrupt()
        return unfinished(left)
    except JavaException as error:
        thrown: JavaObject = error  # a Java throwable, read as one
        cause = thrown.getCause() if thrown.getCause() is not None else thrown
        return unreadable(jstr(cause.getClass().getName()))
    length, _, capped = text.partition(":")
    return shown_value(capped, int(length))


@cache
def _reader() -> Callable[[JavaObject, JavaObject, JavaObject], JavaObject]:
    """A java.util.concurrent.Callable reading one field's value as "<length>:<first VALUE_LIMIT_CHARS chars>"
    (made once the JVM runs, which JPype's proxies need)."""

    @implements("java.util.concurrent.Callable")
    class _ReadValue:
        def __init__(self, field: JavaObject, instance: JavaObject, box: JavaObject) -> None:
            self._field, self._instance, self._box = field, instance, box

        @override
        def call(self) -> JavaObject:
            self._field.setAccessible(True)
            static = java_class("java.lang.reflect.Modifier").isStatic(self._field.getModifiers())
            value = self._field.get(None if static else self._instance)
            if self._box is not None and value is not None:
                value = self._box.invoke(None, value)
            # The rule both JVM sides share (jvm-worker/runs-in-both ValueText): arrays by their contents.
            loader = self._field.getDeclaringClass().getClassLoader()
            text = java_class("gradlerepl.both.ValueText", loader=loader).of(value)
            return java_string(f"{text.length()}:{jstr(text.substring(0, min(text.length(), VALUE_LIMIT_CHARS)))}")

    return _ReadValue
