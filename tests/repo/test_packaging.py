"""The wheel carries the init script and jvm-worker sources and works from a fresh venv; the version is written once
(pyproject.toml) and server.json describes the package as it is."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path
from typing import Any

import pytest

from gradle_repl.front.cli import _parser
from gradle_repl.settings import DEFAULTS, TOKEN_ENV
from support.paths import REPO


def _pyproject_version() -> str:
    """[project]'s version as written in pyproject.toml (tomllib is 3.11+; the line is plain)."""
    found = re.search(
        r'^\[project\][^\[]*?^version = "([^"]+)"$', (REPO / "pyproject.toml").read_text(), re.MULTILINE | re.DOTALL
    )
    assert found, "pyproject.toml names no [project] version"
    return found[1]


@pytest.mark.slow
@pytest.mark.jvm
def test_wheel_installs_into_a_fresh_venv_and_runs_eval_on_its_sample_project(tmp_path: Path) -> None:
    """The wheel alone, installed where no source tree is on the path, finds its data, says its version and runs
    `gradle-repl eval` on the sample project it ships, from a directory of its own. Its dependencies come from this
    venv (a .pth line), since pip installing them again would only test pip and the network. Built with this venv's
    hatchling (a test extra) instead of an isolated build that would download it every run."""
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(REPO)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    wheel = next(dist.glob("gradle_repl-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        timeout=900,
    )
    # A plain path line: the outer venv's own .pth files (its editable gradle-repl) are not processed.
    installed = Path(sysconfig.get_path("purelib"))
    fresh = next((env_dir / "lib").glob("python*/site-packages"))
    (fresh / "outer-dependencies.pth").write_text(f"{installed}\n")
    probe = (
        "from gradle_repl.resources import init_script_path, jvm_worker_sources\n"
        "import gradle_repl, pathlib, sys\n"
        "root = pathlib.Path(gradle_repl.__file__).parent\n"
        "assert pathlib.Path(sys.prefix) in root.parents, f'not the installed wheel: {root}'\n"
        "script = init_script_path(); sources = jvm_worker_sources()\n"
        # The script is made from the wheel's template, its marker keys written in, in the cache (resources.py).
        "assert (root / 'resources' / 'repl-env.init.gradle.kts').is_file(), root\n"
        "assert script.is_file() and 'resolveReplEnvironment' in script.read_text(), script\n"
        "assert 'enum class MarkerKey' in script.read_text(), script\n"
        "assert sources and all(root in s.parents for s in sources), sources\n"
        "from gradle_repl.resources import jvm_worker_class_phases_sources, jvm_worker_completion_sources, jvm_worker_compose_sources, jvm_worker_dependency_sources\n"
        "class_phases = jvm_worker_class_phases_sources()\n"
        "add_ons = jvm_worker_compose_sources() + jvm_worker_dependency_sources() + jvm_worker_completion_sources() + class_phases\n"
        "assert class_phases and len(add_ons) >= 3 and all(root in s.parents for s in add_ons), add_ons\n"
        "from gradle_repl.resources import jvm_worker_attach_agent_sources, jvm_worker_attached_spring_sources\n"
        "attach = jvm_worker_attach_agent_sources() + jvm_worker_attached_spring_sources()\n"
        "assert len(attach) >= 7 and all(root in s.parents for s in attach), attach\n"
        "from gradle_repl.resources import jvm_worker_class_updates_sources\n"
        "assert jvm_worker_class_updates_sources() and all(root in s.parents for s in jvm_worker_class_updates_sources())\n"
        "from gradle_repl.resources import maven_extension_sources\n"
        "extension = maven_extension_sources()\n"
        "assert extension and all(root in s.parents for s in extension), extension\n"
        "from gradle_repl.resources import sample_project_source\n"
        "sample = sample_project_source()\n"
        "assert root in sample.parents and (sample / 'pom.xml').is_file() and not (sample / 'target').exists(), sample\n"
        "assert list((sample / 'src').rglob('*.kt')), 'the demo project has its sources'\n"
        "print(len(sources))\n"
    )
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= 5
    tool = str(env_dir / "bin" / "gradle-repl")
    cli = subprocess.run([tool, "--help"], capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0 and "serve" in cli.stdout and "resolve" in cli.stdout
    version = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=120)
    assert (version.returncode, version.stdout) == (0, f"gradle-repl {_pyproject_version()}\n"), version.stderr
    # The shipped project as a user's install reaches it: the demo's copy in the user data directory (a build must
    # not write into site-packages), then eval run from elsewhere.
    env = {**os.environ, "GRADLE_REPL_DATA_DIR": str(tmp_path / "data")}
    located = subprocess.run(
        [str(python), "-c", "from gradle_repl.front.demo import sample_project; print(sample_project())"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert located.returncode == 0, located.stderr
    project = Path(located.stdout.strip())
    assert tmp_path / "data" in project.parents and REPO not in project.parents, project
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run(
        [tool, "eval", str(project), "--build-tool", "maven", "-e", 'sample.displayTitle("the waves")'],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == ['>>> sample.displayTitle("the waves")', "The Waves   // kotlin.String"]


def test_version_is_written_once() -> None:
    """gradle-repl --version says pyproject.toml's version (read from the package metadata, not a copy)."""
    from gradle_repl import package_version

    assert package_version() == _pyproject_version()
    done = subprocess.run(
        [sys.executable, "-m", "gradle_repl", "--version"], capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout) == (0, f"gradle-repl {_pyproject_version()}\n"), done.stderr


def test_server_json_describes_this_package() -> None:
    """server.json (the MCP registry's format) names pyproject's version and package, and each of its packages'
    command lines is one the CLI accepts: `serve` on stdio, `serve --http` with the port and token header it uses."""
    server = json.loads((REPO / "server.json").read_text())
    version = _pyproject_version()
    assert server["version"] == version
    assert server["$schema"].startswith("https://static.modelcontextprotocol.io/schemas/")
    assert 0 < len(server["description"]) <= 100  # the registry's limit
    by_transport = {package["transport"]["type"]: package for package in server["packages"]}
    assert set(by_transport) == {"stdio", "streamable-http"}
    for package in server["packages"]:
        assert (package["registryType"], package["identifier"], package["version"]) == ("pypi", "gradle-repl", version)

    def command_line(package: dict[str, Any]) -> list[str]:
        line: list[str] = []
        for argument in package["packageArguments"]:
            if argument["type"] == "named":
                line += [argument["name"], argument.get("value", argument.get("default", ""))]
            else:
                line.append(argument["value"])
        return line

    stdio = _parser().parse_args(command_line(by_transport["stdio"]))
    assert (stdio.command, stdio.http) == ("serve", False)
    http_package = by_transport["streamable-http"]
    http = _parser().parse_args(command_line(http_package))
    assert (http.command, http.http, http.port) == ("serve", True, DEFAULTS.http_port)
    transport = http_package["transport"]
    port_hint = next(a for a in http_package["packageArguments"] if a.get("name") == "--port")["valueHint"]
    assert transport["url"].replace("{" + port_hint + "}", str(DEFAULTS.http_port)) == DEFAULTS.http_url()
    [header] = transport["headers"]
    assert (header["name"], header["value"], header["isSecret"]) == ("Authorization", "Bearer {token}", True)
    assert [v["name"] for v in http_package["environmentVariables"]] == [TOKEN_ENV]
    assert shlex.join(command_line(http_package)) == f"serve --http --port {DEFAULTS.http_port}"
