"""The `gradle-repl` command: serve (MCP on stdio or HTTP), resolve, eval, check, repl, sessions, jvms, agent-path, token,
demo, doctor, cache. Exit 0 ok, 1 failure, 2 usage."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

import psutil

from gradle_repl import package_version
from gradle_repl.errors import GradleReplError
from gradle_repl.front.attaching import agent_option, attach_session, jvm_line
from gradle_repl.front.cache_command import add_cache_command, run_cache_command
from gradle_repl.front.doctor import add_doctor_command, run_doctor
from gradle_repl.front.probe_arguments import add_probe_arguments, probes_given
from gradle_repl.front.reply_text import ReplyPrinter
from gradle_repl.front.session_protocol import Sessions
from gradle_repl.front.token import server_token
from gradle_repl.host.manager import SessionManager
from gradle_repl.options import SESSION_OPTIONS, SessionOptions, session_options
from gradle_repl.project.buildtools import BUILD_TOOLS
from gradle_repl.project.process import BuildLine
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.project.running_jvms import list_running_jvms
from gradle_repl.settings import (
    DEFAULT_BUILD_TOOL,
    DEFAULT_PROJECT_PATH,
    DEFAULT_SESSION_ID,
    DEFAULT_SOURCE_SET,
    DEFAULTS,
    TEST_SESSION_ID,
    TEST_SOURCE_SET,
    Settings,
)
from gradle_repl.target import SessionTarget

if TYPE_CHECKING:
    from gradle_repl.front.outputs import LiveSession

__all__ = ["main", "settings_for"]

# The session of one `eval` or `check` command: its own, in a manager of its own.
CLI_SESSION_ID = "cli"


class UsageError(GradleReplError):
    """A command line that can't mean anything: exit 2, as argparse's own usage errors."""


def _project_arguments(parser: argparse.ArgumentParser, *, root_optional: bool, default: str | None = ".") -> None:
    parser.add_argument("project_root", nargs="?" if root_optional else None, default=default, help="project directory")
    # Default None: a flag given at its default value is a choice (--connect refuses a session that runs another),
    # one not given is not; _project_defaults fills the defaults in after parsing.
    parser.add_argument(
        "--project", help=f"Gradle project path (:app) or Maven module (default {DEFAULT_PROJECT_PATH})"
    )
    parser.add_argument(
        "--source-set",
        help=f"source set (default {DEFAULT_SOURCE_SET}); for Kotlin Multiplatform a JVM compilation such as jvmMain or desktopMain",
    )
    parser.add_argument(
        "--build-tool",
        choices=(DEFAULT_BUILD_TOOL, *(t.name for t in BUILD_TOOLS)),
        help=f"default {DEFAULT_BUILD_TOOL}",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show the build tool's own output as it runs")


def _worker_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--heap-mb",
        type=int,
        default=DEFAULTS.heap_mb,
        help=f"heap cap of each session's JVM (default {DEFAULTS.heap_mb})",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULTS.snippet_timeout_seconds,
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
    parser.add_argument(
        "--idle-warm-up",
        type=int,
        default=DEFAULTS.idle_warm_up_compiles,
        metavar="COMPILES",
        help="throwaway compiles an idle session's JVM runs to warm its compiler "
        f"(default {DEFAULTS.idle_warm_up_compiles}; 0: none)",
    )


def _session_option_arguments(parser: argparse.ArgumentParser) -> None:
    """A flag per session option (options.SESSION_OPTIONS), under its field's name: a Literal's values are its
    choices; a tuple or a dict (NAME=VALUE) is a flag repeated, one value each."""
    options = parser.add_argument_group("session options (from the session's first snippet; other ones restart it)")
    for option in SESSION_OPTIONS:
        if get_origin(option.type) is Literal:
            options.add_argument(option.flag, dest=option.name, choices=get_args(option.type), help=option.description)
        elif get_origin(option.type) in (tuple, dict):
            options.add_argument(
                option.flag,
                dest=option.name,
                action="append",
                metavar=option.metavar,
                help=f"{option.description} Repeat the flag for each.",
            )
        else:
            raise TypeError(f"session option {option.name}: no flag for its type {option.type} (front/cli.py)")


def _session_options(args: argparse.Namespace) -> SessionOptions | None:
    """The session options the command line gives, or None when it gives none."""
    given: dict[str, object] = {}
    for option in SESSION_OPTIONS:
        value = getattr(args, option.name)
        if get_origin(option.type) is dict and value is not None:
            value = dict(_pair(option.flag, option.metavar, each) for each in value)
        given[option.name] = value
    return session_options(**given)


def _pair(flag: str, metavar: str | None, written: str) -> tuple[str, str]:
    name, equals, value = written.partition("=")
    if not equals:
        raise UsageError(f"{flag} {written!r}: write {metavar}")
    return name, value


def _connect_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--connect",
        nargs="?",
        const=DEFAULTS.http_url(),
        metavar="URL",
        help=f"run in a session of a running `serve --http` (URL default {DEFAULTS.http_url()}); the token is read as the server reads it",
    )
    parser.add_argument(
        "--session", metavar="ID", help="with --connect: the session (default 'default', the tools' default)"
    )


_PROJECT_DEFAULTS = {
    "project": DEFAULT_PROJECT_PATH,
    "source_set": DEFAULT_SOURCE_SET,
    "build_tool": DEFAULT_BUILD_TOOL,
}


def _project_defaults(args: argparse.Namespace) -> argparse.Namespace:
    """The project flags' defaults where they were not given; `args.given` names those that were (at any value)."""
    args.given = {name for name in _PROJECT_DEFAULTS if getattr(args, name, None) is not None}
    for name, default in _PROJECT_DEFAULTS.items():
        if hasattr(args, name) and getattr(args, name) is None:
            setattr(args, name, default)
    return args


