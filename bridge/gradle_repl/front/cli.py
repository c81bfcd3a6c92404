"""The `gradle-repl` command: serve (MCP on stdio or HTTP), resolve, eval, check, repl, sessions, jvms, agent-path, token,
demo. Exit 0 ok, 1 failure, 2 usage."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gradle_repl.project.buildtools import BUILD_TOOLS
from gradle_repl.front.attaching import agent_option, attach_session, jvm_line
from gradle_repl.front.content import as_text, check_to_result, reply_to_result
from gradle_repl.errors import GradleReplError
from gradle_repl.host.manager import SessionManager
from gradle_repl.host.sessions import SessionInfo
from gradle_repl.project.process import BuildLine
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.project.running_jvms import list_running_jvms
from gradle_repl.front.token import server_token
from gradle_repl.options import SessionOptions, session_options
from gradle_repl.settings import DEFAULT_BUILD_TOOL, DEFAULT_PROJECT_PATH, DEFAULT_SESSION_ID, DEFAULT_SOURCE_SET, DEFAULTS, Settings

if TYPE_CHECKING:
    from gradle_repl.front.content import CallToolResult

__all__ = ["main", "settings_for"]

class UsageError(GradleReplError):
    """A command line that can't mean anything: exit 2, as argparse's own usage errors."""


def _project_arguments(parser: argparse.ArgumentParser, *, root_optional: bool, default: str | None = ".") -> None:
    parser.add_argument("project_root", nargs="?" if root_optional else None, default=default, help="project directory")
    parser.add_argument("--project", default=DEFAULT_PROJECT_PATH, help="Gradle project path (:app) or Maven module (default :)")
    parser.add_argument("--source-set", default=DEFAULT_SOURCE_SET, help="source set (default main); for Kotlin Multiplatform a JVM compilation such as jvmMain or desktopMain")
    parser.add_argument("--build-tool", choices=(DEFAULT_BUILD_TOOL, *(t.name for t in BUILD_TOOLS)), default=DEFAULT_BUILD_TOOL)
    parser.add_argument("-v", "--verbose", action="store_true", help="show the build tool's own output as it runs")


def _worker_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--heap-mb", type=int, default=DEFAULTS.heap_mb, help=f"heap cap of each session's JVM (default {DEFAULTS.heap_mb})"
    )
    parser.add_argument(
        "--timeout", type=float, default=DEFAULTS.snippet_timeout_seconds,
        help=f"default snippet timeout in seconds (default {DEFAULTS.snippet_timeout_seconds:g})",
    )
    parser.add_argument(
        "--no-class-data-sharing",
        action="store_true",
        help="don't start JVMs from (or write) the cached archive of the compiler's classes (starts are ~2x slower)",
    )
    parser.add_argument(
        "--full-jit",
        action="store_true",
        help="let the JVM's C2 compiler optimise too (for timing hot loops in snippets; starts are slower)",
    )


def _session_option_arguments(parser: argparse.ArgumentParser) -> None:
    options = parser.add_argument_group("session options (from the session's first snippet; other ones restart it)")
    options.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="a variable for the session's JVM (repeat)")
    options.add_argument(
        "--env-source", choices=("none", "inherit", "shell"),
        help="the JVM's other variables: inherit (this process's, the default), shell (your login shell's) or none",
    )
    options.add_argument("--jvm-arg", action="append", default=[], metavar="FLAG", help="a system property or JVM flag (repeat)")
    options.add_argument("--opt-in", action="append", default=[], metavar="ANNOTATION", help="an annotation the compiler opts in to (repeat)")


def _session_options(args: argparse.Namespace) -> SessionOptions | None:
    """The session options the command line gives, or None when it gives none."""
    env: dict[str, str] = {}
    for pair in args.env:
        name, equals, value = pair.partition("=")
        if not equals:
            raise UsageError(f"--env {pair!r}: write NAME=VALUE")
        env[name] = value
    return session_options(
        env=env or None, env_source=args.env_source, jvm_args=args.jvm_arg or None, opt_in=args.opt_in or None,
    )


def _option_arguments(options: SessionOptions | None) -> dict[str, object]:
    """The same options as run_kotlin_snippet's arguments, for a server's session."""
    if options is None:
        return {}
    return {"env": options.env, "envSource": options.env_source, "jvmArgs": list(options.jvm_args), "optIn": list(options.opt_in)}


def _connect_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--connect", nargs="?", const=DEFAULTS.http_url(), metavar="URL",
        help=f"run in a session of a running `serve --http` (URL default {DEFAULTS.http_url()}); the token is read as the server reads it",
    )
    parser.add_argument("--session", metavar="ID", help="with --connect: the session (default 'default', the tools' default)")


def _attach_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--attach", metavar="PID", type=int,
        help="run the snippets inside this running JVM (`gradle-repl jvms` lists them); PROJECT_ROOT, when given, adds its Kotlin and compiler plugins",
    )


def settings_for(args: argparse.Namespace, **overrides: object) -> Settings:
    """The settings a command runs with: the defaults, the command's flags over them, then the overrides."""
    flags: dict[str, object] = {
        "snippet_timeout_seconds": args.timeout, "heap_mb": args.heap_mb,
        "class_data_sharing": not args.no_class_data_sharing, "full_jit": args.full_jit,
    }
    if args.command == "serve":
        flags.update(max_sessions=args.max_sessions, idle_timeout_seconds=args.idle_timeout, spare_worker=not args.no_spare_worker)
        flags.update(http_host=args.host, http_port=args.port)
    return Settings.model_validate({**flags, **overrides})


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradle-repl", description="Run Kotlin snippets inside a Gradle or Maven JVM project (MCP server and CLI)."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the MCP server on stdio (or over Streamable HTTP with --http)")
    serve.add_argument("--http", action="store_true", help="serve MCP over Streamable HTTP at http://HOST:PORT/mcp, bearer token required")
    serve.add_argument("--host", default=DEFAULTS.http_host, help=f"with --http: the address to listen on (default {DEFAULTS.http_host})")
    serve.add_argument("--port", type=int, default=DEFAULTS.http_port, help=f"with --http: the port (default {DEFAULTS.http_port}; 0 picks a free one)")
    serve.add_argument(
        "--allow-remote", action="store_true",
        help="with --http: allow a --host other machines can reach (anyone with the token can then run code as you)",
    )
    serve.add_argument(
        "--max-sessions", type=int, default=DEFAULTS.max_sessions, help=f"live sessions at most (default {DEFAULTS.max_sessions})"
    )
    serve.add_argument(
        "--idle-timeout", type=float, default=DEFAULTS.idle_timeout_seconds, help="close sessions idle this many seconds"
    )
    serve.add_argument(
        "--no-spare-worker", action="store_true", help="don't keep a warmed spare JVM for new sessions (saves ~0.4 GB)"
    )
    _worker_arguments(serve)

    resolve = commands.add_parser("resolve", help="build a project and show what snippets would see")
    _project_arguments(resolve, root_optional=True)
    resolve.add_argument("--json", action="store_true", help="print the full environment as JSON")
    resolve.add_argument("--refresh", action="store_true", help="ignore the cache")

    evaluate = commands.add_parser("eval", help="run snippets in one session and print the results")
    _project_arguments(evaluate, root_optional=True, default=None)
    evaluate.add_argument("-e", "--code", action="append", required=True, help="a snippet (repeat for more)")
    _worker_arguments(evaluate)
    _session_option_arguments(evaluate)
    _connect_arguments(evaluate)
    _attach_argument(evaluate)

    check = commands.add_parser("check", help="compile snippets in one session without running them; print diagnostics")
    _project_arguments(check, root_optional=False)
    check.set_defaults(attach=None)
    check.add_argument(
        "-e", "--code", action="append", required=True,
        help="a snippet to check (repeat for more; each is checked against the session as it is, none is run)",
    )
    _worker_arguments(check)

    repl = commands.add_parser("repl", help="an interactive Kotlin prompt with the project's classes, plugins and state")
    _project_arguments(repl, root_optional=True, default=None)
    _worker_arguments(repl)
    _session_option_arguments(repl)
    _connect_arguments(repl)
    _attach_argument(repl)

    sessions = commands.add_parser("sessions", help="list the live sessions of a running `serve --http`")
    sessions.add_argument("--connect", metavar="URL", default=DEFAULTS.http_url(), help=f"the server (default {DEFAULTS.http_url()})")
    sessions.add_argument("--json", action="store_true", help="print them as JSON")

    commands.add_parser("jvms", help="list the JVMs running here and whether eval --attach can attach to each")
    commands.add_parser("agent-path", help="print the -javaagent: option that loads the attach agent at an app's start (Java 21+ then doesn't warn)")
    commands.add_parser("demo", help="run a short session against the bundled sample-project through the MCP server")
    commands.add_parser("token", help="print the bearer token `serve --http` requires (made on first use)")
    return parser


