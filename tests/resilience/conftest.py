"""Fixtures of the operations tests: real ``allfours serve`` processes, most of them on an
embedded Redis of their own, killed and restarted on purpose.

The server process helpers are the API tests' (``tests/api/support.py``), plus those of
``resilience_support.py`` for servers without ``REDIS_URL``.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))

from resilience_support import redis_servers_in, stop_now
from support import ServerProcess


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    """Servers a test started (append them): any still running at the end is killed."""
    started: list[ServerProcess] = []
    yield started
    for server in started:
        stop_now(server)


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """A data directory of the test's own, with a short path (a unix socket path must fit in
    104 bytes). Any redis-server still working in it at the end is killed."""
    path = Path(tempfile.mkdtemp(prefix="allfours-ops-"))
    yield path
    for pid in redis_servers_in(path):
        os.kill(pid, signal.SIGKILL)
    shutil.rmtree(path, ignore_errors=True)
