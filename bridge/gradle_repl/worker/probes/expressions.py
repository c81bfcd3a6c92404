"""A probe's `when` and `capture` as Kotlin the session's compiler compiles before the call runs.

Each site (a method where the probe's line starts) gets a class in the probed class's package implementing
gradlerepl.probes.ProbeCode: the site's live locals declared by name with their declared types, then each expression
inside `with(this)`, so it reads what code at that line reads — locals first, then `this`'s members. Private members
are reached as a debugger's evaluate reaches them: the visibility error is suppressed here, and the class is defined
in the probed class's nest (ProbeCodeDefinition). A compile error in an expression fails the call with the
expression's own line and column.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from gradle_repl.frames import Probe
from gradle_repl.worker.java import JavaObject
from gradle_repl.worker.kotlinc import DIAGNOSTIC, kotlinc
from gradle_repl.worker.results.safety import jstr
from gradle_repl.worker.runner import ProbeError

__all__ = ["SiteCode", "compile_sites"]

_CLASS = "GradleReplProbe"
# The errors Kotlin reports on what a debugger may do (read a private member, name a Java class Kotlin maps), and the
# warnings generated code can't help (a local left unused, a cast the compiler can't check).
_SUPPRESSED = (
    "INVISIBLE_MEMBER",
    "INVISIBLE_REFERENCE",
    "UNCHECKED_CAST",
    "UNUSED_VARIABLE",
    "UNUSED_PARAMETER",
    "UNUSED_EXPRESSION",
    "NAME_SHADOWING",
    "USELESS_CAST",
    "DEPRECATION",
    "PLATFORM_CLASS_MAPPED_TO_KOTLIN",
    "ERROR_SUPPRESSION",
)
# The generated methods' own parameters, named so no local of the project shadows them.
_SELF, _LOCALS, _INDEX = "gradleReplSelf", "gradleReplLocals", "gradleReplIndex"


@dataclass
class SiteCode:
    """One site's compiled class: its bytes, or None when the probe has no `when` and no `capture`."""

    site: JavaObject
    bytes: bytes | None = None


@dataclass
class _Expression:
    probe: int
    part: str  # `when`, `capture[0]`
    file: Path
    first_line: int  # where it starts in the generated file
    line_count: int


@dataclass
class _Source:
    lines: list[str] = field(default_factory=list)

    def add(self, text: str) -> int:
        """Appends lines; the 1-based line the text starts on."""
        start = len(self.lines) + 1
        self.lines += text.split("\n")
        return start


def compile_sites(
    probes: list[tuple[int, Probe, list[JavaObject]]],
    classpath: list[str],
    views: dict[str, bytes],
    loader: JavaObject,
    types: JavaObject,
) -> dict[tuple[int, int], bytes]:
    """Each (probe, site) with expressions compiled to its class's bytes; a ProbeError when an expression doesn't
        compile (the call then runs nothing). `views` are the probed classes as the code compiles against them (binary
    name → class file: ProbeClassFiles.compileView), `loader` is the project's (where the types the code names resolve), `types`
        gradlerepl.probes.ProbeTypes (which names them in Kotlin)."""
    wanted = [(index, probe, sites) for index, probe, sites in probes if probe.when or probe.capture]
    if not wanted:
        return {}
    staging = Path(tempfile.mkdtemp(prefix="gradle-repl-probe-"))
    try:
        sources: dict[str, _Source] = {}
        expressions: list[_Expression] = []
        classes: dict[tuple[int, int], str] = {}
        for index, probe, sites in wanted:
            for number, site in enumerate(sites):
                package = jstr(site.getClassName()).rpartition(".")[0]
                source = sources.setdefault(package, _Source())
                if not source.lines:
                    source.add(_header(package))
                name = f"{_CLASS}{index}x{number}"
                file = staging / f"{package or 'root'}.kt"
                expressions += _site_class(source, file, name, index, probe, site, loader, types)
                classes[(index, number)] = f"{package}.{name}" if package else name
        files = []
        for package, source in sources.items():
            path = staging / f"{package or 'root'}.kt"
            path.write_text("\n".join(source.lines) + "\n")
            files.append(str(path))
        output = staging / "classes"
        viewed = staging / "views"
        for name, content in views.items():
            path = viewed / (name.replace(".", "/") + ".class")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        errors = kotlinc([*files, "-d", str(output), *_options([str(viewed), *classpath])])
        if errors is not None:
            raise ProbeError(_first_error(errors, expressions, probes))
        return {key: (output / (name.replace(".", "/") + ".class")).read_bytes() for key, name in classes.items()}
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _header(package: str) -> str:
    suppressed = ", ".join(f'"{s}"' for s in _SUPPRESSED)
    return f"@file:Suppress({suppressed})\n" + (f"package {_quoted_path(package)}\n" if package else "")