def _progress(args: argparse.Namespace) -> Callable[[str], None]:
    """Prints gradle-repl's own progress lines, and the build tool's only with --verbose (its error
    lines come with a failure anyway, once)."""

    def progress(line: str) -> None:
        if args.verbose or not isinstance(line, BuildLine):
            print(line, file=sys.stderr)

    return progress


def _resolve(args: argparse.Namespace) -> int:
    progress = _progress(args)
    resolved = resolve_environment(
        args.project_root,
        project_path=args.project,
        source_set=args.source_set,
        build_tool=args.build_tool,
        refresh=args.refresh,
        on_progress=None if args.json else progress,
    )
    for notice in resolved.notices:
        print(notice, file=sys.stderr)
    if args.json:
        print(resolved.environment.model_dump_json(indent=2))
    else:
        print(resolved.environment.summary())
        print(f"({resolved.origin()})")
    return 0


def _print_result(result: CallToolResult) -> bool:
    """Prints a result's content as text; true when it is an error."""
    for block in as_text(result):
        print(block)
    return bool(result.is_error)


async def _eval_connected(args: argparse.Namespace) -> int:
    from gradle_repl.front import remote

    async with remote.connected(args.connect) as client:
        arguments = await _joined(client, args)
        failed = False
        for code in args.code:
            print(f">>> {code}")
            failed |= _print_result(await client.call_tool("run_kotlin_snippet", {**arguments, "code": code}))
    return 1 if failed else 0


