"""A probe's `when` and `capture` as Kotlin the session's compiler compiles before the call runs.

Each site (a method where the probe's line starts) gets a class in the probed class's package implementing
gradlerepl.both.ProbeCode: the site's live locals declared by name with their declared types, then each expression
inside `with(this)`, so it reads what code at that line reads — locals first, then `this`'s members. Private members
are reached as a debugger's evaluate reaches them: the visibility error is suppressed here, and the class is defined
in the probed class's nest (gradlerepl.both.ProbeCodes). A compile error in an expression fails the call with the
expression's own line and column.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from gradle_repl.frames import Probe
from gradle_repl.worker.java import JavaObject, java_class
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
_SELF, _LOCALS, _INDEX, _LOCAL = "gradleReplSelf", "gradleReplLocals", "gradleReplIndex", "gradleReplLocal"
# A local's JVM descriptor → its Kotlin type, for the primitives (a linked call passes them unboxed).
_PRIMITIVES = {
    "Z": "kotlin.Boolean",
    "C": "kotlin.Char",
    "B": "kotlin.Byte",
    "S": "kotlin.Short",
    "I": "kotlin.Int",
    "J": "kotlin.Long",
    "F": "kotlin.Float",
    "D": "kotlin.Double",
}
# The site class's two methods ProbeCode's holds and capture reach, in the probed class's type when the site has `this`.
_HOLDS, _CAPTURE = "gradleReplHolds", "gradleReplCapture"


@dataclass
class SiteCode:
    """One site's compiled class: its bytes, or None when the probe has no `when` and no `capture`."""

    site: JavaObject
    bytes: bytes | None = None


@dataclass
class _Expression:
    probe: int
    site: int
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


@dataclass
class CompiledSites:
    """Each (probe, site) compiled, and the sites left out because the probe's code doesn't compile there (a lambda
    on the line, whose method sees neither `this` nor the line's locals), with why."""

    codes: dict[tuple[int, int], bytes] = field(default_factory=dict)
    left_out: dict[tuple[int, int], str] = field(default_factory=dict)


def compile_sites(
    probes: list[tuple[int, Probe, list[JavaObject]]],
    classpath: list[str],
    views: dict[str, bytes],
    loader: JavaObject,
    types: JavaObject,
) -> CompiledSites:
    """Each (probe, site) with expressions compiled to its class's bytes. A site where the code doesn't compile is left
    out when the probe compiles at another; a probe that compiles nowhere is a ProbeError (the call then runs nothing),
    with its expression's line and column. `views` are the probed classes as the code compiles against them (binary
    name → class file: ProbeClassFiles.compileView), `loader` is the project's (where the types the code names
    resolve), `types` gradlerepl.probes.ProbeTypes (which names them in Kotlin)."""
    wanted = [
        (index, number, probe, site)
        for index, probe, sites in probes
        if probe.when or probe.capture
        for number, site in enumerate(sites)
    ]
    compiled = CompiledSites()
    staging = Path(tempfile.mkdtemp(prefix="gradle-repl-probe-"))
    try:
        viewed = staging / "views"
        for name, content in views.items():
            path = viewed / (name.replace(".", "/") + ".class")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        # At most one round per site: each failed round leaves out at least one site, or raises.
        for attempt in range(len(wanted) + 1):
            active = [entry for entry in wanted if (entry[0], entry[1]) not in compiled.left_out]
            if not active:
                return compiled
            round_dir = staging / f"round-{attempt}"
            files, classes, expressions = _sources(round_dir, active, loader, types)
            output = round_dir / "classes"
            errors = kotlinc([*files, "-d", str(output), *_options([str(viewed), *classpath])])
            if errors is None:
                compiled.codes = {
                    key: (output / (name.replace(".", "/") + ".class")).read_bytes() for key, name in classes.items()
                }
                return compiled
            failing = _failing_sites(errors, expressions)
            if not failing:
                raise ProbeError(_first_error(errors, expressions))
            for index in {key[0] for key in failing}:
                others = [e for e in active if e[0] == index and (e[0], e[1]) not in failing]
                if not others:
                    raise ProbeError(failing[next(key for key in failing if key[0] == index)])
            compiled.left_out.update(failing)
        raise ProbeError("a probe's code doesn't compile at any of its places")
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _sources(
    directory: Path, active: list[tuple[int, int, Probe, JavaObject]], loader: JavaObject, types: JavaObject
) -> tuple[list[str], dict[tuple[int, int], str], list[_Expression]]:
    """The generated files (one per package), each site's class name, and where each expression is in them."""
    directory.mkdir(parents=True)
    sources: dict[str, _Source] = {}
    expressions: list[_Expression] = []
    classes: dict[tuple[int, int], str] = {}
    for index, number, probe, site in active:
        package = jstr(site.getClassName()).rpartition(".")[0]
        source = sources.setdefault(package, _Source())
        if not source.lines:
            source.add(_header(package))
        name = f"{_CLASS}{index}x{number}"
        file = directory / f"{package or 'root'}.kt"
        expressions += _site_class(source, file, name, index, number, probe, site, loader, types)
        classes[(index, number)] = f"{package}.{name}" if package else name
    files = []
    for package, source in sources.items():
        path = directory / f"{package or 'root'}.kt"
        path.write_text("\n".join(source.lines) + "\n")
        files.append(str(path))
    return files, classes, expressions