def _site_class(
    source: _Source,
    file: Path,
    name: str,
    index: int,
    probe: Probe,
    site: JavaObject,
    loader: JavaObject,
    types: JavaObject,
) -> list[_Expression]:
    declarations = []
    for position, local in enumerate(site.getLocals()):
        kotlin_type = jstr(types.sourceType(local, loader))
        variable = _quoted(jstr(local.getName()))
        if len(jstr(local.getDescriptor())) == 1:  # a primitive, boxed by the probe's call: never null
            declarations.append(f"        val {variable} = {_LOCALS}[{position}] as {kotlin_type}")
        else:
            declarations.append(
                f"        val {variable} = gradlerepl.probes.ProbeCode.local<{kotlin_type}>({_LOCALS}, {position})"
            )
    # `run`: a static method has no `this`.
    scope = f"with({_SELF} as {_this_type(site, loader, types)})" if bool(site.getHasThis()) else "run"
    found: list[_Expression] = []
    source.add(f"class {name} : gradlerepl.probes.ProbeCode {{")
    source.add(f"    override fun holds({_SELF}: kotlin.Any?, {_LOCALS}: kotlin.Array<kotlin.Any?>): kotlin.Boolean {{")
    source.add("\n".join(declarations) or "        // no locals")
    source.add(f"        return {scope} {{")
    condition = probe.when or "true"
    start = source.add(condition)
    if probe.when:
        found.append(_Expression(index, "when", file, start, condition.count("\n") + 1))
    source.add("        }\n    }")
    source.add(
        f"    override fun capture({_INDEX}: kotlin.Int, {_SELF}: kotlin.Any?, {_LOCALS}: kotlin.Array<kotlin.Any?>): kotlin.Any? {{"
    )
    source.add("\n".join(declarations) or "        // no locals")
    source.add(f"        return {scope} {{\n            when ({_INDEX}) {{")
    for number, expression in enumerate(probe.capture):
        source.add(f"                {number} -> {{")
        start = source.add(expression)
        found.append(_Expression(index, f"capture[{number}]", file, start, expression.count("\n") + 1))
        source.add("                }")
    source.add("                else -> null\n            }\n        }\n    }\n}")
    return found


def _this_type(site: JavaObject, loader: JavaObject, types: JavaObject) -> str:
    """`this`'s type at the site in Kotlin: an extension function's receiver's, else the class's (`kotlin.Any` for a
    class source can't name: a lambda's, an anonymous one's)."""
    receiver = site.getReceiver()
    if receiver is not None:
        return jstr(types.sourceType(receiver, loader))
    named = types.ownerType(site.getClassName(), loader)
    return jstr(named) if named is not None else "kotlin.Any"


def _options(classpath: list[str]) -> list[str]:
    return [
        "-classpath",
        os.pathsep.join(classpath),
        "-no-stdlib",
        "-no-reflect",
        "-jvm-target",
        "17",
        # Lambdas as invokedynamic, never classes of their own: the probe's class is defined alone, as a hidden class.
        "-Xlambdas=indy",
        "-Xsam-conversions=indy",
        "-nowarn",
    ]


def _first_error(
    lines: list[str], expressions: list[_Expression], probes: list[tuple[int, Probe, list[JavaObject]]]
) -> str:
    """The first error, said of the probe's expression it is in: `probes[0].when: … (line 1, col 5)`."""
    for line in lines:
        match = DIAGNOSTIC.match(line.strip())
        if match is None:
            continue
        number = int(match["line"])
        for expression in expressions:
            if Path(match["file"]).name == expression.file.name and (
                expression.first_line <= number < expression.first_line + expression.line_count
            ):
                column = match["column"] or "1"
                where = f"line {number - expression.first_line + 1}, col {column}"
                return f"probes[{expression.probe}].{expression.part} doesn't compile: {match['message']} ({where})"
        return f"a probe's code doesn't compile where gradle-repl declares the line's locals: {match['message']}"
    return "a probe's code doesn't compile: " + (lines[0] if lines else "the compiler said nothing")


def _quoted(name: str) -> str:
    return f"`{name}`"


def _quoted_path(package: str) -> str:
    return ".".join(_quoted(part) for part in package.split("."))
