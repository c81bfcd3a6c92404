"""`gradle-repl cache`: the cache's place and its size by kind; `gradle-repl cache clean` removes it, refused in one
line while a gradle-repl process uses it."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from gradle_repl.front.cache_usage import cache_usage, clean_cache, human_size
from gradle_repl.front.cache_users import cache_users
from gradle_repl.paths import CACHE_DIR_ENV, cache_dir, default_cache_dir

__all__ = ["add_cache_command", "run_cache_command"]


def add_cache_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cache = commands.add_parser("cache", help="show the cache's place and size by kind; `cache clean` removes it")
    cache.add_argument(
        "action", nargs="?", choices=("list", "clean"), default="list", help="list (the default) or clean"
    )


def run_cache_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # read at the call: a test may have replaced it
    cache = cache_dir()
    if args.action == "clean":
        return _clean(out)
    usage = cache_usage(cache)
    total = sum(kind.size_bytes for kind in usage)
    moved = f" ({CACHE_DIR_ENV})" if cache != default_cache_dir() else ""
    print(f"{cache}{moved}: {human_size(total)}", file=out)
    width = max((len(kind.kind) for kind in usage), default=0)
    for kind in sorted(usage, key=lambda kind: -kind.size_bytes):
        print(f"  {kind.kind:<{width}}  {human_size(kind.size_bytes):>9}  {kind.description}", file=out)
    if not usage:
        print("  (empty: made as sessions need it)", file=out)
    return 0


def _clean(out: TextIO) -> int:
    cache = cache_dir()
    users = cache_users(cache)
    if users:
        named = ", ".join(f"{user.pid} ({user.what})" for user in users)
        print(
            f"gradle-repl: not cleaning {cache}: in use by pid {named}; stop them (close their sessions) and run it again",
            file=sys.stderr,
        )
        return 1
    freed = clean_cache(cache)
    print(f"removed {human_size(freed)} from {cache}; what a session needs is made again on its next start", file=out)
    return 0