def _header(package: str) -> str:
    suppressed = ", ".join(f'"{s}"' for s in _SUPPRESSED)
    return f"@file:Suppress({suppressed})\n" + (f"package {_quoted_path(package)}\n" if package else "")


def _site_class(
    source: _Source,
    file: Path,
    name: str,
    index: int,
    number: int,
    probe: Probe,
    site: JavaObject,
    loader: JavaObject,
    types: JavaObject,
) -> list[_Expression]:
    locals_ = [
        _Local(position, local, jstr(types.sourceType(local, loader)))
        for position, local in enumerate(site.getLocals())
    ]
    # A site with `this` runs the expressions in an extension of its type, reached by a nullable cast and a safe call:
    # `with(self as T)` would check for null through Intrinsics. A static method's site has no receiver.
    has_this = bool(site.getHasThis())
    receiver = f"{_this_type(site, loader, types)}." if has_this else ""
    reach = f"({_SELF} as {_this_type(site, loader, types)}?)?." if has_this else ""
    otherwise = " ?: false" if has_this else ""
    passing = jstr(java_class("gradlerepl.both.ProbeCode", loader=loader).PASS)
    parameters = "".join(f", {local.parameter}" for local in locals_)
    arguments = ", ".join(local.parameter_name for local in locals_)
    found: list[_Expression] = []
    source.add(f"class {name} : gradlerepl.both.ProbeCode() {{")
    source.add(
        f"    override fun holds({_SELF}: kotlin.Any?, {_LOCALS}: kotlin.Array<kotlin.Any?>): kotlin.Boolean =\n"
        f"        {reach}{_HOLDS}({', '.join(local.from_array for local in locals_)}){otherwise}"
    )
    source.add(
        f"    override fun capture({_INDEX}: kotlin.Int, {_SELF}: kotlin.Any?, {_LOCALS}: kotlin.Array<kotlin.Any?>): "
        f"kotlin.Any? =\n        {reach}{_CAPTURE}({_INDEX}{''.join(f', {local.from_array}' for local in locals_)})"
    )
    # A pass of the probed line as its linked call reaches it (ProbeHook.site): the locals as their slots hold them,
    # boxed only for a pass to record.
    source.add(
        f"    fun {passing}({_SELF}: kotlin.Any?{parameters}) {{\n"
        "        val gradleReplEntered = gradleReplEnter()\n"
        "        if (gradleReplEntered == GRADLE_REPL_NOT_ENTERED) return\n"
        "        var gradleReplHeld = false\n"
        "        var gradleReplThrown: kotlin.Throwable? = null\n"
        f"        try {{\n            gradleReplHeld = {reach}{_HOLDS}({arguments}){otherwise}\n"
        "        } catch (gradleReplError: kotlin.Throwable) {\n            gradleReplThrown = gradleReplError\n"
        "        } finally {\n            gradleReplLeave(gradleReplEntered)\n        }\n"
        "        if (gradleReplHeld || gradleReplThrown != null) {\n"
        f"            gradleReplPassed(gradleReplHeld, gradleReplThrown, {_SELF}, kotlin.arrayOf<kotlin.Any?>({arguments}))\n"
        "        }\n    }"
    )
    source.add(f"    private fun {receiver}{_HOLDS}({parameters.removeprefix(', ')}): kotlin.Boolean {{")
    source.add("\n".join(local.from_parameter for local in locals_) or "        // no locals")
    source.add("        return (")
    condition = probe.when or "true"
    start = source.add(condition)
    if probe.when:
        found.append(_Expression(index, number, "when", file, start, condition.count("\n") + 1))
    source.add("        )\n    }")
    source.add(f"    private fun {receiver}{_CAPTURE}({_INDEX}: kotlin.Int{parameters}): kotlin.Any? {{")
    source.add("\n".join(local.from_parameter for local in locals_) or "        // no locals")
    source.add(f"        return when ({_INDEX}) {{")
    for position, expression in enumerate(probe.capture):
        source.add(f"            {position} -> {{")
        start = source.add(expression)
        found.append(_Expression(index, number, f"capture[{position}]", file, start, expression.count("\n") + 1))
        source.add("            }")
    source.add("            else -> null\n        }\n    }\n}")
    return found