def _attach_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--attach",
        metavar="PID|HOST:PORT",
        help="run the snippets inside this running JVM: its pid here (`gradle-repl jvms` lists them), or the HOST:PORT "
        "its agent listens on (`gradle-repl agent-path --listen`); PROJECT_ROOT, when given, adds its Kotlin and compiler plugins",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help="with --attach HOST:PORT: the file holding the agent's token (default: GRADLE_REPL_AGENT_TOKEN, else the "
        "one `agent-path --listen` keeps)",
    )


async def _attach(manager: SessionManager, session_id: str, args: argparse.Namespace) -> None:
    """--attach: by pid (digits) or by the agent's HOST:PORT (with a colon)."""
    given = str(args.attach).strip()
    if given.isdigit():
        pid, address = int(given), None
        if not psutil.pid_exists(pid):
            raise UsageError(
                f"no process has pid {pid}; for an agent listening on a port, give HOST:PORT (127.0.0.1:{pid})"
            )
    elif ":" in given:
        pid, address = None, given
    else:
        raise UsageError(f"--attach takes a pid or HOST:PORT, not {given!r}")
    await attach_session(
        manager,
        session_id,
        pid,
        address=address,
        token_file=args.token_file,
        project_root=args.project_root,
        project_path=args.project,
        source_set=args.source_set,
        build_tool=args.build_tool,
    )


def settings_for(args: argparse.Namespace, **overrides: object) -> Settings:
    """The settings a command runs with: the defaults, the command's flags over them, then the overrides."""
    flags: dict[str, object] = {
        "snippet_timeout_seconds": args.timeout,
        "heap_mb": args.heap_mb,
        "class_data_sharing": not args.no_class_data_sharing,
        "full_jit": args.full_jit,
        "idle_warm_up_compiles": args.idle_warm_up,
    }
    if args.command == "serve":
        flags.update(
            max_sessions=args.max_sessions,
            idle_timeout_seconds=args.idle_timeout,
            spare_worker=not args.no_spare_worker,
        )
        flags.update(http_host=args.host, http_port=args.port)
    return Settings.model_validate({**flags, **overrides})


