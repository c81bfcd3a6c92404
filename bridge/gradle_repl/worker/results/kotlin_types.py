"""Kotlin names for the JVM types older K2 REPLs report for a result.

Kotlin 2.3's REPL names a result's type the Kotlin way (`kotlin.collections.List<kotlin.Int>`); 2.2's gives
the JVM's (`java.util.List<java.lang.Integer>`, `int`, `[Ljava.lang.String;`). Users should read the same
on every supported version, so JVM names are mapped to the Kotlin types they stand for. What the JVM
erased can't come back: a `java.util.List` reads `kotlin.collections.List` even where Kotlin said
`MutableList`.

Classes declared in snippets read as the user wrote them: the REPL nests them in its class for the
snippet (`_6_repl$K`, `_6_repl$Outer$Inner`), numbered its own way, not as the "snippet N" users see.
"""

from __future__ import annotations

import re

from gradle_repl.worker.snippet_names import SNIPPET_CLASS

__all__ = ["kotlin_type_name", "without_snippet_classes", "property_accessors"]

_PRIMITIVES = {
    "int": "Int",
    "long": "Long",
    "short": "Short",
    "byte": "Byte",
    "char": "Char",
    "boolean": "Boolean",
    "float": "Float",
    "double": "Double",
    "void": "Unit",
}
_ARRAY_DESCRIPTORS = {
    "I": "Int",
    "J": "Long",
    "S": "Short",
    "B": "Byte",
    "C": "Char",
    "Z": "Boolean",
    "F": "Float",
    "D": "Double",
}
_MAPPED = {
    **{
        f"java.lang.{boxed}": f"kotlin.{kotlin}"
        for boxed, kotlin in (
            ("Integer", "Int"),
            ("Long", "Long"),
            ("Short", "Short"),
            ("Byte", "Byte"),
            ("Character", "Char"),
            ("Boolean", "Boolean"),
            ("Float", "Float"),
            ("Double", "Double"),
            ("Void", "Unit"),
        )
    },
    "java.lang.Object": "kotlin.Any",
    "java.lang.String": "kotlin.String",
    "java.lang.CharSequence": "kotlin.CharSequence",
    "java.lang.Number": "kotlin.Number",
    "java.lang.Throwable": "kotlin.Throwable",
    "java.lang.Comparable": "kotlin.Comparable",
    "java.lang.Enum": "kotlin.Enum",
    "java.lang.Iterable": "kotlin.collections.Iterable",
    "java.util.Iterator": "kotlin.collections.Iterator",
    "java.util.Collection": "kotlin.collections.Collection",
    "java.util.List": "kotlin.collections.List",
    "java.util.Set": "kotlin.collections.Set",
    "java.util.Map": "kotlin.collections.Map",
    "java.util.Map$Entry": "kotlin.collections.Map.Entry",
    "java.util.Map.Entry": "kotlin.collections.Map.Entry",
}
_FUNCTION = re.compile(r"kotlin\.jvm\.functions\.Function(\d+)$")
# The REPL's class for snippet N, as the JVM (`_6_repl$K`, `[L_6_repl$K;`) or Kotlin (`_6_repl.K`,
# `<root>._6_repl.K`) spells it.
_SNIPPET_CLASS = re.compile(rf"(?:<root>\.)?(?:(?<=\[L)|(?<![\w$])){SNIPPET_CLASS}[.$]")


def without_snippet_classes(text: str) -> str:
    """Text that names snippets' classes (`_3_repl.Point`) as users wrote them (`Point`)."""
    return _SNIPPET_CLASS.sub("", text)


def kotlin_type_name(jvm: str) -> str:
    """The Kotlin spelling of a JVM type name (generic type names included); Kotlin names pass through."""
    jvm = _SNIPPET_CLASS.sub("", jvm.strip())
    if "->" in jvm:  # a Kotlin function type: already Kotlin's spelling
        return jvm
    name, _ = _parse(jvm, 0)
    return name


def _parse(text: str, i: int) -> tuple[str, int]:
    """One type starting at text[i]; returns its Kotlin name and the index after it."""
    j = i
    while j < len(text) and text[j] not in "<>,":
        j += 1
    head = text[i:j].strip()
    suffix = ""
    while head.endswith("[]"):  # String[] from Type.getTypeName()
        suffix += "[]"
        head = head[:-2]
    arguments: list[str] = []
    if j < len(text) and text[j] == "<":
        j += 1
        while True:
            argument, j = _parse(text, j)
            arguments.append(argument)
            while j < len(text) and text[j] == " ":
                j += 1
            if j >= len(text) or text[j] == ">":
                j += 1
                break
            j += 1  # the comma
    while j < len(text) and text[j : j + 2] == "[]":  # List<String>[]
        suffix += "[]"
        j += 2
    return _name(head, arguments, suffix), j


def _name(head: str, arguments: list[str], suffix: str) -> str:
    if suffix:
        inner = _name(head, arguments, suffix[2:])
        return f"{inner}Array" if head in _PRIMITIVES and not suffix[2:] else f"kotlin.Array<{inner}>"
    if head.startswith("["):
        return _descriptor(head)
    if head == "?":
        return "*"
    for java, kotlin in (("? extends ", "out "), ("? super ", "in ")):
        if head.startswith(java):
            return kotlin + _name(head[len(java) :], arguments, "")
    if (function := _FUNCTION.match(head)) and len(arguments) == int(function.group(1)) + 1:
        parameters = [a.removeprefix("in ") for a in arguments[:-1]]
        return f"({', '.join(parameters)}) -> {arguments[-1].removeprefix('out ')}"
    if head in _PRIMITIVES:
        return f"kotlin.{_PRIMITIVES[head]}"
    # Nested classes read with dots, as Kotlin writes them (`sample.Outer.Inner`).
    base = _MAPPED.get(head) or head.replace("$", ".")
    return f"{base}<{', '.join(arguments)}>" if arguments else base


def _descriptor(descriptor: str) -> str:
    """[I, [[J, [Ljava.lang.String; — what Class.getName() says of arrays."""
    element = descriptor[1:]
    if element.startswith("["):
        return f"kotlin.Array<{_descriptor(element)}>"
    if element in _ARRAY_DESCRIPTORS:
        return f"kotlin.{_ARRAY_DESCRIPTORS[element]}Array"
    if element.startswith("L") and element.endswith(";"):
        return f"kotlin.Array<{_name(element[1:-1], [], '')}>"
    return descriptor


def property_accessors(name: str) -> tuple[str, str]:
    """Kotlin's getter and setter names for a property (`size` → `getSize`/`setSize`, `isOpen` → `isOpen`/`setOpen`)."""
    if re.match(r"is[A-Z]", name):
        return name, "set" + name[2:]
    capitalised = name[:1].upper() + name[1:]
    return "get" + capitalised, "set" + capitalised
