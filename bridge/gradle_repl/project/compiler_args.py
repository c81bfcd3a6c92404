"""Which of a build's free compiler arguments matter to the REPL, and the compiler plugins known by name."""

from __future__ import annotations

__all__ = ["relevant_compiler_args"]

# Arguments with a separate value that changes what code compiles.
_WITH_VALUE = ("-language-version", "-api-version")
# Flags without a value that change what code compiles (or the metadata it carries).
_FLAGS = ("-progressive", "-java-parameters")
# -X flags about the build's files and output rather than the language; meaningless or harmful in a REPL.
_BUILD_ONLY = (
    "-Xplugin",
    "-Xcompiler-plugin",
    "-Xfriend-paths",
    "-Xjava-source-roots",
    "-Xbuild-file",
    "-Xmodule-path",
    "-Xreport-",
    "-Xdump-",
    "-Xjdk-release",
    "-Xprofile",
    "-Xklib",
    "-Xmulti-platform",
    "-Xcommon-sources",
    "-Xfragment",
    "-Xseparate-kmp-compilation",
)


def relevant_compiler_args(args: list[str]) -> list[str]:
    """Language/API versions, opt-ins, progressive mode, -java-parameters and -X feature flags; the rest is dropped."""
    kept: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _WITH_VALUE and i + 1 < len(args):
            kept += [arg, args[i + 1]]
            i += 2
            continue
        if arg.startswith(tuple(f"{name}=" for name in _WITH_VALUE)):
            kept.append(arg)
        elif arg == "-opt-in" and i + 1 < len(args):
            kept += [arg, args[i + 1]]
            i += 2
            continue
        elif arg in _FLAGS or arg.startswith("-opt-in=") or (arg.startswith("-X") and not arg.startswith(_BUILD_ONLY)):
            kept.append(arg)
        i += 1
    return kept