class _PrintVersion(argparse.Action):
    """argparse's version action, except that the package metadata is read only when asked, not on every start."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object, option: str | None = None
    ) -> None:
        print(f"gradle-repl {package_version()}")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradle-repl", description="Run Kotlin snippets inside a Gradle or Maven JVM project (MCP server and CLI)."
    )
    parser.add_argument("--version", action=_PrintVersion, nargs=0, help="print gradle-repl's version and exit")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the MCP server on stdio (or over Streamable HTTP with --http)")
    serve.add_argument(
        "--http",
        action="store_true",
        help="serve MCP over Streamable HTTP at http://HOST:PORT/mcp, bearer token required",
    )
    serve.add_argument(
        "--host",
        default=DEFAULTS.http_host,
        help=f"with --http: the address to listen on (default {DEFAULTS.http_host})",
    )
    serve.add_argument(
        "--port",
        type=int,
        default=DEFAULTS.http_port,
        help=f"with --http: the port (default {DEFAULTS.http_port}; 0 picks a free one)",
    )
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="with --http: allow a --host other machines can reach (anyone with the token can then run code as you)",
    )
    serve.add_argument(
        "--max-sessions",
        type=int,
        default=DEFAULTS.max_sessions,
        help=f"live sessions at most (default {DEFAULTS.max_sessions})",
    )
    serve.add_argument(
        "--idle-timeout",
        type=float,
        default=DEFAULTS.idle_timeout_seconds,
        help="close sessions idle this many seconds",
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
    evaluate.add_argument("-e", "--code", action="append", default=[], help="a snippet (repeat for more)")
    # -e is optional for --replay alone; otherwise its absence is eval's own usage error (checked after parsing).
    evaluate.set_defaults(usage_error=evaluate.error)
    evaluate.add_argument(
        "--replay",
        action="store_true",
        help="with --connect: first restart the server's session and run its earlier successful snippets again, in order",
    )
    _worker_arguments(evaluate)
    _session_option_arguments(evaluate)
    _connect_arguments(evaluate)
    _attach_argument(evaluate)
    add_probe_arguments(evaluate)

    check = commands.add_parser("check", help="compile snippets in one session without running them; print diagnostics")
    _project_arguments(check, root_optional=False)
    check.set_defaults(attach=None, token_file=None)
    check.add_argument(
        "-e",
        "--code",
        action="append",
        required=True,
        help="a snippet to check (repeat for more; each is checked against the session as it is, none is run)",
    )
    _worker_arguments(check)

    test = commands.add_parser(
        "test",
        help="run the project's tests in a warm session of its test source set; print failures and a summary line",
    )
    test.add_argument("project_root", help="project directory")
    test.add_argument(
        "selectors",
        nargs="*",
        metavar="SELECTOR",
        help="a class shop.CartTest, a method shop.CartTest.oneItem, a package shop.*; none: every test",
    )
    test.add_argument(
        "--failed",
        action="store_true",
        help="with --connect: run the session's tests known to fail (failed, not seen passing since)",
    )
    test.add_argument("--project", help=f"Gradle project path (:app) or Maven module (default {DEFAULT_PROJECT_PATH})")
    test.add_argument(
        "--source-set",
        default=TEST_SOURCE_SET,
        help=f"the test source set (default {TEST_SOURCE_SET}); for Kotlin Multiplatform a JVM test compilation such as jvmTest",
    )
    test.add_argument(
        "--build-tool",
        choices=(DEFAULT_BUILD_TOOL, *(t.name for t in BUILD_TOOLS)),
        help=f"default {DEFAULT_BUILD_TOOL}",
    )
    test.add_argument("-v", "--verbose", action="store_true", help="show the build tool's own output as it runs")
    test.add_argument(
        "--explain",
        action="store_true",
        help="run each failed test (the first few) again alone with probes at its frames; print what each frame held",
    )
    _worker_arguments(test)
    _connect_arguments(test)
    add_probe_arguments(test)

    repl = commands.add_parser(
        "repl", help="an interactive Kotlin prompt with the project's classes, plugins and state"
    )
    _project_arguments(repl, root_optional=True, default=None)
    _worker_arguments(repl)
    _session_option_arguments(repl)
    _connect_arguments(repl)
    _attach_argument(repl)

    sessions = commands.add_parser("sessions", help="list the live sessions of a running `serve --http`")
    sessions.add_argument(
        "--connect", metavar="URL", default=DEFAULTS.http_url(), help=f"the server (default {DEFAULTS.http_url()})"
    )
    sessions.add_argument("--json", action="store_true", help="print them as JSON")

    commands.add_parser("jvms", help="list the JVMs running here and whether eval --attach can attach to each")
    agent_path = commands.add_parser(
        "agent-path",
        help="print the -javaagent: option that loads the attach agent at an app's start (Java 21+ then doesn't warn)",
    )
    agent_path.add_argument(
        "--listen",
        metavar="[HOST:]PORT",
        help="the agent listens on TCP behind a token (kept in the config directory), for an app in a container, on "
        "another host or in a pod; prints how to start it and attach (loopback unless HOST is named)",
    )
    agent_path.add_argument("--new-token", action="store_true", help="with --listen: replace the kept token")
    commands.add_parser("demo", help="run a short session against the bundled sample-project through the MCP server")
    commands.add_parser("token", help="print the bearer token `serve --http` requires (made on first use)")
    add_doctor_command(commands)
    add_cache_command(commands)
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


async def _run_each(sessions: Sessions, target: SessionTarget, args: argparse.Namespace) -> int:
    """eval and check: each snippet in the target's session, run or only compiled, printed as the repl prints it;
    exit 1 when one failed."""
    printer = ReplyPrinter(sys.stdout)
    options = _session_options(args) if args.command == "eval" else None
    failed = False
    for code in args.code:
        print(f">>> {code}", flush=True)
        if args.command == "check":
            failed |= printer.check(await sessions.check_snippet(target, code=code, progress=_progress(args)))
        else:
            reply = await sessions.run_snippet(
                target,
                code=code,
                options=options,
                progress=_progress(args),
                on_frame=printer.frame,
                probes=probes_given(args),
            )
            failed |= printer.result(reply)
    return 1 if failed else 0


async def _eval_connected(args: argparse.Namespace) -> int:
    from gradle_repl.front import remote

    async with remote.connected(args.connect) as client:
        sessions = remote.RemoteSessions(client)
        target = await _joined(client, args)
        if args.replay:
            for notice in await sessions.reset_and_replay(target.session_id):
                print(notice.text, flush=True)
        return await _run_each(sessions, target, args)


def _target(args: argparse.Namespace, session_id: str) -> SessionTarget:
    """The session and project the command line names (the project directory "." when it names none)."""
    return SessionTarget(args.project_root or ".", args.project, args.source_set, args.build_tool, session_id)


async def _joined(client: Any, args: argparse.Namespace) -> SessionTarget:
    """The session --connect joins: a live one with its own project, else the one named."""
    from gradle_repl.front import remote

    named = _target(args, args.session or DEFAULT_SESSION_ID)
    info = await remote.live_session(client, named.session_id)
    _same_project(info, args)
    return remote.joined_target(info, named, root_named=args.project_root is not None)


def _same_project(info: LiveSession | None, args: argparse.Namespace) -> None:
    """A live session runs one project, project path, source set and build tool; naming others would restart it
    under whoever else uses it. A flag left out is not a choice: the session's own is used; one given is, even at its
    default value (`--source-set main` is refused by a session on `test`). `--build-tool auto` lets the session's stand."""
    if info is None:
        return
    asked = []
    if args.project_root is not None and Path(args.project_root).resolve() != Path(info.project_root).resolve():
        asked.append(f"project directory {Path(args.project_root).resolve()}")
    for flag, name, running in (
        ("--project", "project", info.project_path),
        ("--source-set", "source_set", info.source_set),
        ("--build-tool", "build_tool", info.build_tool),
    ):
        given = getattr(args, name)
        if name in args.given and given != running and not (name == "build_tool" and given == DEFAULT_BUILD_TOOL):
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
        print(json.dumps([info.model_dump(mode="json") for info in live], indent=2))
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
        options = TerminalOptions(
            await _joined(client, args),
            server=args.connect,
            timeout_seconds=args.timeout,
            session_options=_session_options(args),
        )
        return await run_terminal(options, remote.RemoteSessions(client))


