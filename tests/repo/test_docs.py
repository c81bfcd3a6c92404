"""The docs hold together: the MkDocs site builds with --strict (no broken link or anchor, no page left out of the
nav), docs/tools.md documents exactly the published tools and their input parameters, and the README fits a first
read with every link it has leading somewhere."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from support.paths import REPO, TOOL_SCHEMAS

DOCS = REPO / "docs"
SCHEMAS: dict[str, Any] = json.loads(TOOL_SCHEMAS.read_text(encoding="utf-8"))
# The README is what a newcomer reads whole; the reference is the site.
README_MAX_LINES = 150
# Building the site: a few seconds; on a loaded machine, many more.
BUILD_TIMEOUT_SECONDS = 300
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_site_builds_strict(tmp_path: Path) -> None:
    """`mkdocs build --strict`: a link to a page or heading that isn't there, or a page not in the nav, fails."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's notice about its successor, not a warning of ours
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(REPO / "mkdocs.yml"),
            "--site-dir",
            str(tmp_path / "site"),
        ],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_SECONDS,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "tools" / "index.html").is_file()


def _tool_sections() -> dict[str, str]:
    """docs/tools.md's sections by the tool their heading names (`## \\`name\\``)."""
    text = (DOCS / "tools.md").read_text(encoding="utf-8")
    parts = re.split(r"^## `(\w+)`\n", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=False))


def test_every_published_tool_and_input_parameter_is_documented_and_nothing_else() -> None:
    """A section per tool in tools/list, and in it a parameters table whose rows are exactly the tool's input
    properties: a tool or parameter added, renamed or removed without its docs fails here."""
    sections = _tool_sections()
    assert sorted(sections) == sorted(SCHEMAS)
    for name, section in sections.items():
        documented = re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE)
        published = sorted(SCHEMAS[name]["inputSchema"].get("properties", {}))
        assert sorted(documented) == published, f"{name}: documented {sorted(documented)}, published {published}"
        required = SCHEMAS[name]["inputSchema"].get("required", [])
        for parameter in required:
            assert re.search(rf"^\| `{parameter}` \| \(required\) \|", section, flags=re.MULTILINE), (
                f"{name}.{parameter} is required"
            )


def test_every_tool_is_in_the_overview_table() -> None:
    overview = (DOCS / "tools.md").read_text(encoding="utf-8").split("\n## ", 1)[0]
    assert set(re.findall(r"\[`(\w+)`\]\(#\1\)", overview)) == set(SCHEMAS)


def _slug(heading: str) -> str:
    """A heading's anchor as MkDocs' table of contents makes it."""
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(page: Path) -> set[str]:
    return {_slug(line.lstrip("#")) for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("#")}


def test_the_readme_fits_a_first_read_and_its_links_lead_somewhere() -> None:
    """At most 150 lines; every relative link is a file of the repository, and a link to a docs heading names one
    that exists (the site's own links are checked by its strict build)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_MAX_LINES
    links = [link for link in _LINK.findall(readme) if not link.startswith(("http://", "https://"))]
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        path, _, anchor = link.partition("#")
        assert (REPO / path).exists(), link
        if anchor:
            assert anchor in _anchors(REPO / path), link


def test_the_readme_and_contributing_name_the_command_ci_runs() -> None:
    """.ci/run runs scripts/test, the command a new contributor is told to run."""
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^bash scripts/test$", ci, flags=re.MULTILINE)
    for guide in ("README.md", "CONTRIBUTING.md"):
        assert "./scripts/test" in (REPO / guide).read_text(encoding="utf-8"), guide
