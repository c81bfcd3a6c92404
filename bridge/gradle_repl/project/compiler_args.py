"""Which of a build's free compiler arguments matter to the REPL, and the compiler-plugin options among them."""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["PluginOptionArgs", "plugin_options_in", "relevant_compiler_args"]

# kotlinc's `-P` (K2JVMCompilerArguments.pluginOptions): its value follows as the next argument or, in one argument,
# after "=" ("-P=plugin:…"); an array argument, split on commas as the compiler splits it. kotlinc 2.3.21 refuses
# "-P plugin:…" and "-Pplugin:…" as one argument ("Invalid argument"), so a build never gets past them.
_PLUGIN_OPTION_FLAG = "-P"
_JOINED_PLUGIN_OPTION = re.compile(r"-P=(.*)", re.DOTALL)
# What each option must look like: plugin:<plugin id>:<option name>=<value>.
_PLUGIN_OPTION = re.compile(r"plugin:[^:\s]+:[^=\s]+=.*", re.DOTALL)

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


class PluginOptionArgs(NamedTuple):
    options: list[str]  # each as plugin:<id>:<key>=<value>, as ReplEnvironment.compiler_plugin_options holds them
    rest: list[str]  # the other arguments, in order
    malformed: list[str]  # -P values that name no plugin option (one warning each)


def plugin_options_in(args: list[str]) -> PluginOptionArgs:
    """The compiler-plugin options passed as free arguments (`-P plugin:<id>:<key>=<value>`, in either of the
    compiler's spellings), apart from the rest: a build that configures a plugin so means it for snippets too."""
    options: list[str] = []
    rest: list[str] = []
    malformed: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i].strip()
        if arg == _PLUGIN_OPTION_FLAG and i + 1 < len(args):
            value: str | None = args[i + 1].strip()
            i += 2
        else:
            joined = _JOINED_PLUGIN_OPTION.fullmatch(arg)
            value = joined.group(1) if joined else None
            if value is None:
                rest.append(args[i])
            i += 1
        for part in value.split(",") if value is not None else []:
            (options if _PLUGIN_OPTION.fullmatch(part.strip()) else malformed).append(part.strip())
    return PluginOptionArgs(list(dict.fromkeys(options)), rest, malformed)
