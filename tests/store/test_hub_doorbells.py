"""The hub's doorbell connection, on a single server as on the cluster: Pub/Sub is at most once,
so whatever rings while the connection is down or a subscription unconfirmed must still arrive,
once, in order."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from server.store import StoredEvent, Subscription, connect_store

pytestmark = pytest.mark.backends


async def take(sub: Subscription, n: int, within: float = 10.0) -> list[StoredEvent]:
    async def collect() -> list[StoredEvent]:
        return [await anext(sub) for _ in range(n)]

    return await asyncio.wait_for(collect(), within)


async def kill_pubsub_connections(redis: Redis | RedisCluster) -> None:
    if isinstance(redis, RedisCluster):
        await redis.client_kill_filter(_type="pubsub", target_nodes=RedisCluster.ALL_NODES)
    else:
        await redis.client_kill_filter(_type="pubsub")


async def test_doorbells_lost_with_their_connection_are_made_up_for(
    redis_url: str, redis: Redis
) -> None:
    """The doorbell connection is cut again and again while two games are played: every
    subscriber still gets every event once, in order, and the hub reconnects each time."""
    name = f"cut-{uuid.uuid4().hex[:8]}"
    store = connect_store(redis_url, name=name, block_ms=300)
    games = [f"cut-{uuid.uuid4().hex}" for _ in range(2)]
    try:
        subs = [store.subscribe(game) for game in games]
        readers = [asyncio.create_task(take(sub, 40, within=20)) for sub in subs]
        for version in range(40):
            for game in games:
                assert (await store.append(game, version, [b"%d" % version])).status == "ok"
            if version % 10 == 5:
                await kill_pubsub_connections(redis)
            await asyncio.sleep(0.002)
        for reader in readers:
            assert [e.version for e in await reader] == list(range(1, 41))
        assert store.hub.reconnects >= 1
    finally:
        await store.aclose()


async def test_a_feed_dropped_and_started_again_at_once_loses_nothing(redis_url: str) -> None:
    """Each round closes the game's only subscription (UNSUBSCRIBE) and opens another
    (SUBSCRIBE) while appends race the confirmation of the new subscription."""
    store = connect_store(redis_url)
    game = f"flip-{uuid.uuid4().hex}"
    try:
        version = 0
        for round_ in range(20):
            async with store.subscribe(game, after=version) as sub:
                reader = asyncio.create_task(take(sub, 3, within=5))
                await asyncio.sleep(0.001 * (round_ % 4))
                for _ in range(3):
                    assert (await store.append(game, version, [b"x"])).status == "ok"
                    version += 1
                assert [e.version for e in await reader] == [version - 2, version - 1, version]
        await asyncio.sleep(0.05)  # the last UNSUBSCRIBE goes out
        assert store.hub.stats()["games"] == 0
        assert store.hub.stats()["channels"] == 0
    finally:
        await store.aclose()
