"""Only free compiler arguments that change what code compiles reach the REPL."""

from gradle_repl.compiler_args import relevant_compiler_args


def test_keeps_language_flags_and_drops_build_plumbing():
    args = [
        "-language-version", "2.1", "-api-version=2.1", "-opt-in", "a.B", "-opt-in=c.D", "-Xcontext-parameters",
        "-progressive", "-Xplugin=/x.jar", "-Xfriend-paths=/out", "-verbose", "-Xjdk-release=17", "-Werror",
    ]
    assert relevant_compiler_args(args) == [
        "-language-version", "2.1", "-api-version=2.1", "-opt-in", "a.B", "-opt-in=c.D", "-Xcontext-parameters",
        "-progressive",
    ]
