"""The Kotlin compiler run in this worker's JVM (kotlin-compiler-embeddable, on the class path for the REPL): for an
edit's sources (worker/classes/edit_compiler.py) and a probe's expressions (worker/probes/expressions.py)."""

from __future__ import annotations

import re

from gradle_repl.worker.java import java_class, string_array
from gradle_repl.worker.results.safety import jstr

__all__ = ["DIAGNOSTIC", "kotlinc"]

# A diagnostic as kotlinc (`path:line:column: error: message`) and javac (`path:line: error: message`) print it.
DIAGNOSTIC = re.compile(r"^(?P<file>.+?\.(?:kt|java)):(?P<line>\d+)(?::(?P<column>\d+))?: error: (?P<message>.*)$")
# What K2JVMCompiler.exec returns when the sources compiled (its ExitCode enum's name).
_OK = "OK"
# The compiler's application environment (its file systems, jar indexes, JDK image) is disposed after each compile
# unless this property is set (CompilerSystemProperties.KOTLIN_COMPILER_ENVIRONMENT_KEEPALIVE_PROPERTY), as the Kotlin
# daemon sets it: kept, the next compile starts warm.
_KEEP_ALIVE = "kotlin.environment.keepalive"


def kotlinc(args: list[str]) -> list[str] | None:
    """The compile's error lines, or None when it compiled."""
    java_class("java.lang.System").setProperty(_KEEP_ALIVE, "true")
    buffer = java_class("java.io.ByteArrayOutputStream")()
    stream = java_class("java.io.PrintStream")(buffer, True, "UTF-8")
    compiler = java_class("org.jetbrains.kotlin.cli.jvm.K2JVMCompiler")()
    code = compiler.exec_(stream, string_array(args))  # JPype names a Java method `exec` exec_ (a Python word)
    stream.flush()
    text = jstr(buffer.toString("UTF-8"))
    if jstr(code.name()) == _OK:
        return None
    return text.splitlines() or [f"the Kotlin compiler ended with {jstr(code.name())}"]