async def _eval(args: argparse.Namespace) -> int:
    """eval and check: each snippet in one session, run or only compiled."""
    if args.command == "eval" and args.connect:
        return await _eval_connected(args)
    if getattr(args, "replay", False):
        raise UsageError("--replay restarts a server's session and runs its snippets again: use it with --connect")
    if args.project_root is None and not args.attach:
        raise UsageError(
            "eval needs the project directory (or --connect to run in a server's session, or --attach PID)"
        )
    # One-shot: no spare JVM and no archive training, which would only be killed at exit.
    manager = SessionManager.from_settings(
        settings_for(args, spare_worker=False, train_class_data=False), resolver=resolve_environment
    )
    target = _target(args, CLI_SESSION_ID)
    try:
        if args.attach:
            await _attach(manager, target.session_id, args)
        return await _run_each(manager, target, args)
    finally:
        await manager.close_all()


async def _test(args: argparse.Namespace) -> int:
    """`test`: the project's tests in a session of its test source set, here or (--connect) in a server's; exit 0 only
    when nothing failed."""
    target = SessionTarget(
        args.project_root, args.project, args.source_set, args.build_tool, args.session or TEST_SESSION_ID
    )
    if args.connect:
        from gradle_repl.front import remote

        async with remote.connected(args.connect) as client:
            return await _test_in(remote.RemoteSessions(client), target, args)
    if args.failed:
        raise UsageError(
            "--failed runs a session's tests known to fail, which only a server's session keeps: use it with --connect"
        )
    manager = SessionManager.from_settings(
        settings_for(args, spare_worker=False, train_class_data=False), resolver=resolve_environment
    )
    try:
        return await _test_in(manager, target, args)
    finally:
        await manager.close_all()


