"""The command line's probes: `--probe AT` starts one; `--when`, `--capture` (repeated) and `--max-hits` after it are
that probe's, as a debugger's logpoint is written: where, then when and what."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from gradle_repl.frames import Probe

__all__ = ["add_probe_arguments", "probes_given"]

_DEST = "probes"


class _ProbeStart(argparse.Action):
    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: str | None = None
    ) -> None:
        # A new list: the default one is shared by every parse of this parser.
        setattr(namespace, _DEST, [*getattr(namespace, _DEST), {"at": values, "capture": []}])


class _ProbePart(argparse.Action):
    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: str | None = None
    ) -> None:
        probes: list[dict[str, Any]] = getattr(namespace, _DEST)
        if not probes:
            parser.error(f"{option} belongs to a probe: give --probe FILE.kt:LINE before it")
        if self.dest == "capture":
            probes[-1]["capture"].append(values)
        else:
            probes[-1][self.dest] = values


def add_probe_arguments(parser: argparse.ArgumentParser) -> None:
    """--probe and the options of the probe before them."""
    parser.set_defaults(**{_DEST: []})
    group = parser.add_argument_group("probes (a line's locals recorded while the code runs, no thread stopped)")
    group.add_argument(
        "--probe",
        metavar="AT",
        action=_ProbeStart,
        help="record each time a thread reaches the start of AT: Cart.kt:16, shop/Cart.kt:16 or shop.Cart:16 (repeat for more)",
    )
    group.add_argument(
        "--when", metavar="EXPR", action=_ProbePart, help="the probe records only when this Kotlin Boolean holds"
    )
    group.add_argument(
        "--capture", metavar="EXPR", action=_ProbePart, help="a Kotlin expression the probe records (repeat for more)"
    )
    group.add_argument("--max-hits", metavar="N", type=int, action=_ProbePart, help="hits recorded at most (default 1)")


def probes_given(args: argparse.Namespace) -> Sequence[Probe]:
    """The probes the command line gave, as the worker takes them."""
    return [Probe(**fields) for fields in getattr(args, _DEST, [])]
