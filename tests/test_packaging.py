"""The wheel carries the init script and jvm-worker sources, and works from a fresh venv."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


def test_wheel_installs_into_a_fresh_venv_and_finds_its_data(tmp_path: Path):
    """The wheel alone, installed where no source tree is on the path: its dependencies come from this
    venv (a .pth line), since pip installing them again would only test pip. Built with this venv's
    hatchling (a test extra) instead of an isolated build that would download it every run."""
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(REPO)],
                   check=True, capture_output=True, timeout=600)
    wheel = next(dist.glob("gradle_repl-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
                   check=True, capture_output=True, timeout=900)
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
        "assert script.is_file() and root in script.parents, script\n"
        "assert 'resolveReplEnvironment' in script.read_text()\n"
        "assert sources and all(root in s.parents for s in sources), sources\n"
        "from gradle_repl.resources import jvm_worker_completion_sources, jvm_worker_compose_sources, jvm_worker_dependency_sources\n"
        "add_ons = jvm_worker_compose_sources() + jvm_worker_dependency_sources() + jvm_worker_completion_sources()\n"
        "assert len(add_ons) >= 2 and all(root in s.parents for s in add_ons), add_ons\n"
        "from gradle_repl.resources import jvm_worker_agent_sources, jvm_worker_attached_spring_sources\n"
        "attach = jvm_worker_agent_sources() + jvm_worker_attached_spring_sources()\n"
        "assert len(attach) >= 7 and all(root in s.parents for s in attach), attach\n"
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
    cli = subprocess.run([str(env_dir / "bin" / "gradle-repl"), "--help"], capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0 and "serve" in cli.stdout and "resolve" in cli.stdout
