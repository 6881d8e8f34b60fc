"""`make run` on a fresh clone serves the compiled engine: the clone has no build, no venv, and
its `make run` syncs, compiles and starts the server on an embedded Redis, whose ``/metrics``
must say ``engine="compiled"`` (and whose web client answers at ``/``).

The clone is of the committed HEAD (what CI's clean clone holds); uv's cache is shared, so
nothing is downloaded twice, but the venv and the engine's build are made from scratch."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from deploy_model import REPO

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(420)]

# Host settings that would make the clone's run something other than a fresh `make run`.
_DROP = ("VIRTUAL_ENV", "PYTHONPATH", "UV_PROJECT_ENVIRONMENT", "ALLFOURS_PURE_PYTHON", "REDIS_URL")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode())
    except (urllib.error.URLError, OSError):
        return None


def test_make_run_on_a_fresh_clone_serves_the_compiled_engine(tmp_path: Path) -> None:
    clone = tmp_path / "allfours"
    subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(REPO), str(clone)],
        check=True,
        timeout=120,
    )
    assert not (clone / "build").exists() and not (clone / ".venv").exists()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in _DROP and not k.startswith("ALLFOURS_")}
    env |= {"ALLFOURS_PORT": str(port), "ALLFOURS_DATA_DIR": str(tmp_path / "data")}
    log = (tmp_path / "make-run.log").open("wb")
    make = subprocess.Popen(
        ["make", "run"],
        cwd=clone,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its process group: make, uv and the server stop together
    )
    base = f"http://127.0.0.1:{port}"
    try:
        metrics = None
        deadline = time.monotonic() + 360
        while metrics is None and time.monotonic() < deadline:
            assert make.poll() is None, (tmp_path / "make-run.log").read_text()
            metrics = get(f"{base}/metrics")
            time.sleep(0.5)
        assert metrics is not None, (tmp_path / "make-run.log").read_text()
        assert 'allfours_engine_info{engine="compiled"} 1.0' in metrics, metrics
        assert "<html" in (get(f"{base}/") or "").lower()
    finally:
        os.killpg(make.pid, signal.SIGTERM)
        try:
            make.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(make.pid, signal.SIGKILL)
            make.wait()
        log.close()
