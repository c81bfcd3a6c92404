"""The layers ARCHITECTURE.md describes hold in the imports: arrows point down, and only the front ends speak MCP."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from support.paths import REPO

PACKAGE = REPO / "bridge" / "gradle_repl"
LAYERS = ("front", "host", "worker", "project")
# What each layer may import of gradle-repl's own, besides the base (top-level modules).
ALLOWED = {
    "base": set(),
    "project": {"project"},
    "worker": {"worker"},
    "host": {"host", "worker"},
    "front": {"front", "host", "worker", "project"},
}
# The demo is an MCP client of the real server.
# front/http.py serves the SDK's Streamable HTTP transport; front/remote.py is the shell's client of it.
MCP_SPEAKERS = {
    "front/server.py",
    "front/attach_tools.py",
    "front/probe_tools.py",
    "front/content.py",
    "front/demo.py",
    "front/http.py",
    "front/remote.py",
}


def _layer(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    if relative.as_posix() == "__main__.py":
        return "front"  # the entry point: `python -m gradle_repl` is the CLI
    return relative.parts[0] if relative.parts[0] in LAYERS else "base"


def _imports(path: Path) -> set[str]:
    """Every module path path imports, absolute (the package uses no relative imports)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            names.add(node.module or "")
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _imported_layers(path: Path) -> set[str]:
    layers = set()
    for name in _imports(path):
        parts = name.split(".")
        if parts[0] == "gradle_repl" and len(parts) > 1:
            layers.add(parts[1] if parts[1] in LAYERS else "base")
    return layers


def test_arrows_point_down() -> None:
    """project/ and worker/ never import the host or the front ends; the host never imports the project side."""
    wrong = {}
    for path in PACKAGE.rglob("*.py"):
        layer = _layer(path)
        upward = _imported_layers(path) - ALLOWED[layer] - {"base"}
        if upward:
            wrong[str(path.relative_to(PACKAGE))] = sorted(upward)
    assert wrong == {}


def test_only_the_front_ends_speak_mcp() -> None:
    speakers = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if any(name == "mcp" or name.startswith("mcp.") for name in _imports(path))
    }
    assert speakers <= MCP_SPEAKERS, speakers


def test_only_the_worker_boundary_touches_jpype() -> None:
    """JPype's untyped objects enter through worker/java.py alone, where they get their types."""
    users = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if any(name.split(".")[0] in ("jpype", "_jpype") for name in _imports(path))
    }
    assert users == {"worker/java.py"}, users


def test_the_front_ends_and_the_host_never_load_jpype() -> None:
    """JPype and its native library load in worker processes only: importing every module of front/ and host/ (in a
    fresh interpreter) leaves them out, so the server and the CLI start without them."""
    modules = [
        "gradle_repl." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        for layer in ("front", "host")
        for path in sorted((PACKAGE / layer).glob("*.py"))
        if path.name != "__init__.py"
    ]
    probe = f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\nprint(sorted(m for m in sys.modules if 'jpype' in m))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr


def test_the_top_level_holds_only_the_base_and_the_entry_point() -> None:
    top = {p.name for p in PACKAGE.glob("*.py")}
    assert top == {
        "__init__.py",
        "__main__.py",
        "display_kinds.py",
        "environment.py",
        "file_annotations.py",
        "errors.py",
        "frames.py",
        "options.py",
        "paths.py",
        "progress.py",
        "resources.py",
        "settings.py",
        "stopping.py",
        "target.py",
        "testrun_settings.py",
    }, top


def _module(path: Path) -> str:
    relative = path.relative_to(PACKAGE).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(("gradle_repl", *parts))


