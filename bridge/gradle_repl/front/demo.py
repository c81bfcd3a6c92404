"""README command (1): a real Kotlin session against sample-project, through the MCP server over stdio."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from mcp import Client, StdioServerParameters

from gradle_repl.front.reply_text import as_text
from gradle_repl.paths import data_dir
from gradle_repl.resources import sample_project_source

__all__ = ["run_demo", "SNIPPETS", "sample_project"]

SNIPPETS = [
    "val shelf = sample.classics\nshelf.books.map { sample.displayTitle(it.title) }",
    "import sample.*\nshelf.publishedBefore(1930)",
    "shelf.toJson()",
    (
        "import kotlinx.serialization.*\nimport kotlinx.serialization.json.*\n"
        "@Serializable data class Loan(val title: String, val days: Int)\n"
        'Json.decodeFromString<Loan>(Json.encodeToString(Loan("dubliners", 14)))'
    ),
    "kotlinx.coroutines.runBlocking { averageYearByAuthor(shelf) }",
    'println("printed"); markdown("**bold** text"); 6 * 7',
    'error("a runtime error, trimmed to the snippet\'s frames")',
]


def sample_project() -> Path:
    """sample-project: the checkout's own in a source checkout; after `pip install`, a copy of the one
    shipped in the package, in the user data directory (a build must not write into site-packages)."""
    shipped = sample_project_source()
    checkout = Path(__file__).resolve().parents[2] / "sample-project"
    if shipped == checkout:
        return checkout
    copy = data_dir() / "sample-project"
    if not copy.is_dir() or (copy / "pom.xml").read_bytes() != (shipped / "pom.xml").read_bytes():
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(shipped, copy, ignore=shutil.ignore_patterns("target", "build", ".gradle"))
    return copy


class _Narrator:
    """The server's progress, as the first call's set-up happens: the build, first-time downloads, the facade's
    compile. A new machine spends most of the demo there, and a silent minute reads as a hang. A build tool's own log
    is cut down to its steps (which plugin runs) and one line for its downloads."""

    _BUILD_BANNER = ("Apache Maven", "Maven home", "Java version", "Default locale", "OS name", "Progress (")

    def __init__(self) -> None:
        self._downloading = False

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        line = (message or "").strip()
        if line.startswith(("Downloading from", "Downloaded from")):
            if not self._downloading:
                self._downloading = True
                print("  ... downloading the build's dependencies (first run only)", flush=True)
            return
        if (
            not line
            or line.startswith(self._BUILD_BANNER)
            or (line.startswith("[") and not line.startswith("[INFO] --- "))
        ):
            return
        print(f"  ... {line.removeprefix('[INFO] --- ')}", flush=True)


async def run_demo() -> int:
    project = str(sample_project())
    # One session: a spare JVM for a next one would only compete with its snippets for the CPU, then be killed at exit.
    # With this process's environment: the SDK would pass only HOME, PATH and a few others, and the server would miss
    # JAVA_HOME and the GRADLE_REPL_* directories (it would start from another cache than the one `serve` uses).
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "gradle_repl", "serve", "--no-spare-worker"], env=dict(os.environ)
    )
    async with Client(server, read_timeout_seconds=600) as client:
        tools = await client.list_tools()
        print(f"MCP server gradle-repl: tools {', '.join(t.name for t in tools.tools)}")
        print(
            f"Starting a session on {project}: the first call builds it and starts a JVM (a first run also downloads "
            "the Kotlin compiler and compiles gradle-repl's facade, once).",
            flush=True,
        )
        for number, code in enumerate(SNIPPETS):
            result = await client.call_tool(
                "run_kotlin_snippet",
                {"projectRoot": project, "code": code},
                progress_callback=_Narrator() if number == 0 else None,
            )
            print("\n>>> " + code.replace("\n", "\n... "))
            print("\n".join(as_text(result)))
    return 0
