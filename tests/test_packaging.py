"""The wheel carries the init script and jvm-worker sources, and works from a fresh venv."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


def test_wheel_installs_into_a_fresh_venv_and_finds_its_data(tmp_path: Path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(REPO)], check=True, capture_output=True, timeout=600)
    wheel = next(dist.glob("gradle_repl-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True, capture_output=True, timeout=900)
    probe = (
        "from gradle_repl.resources import init_script_path, jvm_worker_sources\n"
        "import gradle_repl, pathlib\n"
        "root = pathlib.Path(gradle_repl.__file__).parent\n"
        "script = init_script_path(); sources = jvm_worker_sources()\n"
        "assert script.is_file() and root in script.parents, script\n"
        "assert 'resolveReplEnvironment' in script.read_text()\n"
        "assert sources and all(root in s.parents for s in sources), sources\n"
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
