"""`gradle-repl doctor [PROJECT_ROOT]`: what gradle-repl found on this machine and what is missing, each missing thing
with its fix, before a call fails for want of it. Exit 1 when something a default call needs is missing (a JDK with
javac; the project's build tool), else 0."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from gradle_repl import package_version
from gradle_repl.front.doctor_checks import (
    Finding,
    check_agent_jar,
    check_attach_targets,
    check_build_tools,
    check_cache,
    check_jdk,
    check_kotlin_daemons,
    check_token,
)

__all__ = ["add_doctor_command", "run_doctor", "doctor_findings", "render"]

# The status column: `missing` shouted, since it is what makes the exit status 1.
_LABELS = {"ok": "ok", "missing": "MISSING", "warn": "warn", "info": "info"}
_WIDTH = max(len(label) for label in _LABELS.values()) + 2


def add_doctor_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    doctor = commands.add_parser(
        "doctor",
        help="check what gradle-repl needs here (JDK, Maven, Gradle, attach targets and agent, token, cache, daemons); exit 1 when something is missing",
    )
    doctor.add_argument(
        "project_root", nargs="?", default=".", help="the project whose build tool to check (default: this directory)"
    )


def doctor_findings(root: Path) -> list[Finding]:
    """Every check's findings, in the order a newcomer needs them: what calls need first, then what some calls use."""
    checks: list[Callable[[], list[Finding]]] = [
        check_jdk,
        lambda: check_build_tools(root),
        check_attach_targets,
        check_agent_jar,
        check_token,
        check_cache,
        check_kotlin_daemons,
    ]
    return [finding for check in checks for finding in check()]


def render(findings: list[Finding], out: TextIO) -> int:
    """Prints one line per finding (its fix indented under it) and a verdict; the exit status."""
    for finding in findings:
        print(f"{_LABELS[finding.status]:<{_WIDTH}}{finding.topic}: {finding.text}", file=out)
        if finding.fix:
            print(f"{'':<{_WIDTH}}fix: {finding.fix}", file=out)
    missing = [finding.topic for finding in findings if finding.status == "missing"]
    if missing:
        print(f"\nnot ready: a default call needs {', '.join(missing)} (MISSING above, each with its fix)", file=out)
        return 1
    print("\nready: a default call has what it needs", file=out)
    return 0


def run_doctor(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # read at the call: a test may have replaced it
    root = Path(args.project_root).resolve()
    if not root.is_dir():
        print(
            f"gradle-repl: {args.project_root} is not a directory; name a project directory, or none for this one",
            file=sys.stderr,
        )
        return 2
    print(f"gradle-repl {package_version()} on Python {sys.version.split()[0]} ({sys.executable})", file=out)
    return render(doctor_findings(root), out)
