"""Fixtures of the API tests: real ``allfours serve`` processes on the shared test Redis, and
an HTTP client for each."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from support import ServerProcess, start_server


@pytest.fixture(scope="session")
async def server(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[ServerProcess]:
    """One ``allfours serve`` for the session: no rate limit, heartbeats every 0.2 s."""
    process = await start_server(redis_url, tmp_path_factory.mktemp("server"))
    yield process
    process.check_alive()  # a crash during the session fails its last user loudly
    assert await process.stop() == 0, process.log_tail()


@pytest.fixture(scope="session")
async def second_server(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[ServerProcess]:
    """Another instance on the same Redis: own process, own caches (for races)."""
    process = await start_server(redis_url, tmp_path_factory.mktemp("server2"))
    yield process
    process.check_alive()
    assert await process.stop() == 0, process.log_tail()


@pytest.fixture
async def client(server: ServerProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server.url, timeout=10.0) as http:
        yield http
    server.check_alive()


@pytest.fixture
async def second_client(second_server: ServerProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=second_server.url, timeout=10.0) as http:
        yield http


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
async def quota_server(redis_url: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    """A server with a quota of 3 tables an hour per address, addresses told apart by
    ``X-Forwarded-For`` (from 127.0.0.1, a trusted proxy), at most 2 streams per address."""
    process = await start_server(
        redis_url,
        tmp_path,
        {
            "ALLFOURS_TABLES_PER_HOUR": "3",
            "ALLFOURS_RATE_LIMIT": "100000",
            "ALLFOURS_TRUSTED_PROXIES": "127.0.0.1",
            "ALLFOURS_MAX_STREAMS_PER_ADDRESS": "2",
        },
    )
    yield process
    assert await process.stop() == 0, process.log_tail()
