"""Fixtures of the toolbox tests: a private Redis per test (the toolbox scans and removes
every game it finds, so it must never see other tests' games), a server on it, and a way to
run ``allfours <subcommand>`` as an operator would (``toolbox_support.py``). The API tests' helpers
(``tests/api/support.py``) are importable from here."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))

from support import start_server
from toolbox_support import Toolbox

from server.redis_server import EmbeddedRedis


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