async def _joined(client: Any, args: argparse.Namespace) -> dict[str, Any]:
    """run_kotlin_snippet's arguments for the session --connect joins: a live one's own project, else the one named."""
    from gradle_repl.front import remote

    session_id = args.session or DEFAULT_SESSION_ID
    info = await remote.live_session(client, session_id)
    _same_project(info, args)
    arguments = remote.snippet_arguments(
        info, session_id, args.project_root, projectPath=args.project, sourceSet=args.source_set, buildTool=args.build_tool,
    )
    return arguments | _option_arguments(_session_options(args))


def _same_project(info: SessionInfo | None, args: argparse.Namespace) -> None:
    """A live session runs one project, project path, source set and build tool; naming others would restart it
    under whoever else uses it. What the command leaves at its default is not a choice: the session's own is used."""
    if info is None:
        return
    asked = []
    if args.project_root is not None and Path(args.project_root).resolve() != Path(info.project_root).resolve():
        asked.append(f"project directory {Path(args.project_root).resolve()}")
    for flag, given, default, running in (
        ("--project", args.project, DEFAULT_PROJECT_PATH, info.project_path),
        ("--source-set", args.source_set, DEFAULT_SOURCE_SET, info.source_set),
        ("--build-tool", args.build_tool, DEFAULT_BUILD_TOOL, info.build_tool),
    ):
        if given != default and given != running:
            asked.append(f"{flag} {given}")
    if asked:
        raise UsageError(
            f"session {info.session_id!r} runs {info.project_root} {info.project_path} ({info.source_set}, "
            f"{info.build_tool}), not {', '.join(asked)}; leave those out to join it, or pick another --session"
        )


async def _sessions(args: argparse.Namespace) -> int:
    from gradle_repl.front import remote

    async with remote.connected(args.connect) as client:
        live = await remote.sessions(client)
    if args.json:
        print(json.dumps([info.model_dump() for info in live], indent=2))
    elif not live:
        print("No live sessions.")
    for info in [] if args.json else live:
        print(
            f"{info.session_id}\t{info.state}\t{info.project_root} {info.project_path} ({info.source_set})\t"
            f"Kotlin {info.kotlin_version}\t{info.snippets_run} snippet(s), {info.declarations} name(s)\tidle {info.idle_seconds:.0f} s"
        )
    return 0


