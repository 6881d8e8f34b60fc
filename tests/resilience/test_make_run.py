"""``make run`` installs only what running needs: the runtime dependencies, the project and
what compiling its engine takes (the ``compile`` group: mypy's mypyc and setuptools), no dev
tools (pytest, ruff, schemathesis...). Checked by running it for real into a fresh environment
(``UV_PROJECT_ENVIRONMENT``), with a setting the server refuses so that it stops at once."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    shutil.which("make") is None or shutil.which("uv") is None, reason="needs make and uv"
)


def test_make_run_installs_no_dev_tools(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ALLFOURS_", "VIRTUAL_ENV"))}
    env.update({"UV_PROJECT_ENVIRONMENT": str(venv), "ALLFOURS_PORT": "not-a-port"})
    done = subprocess.run(
        ["make", "--no-print-directory", "run"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    # The server ran (from the new environment) and refused the port: exit status 2.
    assert "ALLFOURS_PORT: expected an integer, got 'not-a-port'" in done.stderr, done.stderr
    assert done.returncode != 0
    binaries = {path.name for path in (venv / "bin").iterdir()}
    assert {"allfours", "uvicorn"} <= binaries
    assert not {"pytest", "ruff", "schemathesis", "playwright"} & binaries, sorted(binaries)
    assert "mypyc" in binaries  # the compile group, for the engine
