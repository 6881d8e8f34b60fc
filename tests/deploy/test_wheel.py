"""The wheel the build backend makes carries the compiled engine (``hatch_build.py``), and the
pure fallback stays: the same wheel runs its sources under ``ALLFOURS_PURE_PYTHON=1`` or when
its build is not of those sources, and ``ALLFOURS_PURE_PYTHON=1`` at build time makes a pure
wheel for a platform without a C compiler."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from deploy_model import REPO
from test_dockerfile_steps import uv_command

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def build_wheel(out: Path, **env: str) -> Path:
    environ = {k: v for k, v in os.environ.items() if k != "ALLFOURS_PURE_PYTHON"} | env
    subprocess.run(
        [*uv_command(), "build", "--wheel", "--quiet", "--out-dir", str(out)],
        cwd=REPO,
        env=environ,
        check=True,
        timeout=240,
        capture_output=True,
    )
    (wheel,) = out.glob("*.whl")
    return wheel


def engine_in(unpacked: Path, **env: str) -> str:
    """``domain.ENGINE`` of the unpacked wheel, imported by this interpreter (its msgspec)."""
    environ = {k: v for k, v in os.environ.items() if k != "ALLFOURS_PURE_PYTHON"} | env
    environ["PYTHONPATH"] = str(unpacked)
    done = subprocess.run(
        [sys.executable, "-c", "import domain; print(domain.__file__, domain.ENGINE)"],
        cwd=unpacked.parent,  # not the work tree: its domain/ would be found first
        env=environ,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    where, engine = done.stdout.split()
    assert Path(where).is_relative_to(unpacked)
    return engine


def test_the_wheel_ships_the_compiled_engine_and_keeps_the_pure_fallback(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path / "dist")
    assert "-cp311-" in wheel.name and "linux" in wheel.name  # tagged for its platform
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    assert "domain/_native/FINGERPRINT" in names
    assert any(n.startswith("domain/_native/engine__mypyc.") for n in names)
    assert "domain/evolve.py" in names  # the sources ship too: the fallback
    site = tmp_path / "site"
    assert engine_in(site) == "compiled"
    assert engine_in(site, ALLFOURS_PURE_PYTHON="1") == "pure"
    # A build of other sources is never loaded.
    (site / "domain" / "_native" / "FINGERPRINT").write_text("0" * 20)
    assert engine_in(site) == "pure"


def test_a_pure_wheel_for_a_platform_without_a_compiler(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path / "dist", ALLFOURS_PURE_PYTHON="1")
    assert wheel.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert not [n for n in archive.namelist() if "_native" in n]
        archive.extractall(tmp_path / "site")
    assert engine_in(tmp_path / "site") == "pure"
