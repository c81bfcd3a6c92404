"""Maven's local repository: where it is, and the downloads a run left empty in it.

Maven before 3.9 doesn't coordinate its local repository between processes (MNG-2802, MRESOLVER-65). Two runs that
fetch one file at once — the toolchain's runs, which start together (toolchain.resolve_jars), or a first run's fetch
beside its build (buildtools/maven_first_run.py) — can leave it empty: on a new machine, resolve_jars' five groups for
one set of jars left `maven-parent-23.pom` at 0 bytes beside its right `.sha1`. Maven never fetches such a file again,
so every later run that needs it fails ("Non-readable POM …: input contained no data"), the user's own builds too. A
run's output names the file (by path in an error, by coordinates in a warning), or it sits beside a jar of the
classpath the run built; removed, the next run fetches it whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

__all__ = ["local_repository", "empty_downloads", "empty_downloads_of", "removed_empty_downloads"]

_REPO_LOCAL = re.compile(r"-Dmaven\.repo\.local=(\S+)")
_SETTINGS_REPOSITORY = re.compile(r"<localRepository>\s*([^<]+?)\s*</localRepository>")
_XML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# An empty dependency POM is no error: Maven warns, drops the dependency's own dependencies and goes on, so a build
# then fails on a missing class, or passes with a classpath that lacks them. The warning names it by coordinates
# (group:artifact:type[:classifier]:version).
_INVALID_POM = re.compile(r"The POM for ([^\s:]+):([^\s:]+):\S*?([^\s:]+) is invalid")
# A path Maven names in an error line, up to a POM's or a jar's suffix ("…/maven-parent-23.pom: input contained …").
# (A drive letter only at a word's start: "file:/root/…" is the path "/root/…".)
_DOWNLOAD_PATH = re.compile(r"(?:(?<![A-Za-z])[A-Za-z]:)?[/\\][^\s:;,'\"()]+?\.(?:pom|jar)\b")


def local_repository(environ: Mapping[str, str]) -> Path:
    """Where Maven keeps downloads: `-Dmaven.repo.local` in MAVEN_OPTS or MAVEN_ARGS, else the user settings'
    `<localRepository>` (outside comments; one naming a `${property}` is left to Maven), else ~/.m2/repository."""
    for name in ("MAVEN_ARGS", "MAVEN_OPTS"):
        if match := _REPO_LOCAL.search(environ.get(name, "")):
            return Path(match.group(1)).expanduser()
    settings = Path.home() / ".m2" / "settings.xml"
    try:
        text = _XML_COMMENT.sub("", settings.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        text = ""
    configured = _SETTINGS_REPOSITORY.search(text)
    if configured and "${" not in configured.group(1):
        return Path(configured.group(1)).expanduser()
    return Path.home() / ".m2" / "repository"


def empty_downloads(lines: Iterable[str], repository: Path) -> list[Path]:
    """The POMs and jars that Maven's output names — by path in an error, by coordinates in its warning that a POM
    is invalid — which are empty files in the local repository: never a whole download, so removing one costs at most
    its fetch again. A file outside the repository is never named."""
    root = repository.resolve()
    # The repository's own paths, as configured and as resolved, may hold spaces ("/home/Jane Doe/.m2/…").
    under_repository = re.compile(
        "(?:"
        + "|".join(re.escape(str(r)) for r in dict.fromkeys([repository, root]))
        + r")[/\\][^\n:;,'\"()]+?\.(?:pom|jar)\b"
    )
    named: list[Path] = []
    for line in lines:
        named += [
            Path(match.group(0)) for pattern in (under_repository, _DOWNLOAD_PATH) for match in pattern.finditer(line)
        ]
        if invalid := _INVALID_POM.search(line):
            group, artifact, version = invalid.groups()
            named.append(root.joinpath(*group.split("."), artifact, version, f"{artifact}-{version}.pom"))
    return _damaged(named, root)


def empty_downloads_of(classpath: Iterable[str], repository: Path) -> list[Path]:
    """The empty jars of a classpath in the local repository and the empty POMs beside them: a quiet run (-q) reads
    neither, so it names neither, and a jar's empty POM leaves that jar's own dependencies off the classpath."""
    root = repository.resolve()
    named: list[Path] = []
    for entry in classpath:
        jar = Path(entry)
        version, artifact = jar.parent.name, jar.parent.parent.name
        named += [jar, jar.with_name(f"{artifact}-{version}.pom")]
    return _damaged(named, root)


def _damaged(paths: Iterable[Path], root: Path) -> list[Path]:
    """Those of paths that are empty files under root, each once (by its real path: a repository reached through a
    link is named both ways)."""
    found: dict[Path, None] = {}
    for path in paths:
        try:
            real = path.resolve()
            if real.is_relative_to(root) and real.is_file() and real.stat().st_size == 0:
                found[real] = None
        except OSError:
            continue
    return list(found)


def removed_empty_downloads(
    lines: Iterable[str],
    repository: Path,
    on_progress: Callable[[str], None] | None,
    *,
    again: str,
    classpath: Iterable[str] = (),
) -> bool:
    """Removes the empty downloads a Maven run's output names (empty_downloads) and those of the classpath it built
    (empty_downloads_of), saying so and what runs `again`; whether any went, and so whether running again gets
    further. Called once per run: what the run after it still lacks is reported as its failure. A file that can't be
    removed (a repository of another user's) is left: the run's own error then says what is wrong."""
    removed: list[Path] = []
    for path in dict.fromkeys([*empty_downloads(lines, repository), *empty_downloads_of(classpath, repository)]):
        try:
            path.unlink(missing_ok=True)
        except OSError:
            continue
        removed.append(path)
    if removed and on_progress is not None:
        names = ", ".join(path.name for path in removed)
        on_progress(f"removed {len(removed)} empty download(s) from Maven's local repository ({names}); {again}")
    return bool(removed)
