"""Maven's local repository: where it is, and the downloads a run left empty in it.

Maven before 3.9 doesn't coordinate its local repository between processes (MNG-2802, MRESOLVER-65). Two runs that
fetch one file at once — the toolchain's runs, which start together (toolchain.resolve_jars), or a first run's fetch
beside its build (buildtools/maven_first_run.py) — can leave it empty: on a new machine, resolve_jars' five groups for
one set of jars left `maven-parent-23.pom` at 0 bytes beside its right `.sha1`. Maven never fetches such a file again,
so every later run that needs it fails ("Non-readable POM …: input contained no data"), the user's own builds too. The
failed run's error lines name the file; removed, the next run fetches it whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

__all__ = ["local_repository", "empty_downloads", "empty_poms_of", "removed_empty_downloads"]

_REPO_LOCAL = re.compile(r"-Dmaven\.repo\.local=(\S+)")
_SETTINGS_REPOSITORY = re.compile(r"<localRepository>\s*([^<]+?)\s*</localRepository>")
_XML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# An empty dependency POM is no error: Maven warns, drops the dependency's own dependencies and goes on, so a build
# then fails on a missing class, or passes with a classpath that lacks them. The warning names it by coordinates
# (group:artifact:type[:classifier]:version).
_INVALID_POM = re.compile(r"The POM for ([^\s:]+):([^\s:]+):\S*?([^\s:]+) is invalid")
# A path Maven names in an error line, up to a POM's or a jar's suffix ("…/maven-parent-23.pom: input contained …").
_DOWNLOAD_PATH = re.compile(r"(?:[A-Za-z]:)?[/\\][^\s:;,'\"()]+?\.(?:pom|jar)\b")


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
    found: dict[Path, None] = {}
    for line in lines:
        named = [Path(match.group(0)) for match in _DOWNLOAD_PATH.finditer(line)]
        if invalid := _INVALID_POM.search(line):
            group, artifact, version = invalid.groups()
            named.append(root.joinpath(*group.split("."), artifact, version, f"{artifact}-{version}.pom"))
        for path in named:
            try:
                if path.is_file() and path.stat().st_size == 0 and path.resolve().is_relative_to(root):
                    found[path] = None
            except OSError:
                continue
    return list(found)


def empty_poms_of(classpath: Iterable[str], repository: Path) -> list[Path]:
    """The empty POMs of a classpath's jars in the local repository: each one's own dependencies are missing from a
    classpath Maven built with it, and a quiet run (-q) prints no warning about it."""
    root = repository.resolve()
    found: list[Path] = []
    for entry in classpath:
        jar = Path(entry)
        version, artifact = jar.parent.name, jar.parent.parent.name
        pom = jar.with_name(f"{artifact}-{version}.pom")
        try:
            if pom.is_file() and pom.stat().st_size == 0 and pom.resolve().is_relative_to(root):
                found.append(pom)
        except OSError:
            continue
    return found


def removed_empty_downloads(
    lines: Iterable[str],
    repository: Path,
    on_progress: Callable[[str], None] | None = None,
    classpath: Iterable[str] = (),
) -> bool:
    """Removes the empty downloads a Maven run's output names (empty_downloads) and the empty POMs of the classpath it
    built (empty_poms_of), saying so; whether there were any, and so whether running it again gets further. Called
    once per run: what the run after it still lacks is reported as its failure."""
    damaged = list(dict.fromkeys([*empty_downloads(lines, repository), *empty_poms_of(classpath, repository)]))
    for path in damaged:
        path.unlink(missing_ok=True)
    if damaged and on_progress is not None:
        names = ", ".join(path.name for path in damaged)
        on_progress(f"removed {len(damaged)} empty download(s) from Maven's local repository ({names}); fetching again")
    return bool(damaged)
