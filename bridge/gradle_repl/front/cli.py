"""The `gradle-repl` command: serve (MCP on stdio), resolve, eval, check, repl, demo. Exit 0 ok, 1 failure, 2 usage."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Sequence

from gradle_repl.project.buildtools import BUILD_TOOLS
from gradle_repl.front.content import check_to_result, reply_to_result
from gradle_repl.errors import GradleReplError
from gradle_repl.host.manager import SessionManager
from gradle_repl.project.process import BuildLine
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.settings import DEFAULTS, Settings

__all__ = ["main", "settings_for"]


def _project_arguments(parser: argparse.ArgumentParser, *, root_optional: bool) -> None:
    parser.add_argument("project_root", nargs="?" if root_optional else None, default=".", help="project directory")
    parser.add_argument("--project", default=":", help="Gradle project path (:app) or Maven module (default :)")
    parser.add_argument("--source-set", default="main", help="source set (default main); for Kotlin Multiplatform a JVM compilation such as jvmMain or desktopMain")
    parser.add_argument("--build-tool", choices=("auto", *(t.name for t in BUILD_TOOLS)), default="auto")
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


def settings_for(args: argparse.Namespace, **overrides: object) -> Settings:
    """The settings a command runs with: the defaults, the command's flags over them, then the overrides."""
    flags: dict[str, object] = {
        "snippet_timeout_seconds": args.timeout, "heap_mb": args.heap_mb,
        "class_data_sharing": not args.no_class_data_sharing, "full_jit": args.full_jit,
    }
    if args.command == "serve":
        flags.update(max_sessions=args.max_sessions, idle_timeout_seconds=args.idle_timeout, spare_worker=not args.no_spare_worker)
    return Settings.model_validate({**flags, **overrides})


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradle-repl", description="Run Kotlin snippets inside a Gradle or Maven JVM project (MCP server and CLI)."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the MCP server on stdio")
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
    _project_arguments(evaluate, root_optional=False)
    evaluate.add_argument("-e", "--code", action="append", required=True, help="a snippet (repeat for more)")
    _worker_arguments(evaluate)

    check = commands.add_parser("check", help="compile snippets in one session without running them; print diagnostics")
    _project_arguments(check, root_optional=False)
    check.add_argument(
        "-e", "--code", action="append", required=True,
        help="a snippet to check (repeat for more; each is checked against the session as it is, none is run)",
    )
    _worker_arguments(check)

    repl = commands.add_parser("repl", help="an interactive Kotlin prompt with the project's classes, plugins and state")
    _project_arguments(repl, root_optional=True)
    _worker_arguments(repl)

    commands.add_parser("demo", help="run a short session against the bundled sample-project through the MCP server")
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


async def _eval(args: argparse.Namespace) -> int:
    # One-shot: no spare JVM and no archive training, which would only be killed at exit.
    manager = SessionManager.from_settings(
        settings_for(args, spare_worker=False, train_class_data=False), resolver=resolve_environment
    )
    failed = False
    where = {"session_id": "cli", "project_root": args.project_root, "project_path": args.project,
             "source_set": args.source_set, "build_tool": args.build_tool, "progress": _progress(args)}
    try:
        for code in args.code:
            print(f">>> {code}")
            if args.command == "check":
                result = check_to_result(await manager.check_snippet(**where, code=code))
            else:
                result = reply_to_result(await manager.run_snippet(**where, code=code))
            failed |= bool(result.is_error)
            for block in result.content:
                text = getattr(block, "text", None)
                print(text if text is not None else f"[{block.mime_type} image, {len(block.data) * 3 // 4} bytes]")  # type: ignore[union-attr]
    finally:
        await manager.close_all()
    return 1 if failed else 0


async def _repl(args: argparse.Namespace) -> int:
    from gradle_repl.front.terminal import TerminalOptions, run_terminal  # prompt_toolkit only when a person asks for it

    manager = SessionManager.from_settings(settings_for(args, spare_worker=False), resolver=resolve_environment)
    options = TerminalOptions(
        project_root=args.project_root, project_path=args.project, source_set=args.source_set,
        build_tool=args.build_tool, timeout_seconds=args.timeout,
    )
    return await run_terminal(options, manager)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "serve":
            from gradle_repl.front.server import serve

            serve(settings_for(args))
            return 0
        if args.command == "resolve":
            return _resolve(args)
        if args.command in ("eval", "check"):
            return asyncio.run(_eval(args))
        if args.command == "repl":
            return asyncio.run(_repl(args))
        from gradle_repl.front.demo import run_demo

        return asyncio.run(run_demo())
    except GradleReplError as error:
        print(f"gradle-repl: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
