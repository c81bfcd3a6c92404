"""Completion quality on real code: recall@1 and recall@5, and time per completion.

    .venv/bin/python bench/completion.py [--per-project 40] [--seed 34]

For each Kotlin project under tests/projects that this machine can resolve (Maven's) and sample-project, one real
worker (the session a user would have). From the project's main Kotlin sources, identifiers are cut at random
(seeded) points: the snippet is the file's code before the cut, with its `package p` line written `import p.*` (a
snippet has no package; this keeps the file's meaning), and the cursor at the cut. An identifier counts when the
completion offers it whole at rank 1 (recall@1) or among the first 5 (recall@5). Cut points: every identifier of the
code outside strings and comments, except the names a declaration introduces (`fun name`, `val name`, a parameter
`name:`: nothing can predict a new name) and keywords, cut after 1 to len-1 of its characters (something typed,
something left; `--typed-from 0` cuts before the first character too). Time is the worker's round trip (request to answer), measured here.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from gradle_repl.environment import SessionSpec
from gradle_repl.frames import CompletionResult, WorkerOptions
from gradle_repl.host.handle import WorkerHandle
from gradle_repl.project.resolve import resolve_environment

ROOT = Path(__file__).resolve().parent.parent
# (project directory, Maven module): the projects a Maven build resolves here (the Gradle ones need a launcher).
PROJECTS = [
    (ROOT / "sample-project", ":"),
    (ROOT / "tests/projects/maven-mixed", ":"),
    (ROOT / "tests/projects/maven-multi", ":app"),
    (ROOT / "tests/projects/maven-spring", ":"),
    (ROOT / "tests/projects/maven-spring-boot", ":"),
    (ROOT / "tests/projects/maven-compose", ":"),
]
KEYWORDS = {
    "package",
    "import",
    "class",
    "interface",
    "fun",
    "val",
    "var",
    "object",
    "data",
    "enum",
    "sealed",
    "open",
    "private",
    "internal",
    "public",
    "protected",
    "override",
    "return",
    "if",
    "else",
    "when",
    "for",
    "while",
    "do",
    "in",
    "is",
    "as",
    "null",
    "true",
    "false",
    "this",
    "super",
    "throw",
    "try",
    "catch",
    "finally",
    "typealias",
    "companion",
    "const",
    "lateinit",
    "abstract",
    "vararg",
    "suspend",
    "inline",
    "operator",
    "infix",
    "get",
    "set",
    "by",
    "where",
    "constructor",
    "init",
    "annotation",
    "break",
    "continue",
    "out",
    "reified",
    "crossinline",
    "noinline",
    "expect",
    "actual",
}
_SKIPPED = re.compile(r'"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*[\s\S]*?\*/')
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DECLARES = re.compile(
    r"(?:\b(?:fun|val|var|class|object|interface|typealias)\s+(?:<[^>]*>\s*)?(?:[A-Za-z_][\w.]*\.)?)$"
)
WORKER_OPTIONS = WorkerOptions(heap_mb=768)
TIMEOUT_SECONDS = 120.0


@dataclass(frozen=True)
class Cut:
    file: Path
    code: str
    expected: str


def cut_points(source: str) -> list[tuple[int, str]]:
    """(offset, identifier) of every identifier a completion could be asked for (see the module's docstring)."""
    hidden = [(m.start(), m.end()) for m in _SKIPPED.finditer(source)]
    found = []
    for match in _IDENTIFIER.finditer(source):
        name, start = match.group(), match.start()
        if name in KEYWORDS or len(name) < 2 or any(a <= start < b for a, b in hidden):
            continue
        if start > 0 and source[start - 1].isdigit():  # a literal's suffix (10L, 0x1F)
            continue
        line_start = source.rfind("\n", 0, start) + 1
        if source[line_start:start].lstrip().startswith("package"):
            continue
        if _DECLARES.search(source[line_start:start]):
            continue
        after = source[match.end() : match.end() + 2]
        if after.startswith(":") and not after.startswith("::"):  # a parameter or property being declared
            continue
        found.append((start, name))
    return found


def snippet_before(source: str, offset: int) -> str:
    """The file's code before `offset`, its package written as an import of the package."""
    return re.sub(r"(?m)^package\s+([\w.]+)\s*$", r"import \1.*", source[:offset], count=1)


def cuts(project: Path, per_project: int, rng: random.Random, typed_from: int) -> list[Cut]:
    files = sorted(p for p in project.rglob("src/main/kotlin/**/*.kt"))
    points = [(f, offset, name) for f in files for offset, name in cut_points(f.read_text())]
    chosen = rng.sample(points, min(per_project, len(points)))
    made = []
    for file, offset, name in chosen:
        typed = rng.randint(typed_from, len(name) - 1)
        made.append(Cut(file, snippet_before(file.read_text(), offset + typed), name))
    return made


async def measure(
    project: Path, module: str, per_project: int, rng: random.Random, typed_from: int
) -> list[tuple[Cut, int | None, float]]:
    """Each cut's rank of the expected identifier (None when not offered) and its time in ms."""
    env = resolve_environment(project, project_path=module, build_tool="maven").environment
    worker = await WorkerHandle.launch(SessionSpec(environment=env), WORKER_OPTIONS, label="bench-completion")
    measured = []
    try:
        await worker.complete("lis", 3, timeout_seconds=TIMEOUT_SECONDS)  # loads the add-on and the class index
        for cut in cuts(project, per_project, rng, typed_from):
            started = time.perf_counter()
            analysis = await worker.complete(cut.code, len(cut.code), timeout_seconds=TIMEOUT_SECONDS)
            elapsed = (time.perf_counter() - started) * 1000
            result = analysis.result
            texts = [item.text for item in result.items] if isinstance(result, CompletionResult) else []
            measured.append((cut, texts.index(cut.expected) + 1 if cut.expected in texts else None, elapsed))
    finally:
        await worker.stop()
    return measured


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-project", type=int, default=40)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--misses", action="store_true", help="print each cut whose identifier was not first")
    parser.add_argument(
        "--typed-from",
        type=int,
        default=1,
        choices=(0, 1),
        help="the fewest characters typed (0: cuts before the name too)",
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    everything = []
    print(f"{'project':<22}{'cuts':>6}{'recall@1':>10}{'recall@5':>10}{'p50 ms':>9}{'p95 ms':>9}")
    for project, module in PROJECTS:
        measured = asyncio.run(measure(project, module, args.per_project, rng, args.typed_from))
        everything += measured
        _row(project.name, measured)
        if args.misses:
            for cut, position, _ in measured:
                if position != 1:
                    tail = cut.code[-60:].replace("\n", "⏎")
                    print(f"    {cut.expected!r} at {position}: …{tail}", file=sys.stderr)
    _row("all", everything)
    return 0


def _row(name: str, measured: list[tuple[Cut, int | None, float]]) -> None:
    if not measured:
        print(f"{name:<22}{0:>6}")
        return
    at1 = sum(1 for _, p, _ in measured if p == 1) / len(measured)
    at5 = sum(1 for _, p, _ in measured if p is not None and p <= 5) / len(measured)
    times = [t for *_, t in measured]
    print(
        f"{name:<22}{len(measured):>6}{at1:>10.2f}{at5:>10.2f}{statistics.median(times):>9.0f}{percentile(times, 0.95):>9.0f}"
    )


if __name__ == "__main__":
    sys.exit(main())
