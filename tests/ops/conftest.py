"""Fixtures of the toolbox tests: a private Redis per test (the toolbox scans and removes
every game it finds, so it must never see other tests' games), a server on it, and a way to
run ``allfours <subcommand>`` as an operator would. The API tests' helpers
(``tests/api/support.py``) are importable from here."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))

from support import ServerProcess, allfours_command, start_server

from server.redis_server import EmbeddedRedis


@dataclass
class Toolbox:
    """A private Redis, a server on it (archive directory set), and the operator's commands."""

    redis_url: str
    redis: Redis
    server: ServerProcess
    archive_dir: Path

    async def run(self, *args: str) -> tuple[int, Any]:
        """``allfours <args>`` against this Redis: (exit status, its JSON report)."""
        env = {
            **os.environ,
            "REDIS_URL": self.redis_url,
            "ALLFOURS_ARCHIVE_DIR": str(self.archive_dir),
            "ALLFOURS_LOG_LEVEL": "warning",
        }
        done = await asyncio.to_thread(
            subprocess.run,
            [*allfours_command(), *args],
            env=env,
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert done.stdout, done.stderr.decode()
        return done.returncode, json.loads(done.stdout)


@pytest.fixture
async def toolbox(tmp_path: Path) -> AsyncIterator[Toolbox]:
    async with EmbeddedRedis(tmp_path / "redis") as redis_server:
        archive = tmp_path / "archive"
        server = await start_server(
            redis_server.url, tmp_path / "server", {"ALLFOURS_ARCHIVE_DIR": str(archive)}
        )
        client = Redis.from_url(redis_server.url)
        try:
            yield Toolbox(redis_server.url, client, server, archive)
        finally:
            await client.aclose()
            assert await server.stop() == 0, server.log_tail()