def _imported_modules(path: Path, modules: set[str], *, at_run_time: bool = False) -> set[str]:
    """The package's modules path imports anywhere (under TYPE_CHECKING and inside functions too: a type checker and a
    reader follow those as well); `from package import submodule` imports the submodule. With at_run_time, what runs
    only: `if TYPE_CHECKING:` blocks left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in _nodes(tree, at_run_time=at_run_time):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            submodules = {f"{node.module}.{alias.name}" for alias in node.names} & modules
            names.update(submodules or {node.module})
            if len(submodules) < len(node.names):
                names.add(node.module)
    return names & modules


def _nodes(tree: ast.AST, *, at_run_time: bool) -> list[ast.AST]:
    """Every node of the tree; with at_run_time, none inside an `if TYPE_CHECKING:` block."""
    if not at_run_time:
        return list(ast.walk(tree))
    found: list[ast.AST] = []
    waiting = [tree]
    while waiting:
        node = waiting.pop()
        found.append(node)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            waiting.extend(node.orelse)
        else:
            waiting.extend(ast.iter_child_nodes(node))
    return found


def _import_graph(*, packages_run: bool = False, at_run_time: bool = False) -> dict[str, set[str]]:
    """Each module's imports of the package's modules; with packages_run, the packages' __init__ they run too; with
    at_run_time, only what runs (not what a type checker reads under TYPE_CHECKING)."""
    paths = {_module(path): path for path in PACKAGE.rglob("*.py")}
    graph = {
        name: _imported_modules(path, set(paths), at_run_time=at_run_time) - {name} for name, path in paths.items()
    }
    return (
        {name: _with_packages(name, imports, set(paths)) for name, imports in graph.items()} if packages_run else graph
    )


def _with_packages(importer: str, imported: set[str], modules: set[str]) -> set[str]:
    """Importing a.b.c runs a/__init__.py and a/b/__init__.py first, unless the importer is inside that package (its
    __init__ is running or ran already): a cycle through a package's __init__ is a cycle too."""
    packages = {name.rsplit(".", depth)[0] for name in imported for depth in range(1, name.count(".") + 1)}
    outside = {package for package in packages if not f"{importer}.".startswith(f"{package}.")}
    return (imported | outside) & modules - {importer}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as the modules along it, or None."""
    done: set[str] = set()

    def walk(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        for imported in sorted(graph[module]):
            found = walk(imported, [*path, module])
            if found:
                return found
        done.add(module)
        return None

    return next((found for module in sorted(graph) if (found := walk(module, []))), None)


def test_no_module_imports_itself_through_others() -> None:
    """The package's imports form no circle: each module can be read (and type-checked) after what it uses."""
    cycle = _cycle(_import_graph(packages_run=True))
    assert cycle is None, " -> ".join(cycle or [])


def test_an_import_circle_is_found() -> None:
    """The search finds a circle through several modules and none where there is none."""
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


# The session's rooms: each one part of a session's work (snippets run here or in an app, class updates, probes), and
# they never import each other.
SESSION_ROOMS = ("repl", "attach", "classes", "probes")
# What every room uses: the jars and archives a JVM is started with or given, what a snippet's run becomes on the
# wire, and the attach agent's channel. They import no session room; the channel carries results' records.
SHARED_ROOMS = ("artifacts", "results", "link")
WORKER_ROOMS = SESSION_ROOMS + SHARED_ROOMS
# The shared rooms a shared room may import.
_SHARED_BELOW = {"artifacts": (), "results": (), "link": ("artifacts", "results")}


def _room(path: Path, package: Path = PACKAGE) -> str:
    """A worker module's room (repl, attach, classes, probes, artifacts, results, link), or "shell" for the process shell at
    worker/'s top."""
    parts = path.relative_to(package / "worker").parts
    return parts[0] if len(parts) > 1 and parts[0] in WORKER_ROOMS else "shell"


def _room_crossings(paths: list[Path], package: Path = PACKAGE) -> set[tuple[str, str]]:
    """(module, room) for each import of a worker room by a module of another room."""
    crossings = set()
    for path in paths:
        room = _room(path, package)
        for name in _imports(path):
            parts = name.split(".")
            if (
                parts[:2] == ["gradle_repl", "worker"]
                and len(parts) > 2
                and parts[2] in WORKER_ROOMS
                and room not in ("shell", parts[2])
                and not (room in SESSION_ROOMS and parts[2] in SHARED_ROOMS)
                and parts[2] not in _SHARED_BELOW.get(room, ())
            ):
                crossings.add((str(path.relative_to(package)), parts[2]))
    return crossings