@dataclass
class _Local:
    """A site's local as the generated code declares it: by its name, with its declared type.

    Unchecked (a cast, `as Int`, checks for null through kotlin.jvm.internal.Intrinsics, which a Java app doesn't
    have). A primitive is declared as its Kotlin type, so it compares as a primitive (a platform `Int!` would compare
    through Intrinsics too)."""

    position: int
    local: JavaObject
    kotlin_type: str

    @property
    def _variable(self) -> str:
        return _quoted(jstr(self.local.getName()))

    @property
    def _primitive(self) -> str | None:
        return _PRIMITIVES.get(jstr(self.local.getDescriptor()))

    @property
    def parameter_name(self) -> str:
        return f"{_LOCAL}{self.position}"

    @property
    def parameter(self) -> str:
        """The `when`'s parameter: the slot's primitive type, else kotlin.Any? (what the linked call passes)."""
        return f"{self.parameter_name}: {self._primitive or 'kotlin.Any?'}"

    @property
    def from_array(self) -> str:
        """The argument `holds` and `capture` pass for it, read from the boxed locals."""
        cast = f"<{self._primitive}>" if self._primitive else ""
        return f"gradlerepl.both.ProbeCode.local{cast}({_LOCALS}, {self.position})"

    @property
    def from_parameter(self) -> str:
        """Its declaration in the `when`'s and the `capture`'s methods, from its parameter."""
        parameter = self.parameter_name
        if self._primitive == self.kotlin_type:
            return f"        val {self._variable}: {self.kotlin_type} = {parameter}"
        if self._primitive:
            return f"        val {self._variable}: {self.kotlin_type} = gradlerepl.both.ProbeCode.local({parameter})"
        return f"        val {self._variable} = gradlerepl.both.ProbeCode.local<{self.kotlin_type}>({parameter})"


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
        # No null checks of the generated methods' own parameters and calls: they would call kotlin.jvm.internal.
        # Intrinsics, which a Java app without Kotlin doesn't have where the probe's code is defined (the probed
        # class's loader). What the expressions themselves use of Kotlin's library still needs it there.
        "-Xno-param-assertions",
        "-Xno-call-assertions",
        "-Xno-receiver-assertions",
        "-nowarn",
    ]


def _failing_sites(lines: list[str], expressions: list[_Expression]) -> dict[tuple[int, int], str]:
    """The sites whose expressions have errors, each with its first, said of the expression:
    `probes[0].when doesn't compile: … (line 1, col 5)`."""
    failing: dict[tuple[int, int], str] = {}
    for line in lines:
        match = DIAGNOSTIC.match(line.strip())
        if match is None:
            continue
        number = int(match["line"])
        for expression in expressions:
            if Path(match["file"]).name == expression.file.name and (
                expression.first_line <= number < expression.first_line + expression.line_count
            ):
                where = f"line {number - expression.first_line + 1}, col {match['column'] or '1'}"
                said = f"probes[{expression.probe}].{expression.part} doesn't compile: {match['message']} ({where})"
                failing.setdefault((expression.probe, expression.site), said)
    return failing


def _first_error(lines: list[str], expressions: list[_Expression]) -> str:
    """An error outside the probes' expressions: where gradle-repl declares a line's locals."""
    for line in lines:
        if (match := DIAGNOSTIC.match(line.strip())) is not None:
            return f"a probe's code doesn't compile where gradle-repl declares the line's locals: {match['message']}"
    return "a probe's code doesn't compile: " + (lines[0] if lines else "the compiler said nothing")


def _quoted(name: str) -> str:
    return f"`{name}`"


def _quoted_path(package: str) -> str:
    return ".".join(_quoted(part) for part in package.split("."))