async def _test_in(sessions: Sessions, target: SessionTarget, args: argparse.Namespace) -> int:
    from gradle_repl.front.project_tests_report import reply_text

    reply = await sessions.run_tests(
        target,
        selectors=args.selectors,
        failed_only=args.failed,
        timeout_seconds=args.timeout,
        progress=_progress(args),
        probes=probes_given(args),
        explain_failures=args.explain,
    )
    text, passed = reply_text(reply)
    print(text, flush=True)
    return 0 if passed else 1


async def _repl(args: argparse.Namespace) -> int:
    if args.connect:
        return await _repl_connected(args)
    from gradle_repl.front.terminal import (  # prompt_toolkit only when a person asks for it
        SESSION_ID,
        TerminalOptions,
        run_terminal,
    )

    manager = SessionManager.from_settings(settings_for(args, spare_worker=False), resolver=resolve_environment)
    options = TerminalOptions(
        _target(args, SESSION_ID), timeout_seconds=args.timeout, session_options=_session_options(args)
    )
    if args.attach:
        await _attach(manager, options.target.session_id, args)
    return await run_terminal(options, manager)


def _flag_values_joined(argv: Sequence[str]) -> list[str]:
    """`--jvm-arg -Dk=v` as `--jvm-arg=-Dk=v`: a session option's value may start with '-' (a JVM flag does), which
    argparse would take for an option."""
    flags = {option.flag for option in SESSION_OPTIONS}
    joined: list[str] = []
    waiting = False
    for word in argv:
        if waiting:
            joined[-1] += f"={word}"
        else:
            joined.append(word)
        waiting = word in flags and not waiting
    return joined


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = _project_defaults(parser.parse_args(_flag_values_joined(sys.argv[1:] if argv is None else argv)))
    if args.command == "eval" and not args.code and not args.replay:
        args.usage_error("eval needs code (-e CODE); only --connect --replay runs without it")
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
        if args.command == "test":
            return asyncio.run(_test(args))
        if args.command == "sessions":
            return asyncio.run(_sessions(args))
        if args.command == "agent-path":
            if args.new_token and not args.listen:
                raise UsageError("--new-token goes with --listen")
            print(agent_option(args.listen, new_token=args.new_token))
            return 0
        if args.command == "doctor":
            return run_doctor(args)
        if args.command == "cache":
            return run_cache_command(args)
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