def test_the_worker_rooms_meet_only_in_the_shell() -> None:
    """worker/repl (the REPL in this JVM), worker/attach (the link to an agent in another JVM) and worker/classes
    (class files, in-place updates) never import each other: the shell (worker/'s top modules: boot, the runner
    seam, the channel, the JVM's door) imports them and hands each what it needs. They all use worker/artifacts and
    worker/results, which import no room."""
    assert _room_crossings(list((PACKAGE / "worker").rglob("*.py"))) == set()


def test_a_room_crossing_is_found(tmp_path: Path) -> None:
    """The check sees a room importing another (what AttachedSession subclassing ReplSession was), and a shared room
    importing a session's room; a session's room importing a shared one is no crossing."""
    for room in ("attach", "results"):
        (tmp_path / "worker" / room).mkdir(parents=True)
    crossing = tmp_path / "worker" / "attach" / "attached.py"
    crossing.write_text(
        "from gradle_repl.worker.repl.session import ReplSession\nfrom gradle_repl.worker.results import report\n",
        encoding="utf-8",
    )
    upward = tmp_path / "worker" / "results" / "outcomes.py"
    upward.write_text("from gradle_repl.worker.attach import attached\n", encoding="utf-8")
    shell = tmp_path / "worker" / "boot.py"
    shell.write_text("from gradle_repl.worker.repl.session import ReplSession\n", encoding="utf-8")
    assert _room_crossings([crossing, upward, shell], tmp_path) == {
        ("worker/attach/attached.py", "repl"),
        ("worker/results/outcomes.py", "attach"),
    }


def _worker_imports_outside(layer: str) -> set[str]:
    """Each module of gradle_repl.worker that a module of `layer` imports (under TYPE_CHECKING and in functions too)."""
    graph = _import_graph()
    return {
        imported
        for module, imports in graph.items()
        if module.startswith(f"gradle_repl.{layer}.")
        for imported in imports
        if imported.startswith("gradle_repl.worker.")
    }


def test_the_front_ends_and_the_host_import_no_session_room() -> None:
    """front/ and host/ reach a session's rooms (repl, attach, classes) only through a worker process: of the worker
    they import its artifacts, its results and its shell's pure modules, never the code that runs a session."""
    rooms = {
        name
        for layer in ("front", "host")
        for name in _worker_imports_outside(layer)
        if name.split(".")[2] in SESSION_ROOMS
    }
    assert rooms == set(), sorted(rooms)


def _path_to(graph: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """The modules along one chain of imports from start to goal, or None."""
    trail = {start: [start]}
    waiting = [start]
    while waiting:
        module = waiting.pop(0)
        if module == goal:
            return trail[module]
        for imported in sorted(graph.get(module, set()) - set(trail)):
            trail[imported] = [*trail[module], imported]
            waiting.append(imported)
    return None


def test_nothing_the_front_ends_and_the_host_import_reaches_jpype() -> None:
    """What front/ and host/ import of the worker (its artifacts, its results, its shell's pure modules) never leads,
    through anything it imports in turn and in functions too, to worker/java.py, JPype's one door: the host runs no
    JVM. (A type checker's imports under TYPE_CHECKING load nothing and don't count.)"""
    graph = _import_graph(packages_run=True, at_run_time=True)
    outside = [m for m in graph if m == "gradle_repl.__main__" or m.split(".")[1:2] in (["front"], ["host"])]
    chains = [chain for module in outside if (chain := _path_to(graph, module, "gradle_repl.worker.java"))]
    assert chains == [], chains


def test_a_chain_to_jpype_is_found() -> None:
    """The search follows imports through other modules and finds none where there is none."""
    graph = {"a": {"b"}, "b": {"c"}, "c": set(), "d": {"a"}}
    assert _path_to(graph, "d", "c") == ["d", "a", "b", "c"]
    assert _path_to(graph, "c", "a") is None
