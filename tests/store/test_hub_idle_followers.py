"""The live-update hub's cost does not grow with idle followed games.

The hub used to block in one ``XREAD`` naming every followed stream, so each append to any of
them made Redis and the server handle them all again. Now an append rings its game's doorbell
and the hub reads that game only. These tests pin that down without timing anything: Redis'
``MONITOR`` shows every command the hub sends while one game among a thousand followed ones is
played, and none may name an idle game; and with thousands of games followed, an append still
reaches its game's subscriber at once. Run on a single server and on the cluster.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis_tools import redis_client

from server.store import (
    RedisEventStore,
    StoredEvent,
    Subscription,
    connect_store,
)

pytestmark = pytest.mark.backends

# Long rounds: no periodic ping or (cluster) sweep of every followed stream during a test.
QUIET_BLOCK_MS = 60_000


async def take(sub: Subscription, n: int, within: float = 10.0) -> list[StoredEvent]:
    async def collect() -> list[StoredEvent]:
        return [await anext(sub) for _ in range(n)]

    return await asyncio.wait_for(collect(), within)


@contextlib.asynccontextmanager
async def following(
    store: RedisEventStore, games: list[str]
) -> AsyncIterator[dict[str, Subscription]]:
    """Games of one event each, with one subscriber each that has read it and waits for the
    next; yields once every subscriber is caught up and the hub listens to every doorbell."""
    gate = asyncio.Semaphore(32)  # a cluster client refuses commands beyond its pool

    async def create(game: str) -> None:
        async with gate:
            await store.append(game, 0, [b"idle"])

    await asyncio.gather(*(create(game) for game in games))
    subs = {game: store.subscribe(game) for game in games}
    waiting: list[asyncio.Task[StoredEvent]] = []
    try:
        async with asyncio.timeout(60):
            await asyncio.gather(*(take(sub, 1) for sub in subs.values()))
            waiting += [asyncio.create_task(anext(sub)) for sub in subs.values()]
            while True:
                stats = store.hub.stats()
                if stats["live"] == stats["games"]:
                    break
                await asyncio.sleep(0.02)
        yield subs
    finally:
        for sub in subs.values():
            sub.close()
        await asyncio.gather(*waiting, return_exceptions=True)


async def node_clients(redis_url: str) -> list[Redis]:
    """A plain client on every node (MONITOR shows only the node it is sent to)."""
    client = redis_client(redis_url)
    if not isinstance(client, RedisCluster):
        return [client]
    try:
        await client.initialize()
        return [Redis(host=node.host, port=int(node.port)) for node in client.get_nodes()]
    finally:
        await client.aclose()


@contextlib.asynccontextmanager
async def monitoring(clients: list[Redis]) -> AsyncIterator[list[str]]:
    """Every command the nodes run inside the block, as MONITOR prints them."""
    seen: list[str] = []
    marker = f"end-of-watch-{uuid.uuid4().hex}"

    async def watch(client: Redis, started: asyncio.Event) -> None:
        async with client.monitor() as monitor:
            started.set()
            while True:
                command = str((await monitor.next_command())["command"])
                if marker in command:
                    return
                seen.append(command)

    starts = [asyncio.Event() for _ in clients]
    watchers = [asyncio.create_task(watch(c, s)) for c, s in zip(clients, starts, strict=True)]
    try:
        async with asyncio.timeout(10):
            await asyncio.gather(*(s.wait() for s in starts))
        yield seen
        for client in clients:
            await client.echo(marker)  # on another connection of the client's pool
        async with asyncio.timeout(10):
            await asyncio.gather(*watchers)
    finally:
        for task in watchers:
            task.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)


async def test_the_hub_reads_only_the_games_that_rang(redis_url: str) -> None:
    """An idle followed game is named by no command while another followed game is played:
    the old hub's blocking XREAD named all thousand of them at every append."""
    run = uuid.uuid4().hex[:12]
    idle = [f"idle-{run}-{i}" for i in range(1_000)]
    played = f"played-{run}"
    store = connect_store(redis_url, block_ms=QUIET_BLOCK_MS)
    clients = await node_clients(redis_url)
    try:
        async with store.subscribe(played) as sub:
            await store.append(played, 0, [b"0"])
            assert [e.version for e in await take(sub, 1)] == [1]
            async with following(store, idle), monitoring(clients) as commands:
                for version in range(1, 11):
                    assert (await store.append(played, version, [b"%d" % version])).status == "ok"
                    assert [e.version for e in await take(sub, 1)] == [version + 1]
        # Not one command about any idle game...
        assert [c for c in commands if f"idle-{run}" in c] == []
        # ...though MONITOR did see the hub read the played one.
        reads = [c for c in commands if c.upper().startswith(("XRANGE", "XREAD")) and played in c]
        assert len(reads) >= 10
    finally:
        await store.aclose()
        for client in clients:
            await client.aclose()


async def test_an_append_reaches_its_subscriber_among_thousands_of_followed_games(
    redis_url: str,
) -> None:
    run = uuid.uuid4().hex[:12]
    idle = [f"idle-{run}-{i}" for i in range(3_000)]
    played = f"played-{run}"
    store = connect_store(redis_url, block_ms=QUIET_BLOCK_MS)
    writer = connect_store(redis_url)  # another process appends
    try:
        async with store.subscribe(played) as sub:
            await writer.append(played, 0, [b"0"])
            assert [e.version for e in await take(sub, 1)] == [1]
            async with following(store, idle) as idle_subs:
                for version in range(1, 4):
                    ok = await writer.append(played, version, [b"%d" % version])
                    assert ok.status == "ok"
                    got = await take(sub, 1, within=5)
                    assert [(e.version, e.data) for e in got] == [(version + 1, b"%d" % version)]
                assert store.hub.stats()["games"] == len(idle) + 1
                # The idle subscribers still wait, untouched.
                assert all(s.position == 1 and not s.closed for s in idle_subs.values())
    finally:
        await writer.aclose()
        await store.aclose()