async def _repl_connected(args: argparse.Namespace) -> int:
    from gradle_repl.front import remote
    from gradle_repl.front.terminal import TerminalOptions, run_terminal

    async with remote.connected(args.connect) as client:
        arguments = await _joined(client, args)
        options = TerminalOptions(
            project_root=arguments["projectRoot"], session_id=arguments["sessionId"], server=args.connect, timeout_seconds=args.timeout,
        )
        return await run_terminal(options, remote.RemoteSessions(client, arguments))


async def _eval(args: argparse.Namespace) -> int:
    """eval and check: each snippet in one session, run or only compiled."""
    if args.command == "eval" and args.connect:
        return await _eval_connected(args)
    if args.project_root is None and not args.attach:
        raise UsageError("eval needs the project directory (or --connect to run in a server's session, or --attach PID)")
    options = _session_options(args) if args.command == "eval" else None
    # One-shot: no spare JVM and no archive training, which would only be killed at exit.
    manager = SessionManager.from_settings(
        settings_for(args, spare_worker=False, train_class_data=False), resolver=resolve_environment
    )
    failed = False
    where = {"session_id": "cli", "project_root": args.project_root or ".", "project_path": args.project,
             "source_set": args.source_set, "build_tool": args.build_tool, "progress": _progress(args)}
    try:
        if args.attach:
            await attach_session(
                manager, "cli", args.attach, project_root=args.project_root, project_path=args.project, source_set=args.source_set,
                build_tool=args.build_tool,
            )
        for code in args.code:
            print(f">>> {code}")
            if args.command == "check":
                result = check_to_result(await manager.check_snippet(**where, code=code))
            else:
                result = reply_to_result(await manager.run_snippet(**where, code=code, options=options))
            failed |= _print_result(result)
    finally:
        await manager.close_all()
    return 1 if failed else 0


async def _repl(args: argparse.Namespace) -> int:
    if args.connect:
        return await _repl_connected(args)
    from gradle_repl.front.terminal import TerminalOptions, run_terminal  # prompt_toolkit only when a person asks for it

    manager = SessionManager.from_settings(settings_for(args, spare_worker=False), resolver=resolve_environment)
    options = TerminalOptions(
        project_root=args.project_root or ".", project_path=args.project, source_set=args.source_set,
        build_tool=args.build_tool, timeout_seconds=args.timeout, session_options=_session_options(args),
    )
    if args.attach:
        await attach_session(
            manager, options.session_id, args.attach, project_root=args.project_root, project_path=args.project,
            source_set=args.source_set, build_tool=args.build_tool,
        )
    return await run_terminal(options, manager)


def _flag_values_joined(argv: Sequence[str]) -> list[str]:
    """`--jvm-arg -Dk=v` as `--jvm-arg=-Dk=v`: a JVM flag starts with '-', which argparse would take for an option."""
    joined: list[str] = []
    waiting = False
    for word in argv:
        if waiting:
            joined[-1] += f"={word}"
        else:
            joined.append(word)
        waiting = word == "--jvm-arg" and not waiting
    return joined


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(_flag_values_joined(sys.argv[1:] if argv is None else argv))
    try:
        if args.command == "serve":
            from gradle_repl.front.server import serve, serve_http

            if args.http:
                from gradle_repl.front.http import ExposureRefused

                try:
                    serve_http(settings_for(args), allow_remote=args.allow_remote)
                except ExposureRefused as refused:
                    raise UsageError(str(refused)) from None
            elif args.host != DEFAULTS.http_host or args.port != DEFAULTS.http_port or args.allow_remote:
                raise UsageError("--host, --port and --allow-remote only apply with --http")
            else:
                serve(settings_for(args))
            return 0
        if args.command == "token":
            token = server_token()
            print(f"(from {token.source})", file=sys.stderr)
            print(token.value)
            return 0
        if args.command == "resolve":
            return _resolve(args)
        if args.command in ("eval", "check"):
            return asyncio.run(_eval(args))
        if args.command == "repl":
            return asyncio.run(_repl(args))
        if args.command == "sessions":
            return asyncio.run(_sessions(args))
        if args.command == "agent-path":
            print(agent_option())
            return 0
        if args.command == "jvms":
            for jvm in list_running_jvms():
                print(jvm_line(jvm))
            return 0
        from gradle_repl.front.demo import run_demo

        return asyncio.run(run_demo())
    except UsageError as error:
        print(f"gradle-repl: {error}", file=sys.stderr)
        return 2
    except GradleReplError as error:
        print(f"gradle-repl: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
