"""What is particular to a Redis Cluster: URLs, slots, the local cluster launcher, and the
subscription hub's doorbells (games on every node, lost connections, lost doorbells, a node
restarted under live subscriptions).

The store contract, the write race and complete games run on the cluster too: those modules
are marked ``backends`` (see ``tests/conftest.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import types
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from local_cluster import CLUSTER_SLOTS, EmbeddedRedisCluster, slot_ranges
from redis.asyncio.cluster import RedisCluster
from redis_tools import redis_client

from server.api.contract.problems import RateLimited
from server.api.edge.rate_limit import RateLimiter
from server.lobby import _SUMMARIES, STATUSES, _index_key
from server.store import (
    RedisEventStore,
    ResyncRequired,
    StoredEvent,
    StoreUnavailable,
    Subscription,
    bell_channel,
    connect_store,
    events_key,
    is_cluster_url,
)
from server.store.clients import split_cluster_url
from server.store.cluster_hub import ClusterSubscriptionHub
from server.store.keys import cmds_key, seats_key, secret_key


@pytest.fixture(scope="session")
def redis_url(cluster_redis_url: str) -> str:
    """This module's ``store`` and ``redis`` are on the shared cluster."""
    return cluster_redis_url


async def take(sub: Subscription, n: int, within: float = 10.0) -> list[StoredEvent]:
    async def collect() -> list[StoredEvent]:
        return [await anext(sub) for _ in range(n)]

    return await asyncio.wait_for(collect(), within)


@pytest.fixture
async def cluster(cluster_redis_url: str) -> AsyncIterator[RedisCluster]:
    client = redis_client(cluster_redis_url)
    assert isinstance(client, RedisCluster)
    await client.initialize()
    yield client
    await client.aclose()


def games_on_every_node(cluster: RedisCluster, per_node: int = 2) -> dict[str, list[str]]:
    """Fresh game ids, ``per_node`` of them on each master, by node name."""
    found: dict[str, list[str]] = {node.name: [] for node in cluster.get_primaries()}
    while any(len(games) < per_node for games in found.values()):
        game = f"t-{uuid.uuid4().hex}"
        games = found[cluster.get_node_from_key(events_key(game)).name]
        if len(games) < per_node:
            games.append(game)
    return found


# -- URLs --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "first", "others"),
    [
        ("redis+cluster://h:7000", "redis://h:7000", []),
        ("redis+cluster://h", "redis://h", []),
        (
            "redis+cluster://u:p@a:7000,b:7001,c/0?socket_timeout=2",
            "redis://u:p@a:7000/0?socket_timeout=2",
            [("b", 7001), ("c", 6379)],
        ),
        ("rediss+cluster://[::1]:7000,[::2]:7001", "rediss://[::1]:7000", [("::2", 7001)]),
        ("REDIS+CLUSTER://h:1,", "redis://h:1", []),
    ],
)
def test_cluster_urls_split_into_a_client_url_and_seed_nodes(
    url: str, first: str, others: list[tuple[str, int]]
) -> None:
    assert is_cluster_url(url)
    assert split_cluster_url(url) == (first, others)


@pytest.mark.parametrize("url", ["redis://h:1", "rediss://h", "unix:///tmp/r.sock", "h:1"])
def test_other_urls_are_single_servers(url: str) -> None:
    assert not is_cluster_url(url)
    with pytest.raises(ValueError):
        split_cluster_url(url)


def test_a_cluster_url_needs_a_node() -> None:
    with pytest.raises(ValueError):
        split_cluster_url("redis+cluster://user@")


async def test_unreachable_cluster_is_store_unavailable() -> None:
    store = connect_store("redis+cluster://127.0.0.1:1", retries=0, connect_timeout=0.5)
    try:
        with pytest.raises(StoreUnavailable):
            await store.append("g", 0, [b"a"], "c")
        with pytest.raises(StoreUnavailable):
            await store.read("g")
        with pytest.raises(StoreUnavailable):
            await store.ping()
    finally:
        await store.aclose()


# -- slots -------------------------------------------------------------------------------------


def test_a_game_lives_in_one_slot(cluster: RedisCluster, game_id: str) -> None:
    keys = [events_key(game_id), cmds_key(game_id), seats_key(game_id), secret_key(game_id)]
    assert {cluster.keyslot(key) for key in [*keys, bell_channel(game_id)]} == {
        cluster.keyslot(game_id)
    }


def test_the_lobby_lives_in_one_slot(cluster: RedisCluster) -> None:
    keys = [_SUMMARIES, *(_index_key(status) for status in STATUSES)]
    assert len({cluster.keyslot(key) for key in keys}) == 1


async def test_the_launcher_spreads_the_slots_over_three_masters(
    cluster: RedisCluster, cluster_redis_url: str
) -> None:
    masters = cluster.get_primaries()
    assert len(masters) == 3 and not cluster.get_replicas()
    assert slot_ranges(3) == [range(0, 5461), range(5461, 10922), range(10922, CLUSTER_SLOTS)]
    owners = {cluster.get_node_from_key(f"{{{n}}}").name for n in range(200)}
    assert owners == {node.name for node in masters}  # every master holds keys
    info = await cluster.cluster_info(target_nodes=RedisCluster.ALL_NODES)
    assert {node_info["cluster_state"] for node_info in info.values()} == {"ok"}


async def test_rate_limit_counts_on_the_cluster(store: RedisEventStore) -> None:
    limiter = RateLimiter(store, limit=2, window_s=60)
    request: Any = types.SimpleNamespace(
        method="POST",
        headers={},
        query_params={},
        client=types.SimpleNamespace(host=f"10.{uuid.uuid4().int % 250}.0.1"),
    )
    await limiter.check(request)
    await limiter.check(request)
    with pytest.raises(RateLimited):
        await limiter.check(request)


# -- the subscription hub ------------------------------------------------------------------------


async def test_one_hub_follows_games_on_every_node(
    store: RedisEventStore, cluster: RedisCluster, cluster_redis_url: str
) -> None:
    assert isinstance(store.hub, ClusterSubscriptionHub)
    by_node = games_on_every_node(cluster)
    games = [game for node_games in by_node.values() for game in node_games]
    writer = connect_store(cluster_redis_url)  # another process writes
    try:
        subs = {game: [store.subscribe(game), store.subscribe(game)] for game in games}
        readers = {
            game: [asyncio.create_task(take(sub, 12)) for sub in pair]
            for game, pair in subs.items()
        }
        for round_ in range(6):  # interleaved across games and nodes, batches of two
            for game in games:
                events = [f"{game}:{round_}:{i}".encode() for i in range(2)]
                assert (await writer.append(game, 2 * round_, events)).status == "ok"
        for game, tasks in readers.items():
            for task in tasks:
                got = await task
                assert [e.version for e in got] == list(range(1, 13))
                assert [e.data for e in got] == [
                    f"{game}:{r}:{i}".encode() for r in range(6) for i in range(2)
                ]
        stats = store.hub.stats()
        assert stats["games"] == len(games) == 6 and stats["channels"] == 6
        # One Pub/Sub connection on one node heard the games of all three.
        assert stats["node"] in by_node
        for pair in subs.values():
            for sub in pair:
                sub.close()
        assert store.hub.stats()["games"] == 0
    finally:
        await writer.aclose()


async def test_leaving_and_rejoining_a_game_at_once_loses_nothing(
    store: RedisEventStore, game_id: str
) -> None:
    """Each round drops the game's feed (UNSUBSCRIBE) and starts a new one (SUBSCRIBE) on the
    same channel, with appends racing the subscription's confirmation."""
    version = 0
    for round_ in range(30):
        sub = store.subscribe(game_id, after=version)
        reader = asyncio.create_task(take(sub, 2, within=5))
        await asyncio.sleep(0.002 * (round_ % 3))
        for _ in range(2):
            assert (await store.append(game_id, version, [b"%d" % version])).status == "ok"
            version += 1
        assert [e.version for e in await reader] == [version - 1, version]
        sub.close()
    hub = store.hub
    assert isinstance(hub, ClusterSubscriptionHub)
    await asyncio.sleep(0.05)  # the last UNSUBSCRIBE goes out
    assert hub.stats()["games"] == 0 and hub.stats()["channels"] == 0


async def test_hub_connection_killed_loses_nothing(
    cluster: RedisCluster, cluster_redis_url: str
) -> None:
    name = f"kill-{uuid.uuid4().hex[:8]}"
    store = connect_store(cluster_redis_url, name=name, block_ms=300)
    try:
        games = [g for gs in games_on_every_node(cluster, 1).values() for g in gs]
        subs = [store.subscribe(game) for game in games]
        readers = [asyncio.create_task(take(sub, 30, within=20)) for sub in subs]
        for version in range(30):
            for game in games:
                assert (await store.append(game, version, [b"%d" % version])).status == "ok"
            if version in (5, 17):
                # Cut the hub's Pub/Sub connection wherever it is.
                await cluster.client_kill_filter(
                    _type="pubsub", target_nodes=RedisCluster.ALL_NODES
                )
            await asyncio.sleep(0.005)
        for reader in readers:
            assert [e.version for e in await reader] == list(range(1, 31))
        assert store.hub.reconnects >= 1
    finally:
        await store.aclose()


async def test_a_lost_doorbell_is_caught_up_within_a_round(
    cluster_redis_url: str, cluster: RedisCluster, game_id: str
) -> None:
    store = connect_store(cluster_redis_url, block_ms=200)
    try:
        await store.append(game_id, 0, [b"1"])
        async with store.subscribe(game_id) as sub:
            assert [e.version for e in await take(sub, 1)] == [1]
            # Written behind the store's back: no PUBLISH, as if the message had been lost.
            await cluster.xadd(events_key(game_id), {"e": b"2"}, id="2-0")
            got = await take(sub, 1, within=3)
            assert [(e.version, e.data) for e in got] == [(2, b"2")]
    finally:
        await store.aclose()


async def test_a_stream_that_lost_events_ends_its_subscriptions(
    cluster_redis_url: str, cluster: RedisCluster, game_id: str
) -> None:
    store = connect_store(cluster_redis_url, block_ms=200)
    try:
        await store.append(game_id, 0, [b"1", b"2", b"3"])
        sub = store.subscribe(game_id)
        assert len(await take(sub, 3)) == 3
        await cluster.delete(events_key(game_id))  # as if a failover lost acknowledged writes
        with pytest.raises(ResyncRequired) as resync:
            await take(sub, 1, within=3)
        assert resync.value.position == 3
    finally:
        await store.aclose()


async def test_subscribers_survive_a_node_restart(tmp_path: Path) -> None:
    """SIGKILL the node the hub listens on and restart it from its AOF: the hub reconnects
    (to whichever node) and re-subscribes, appends to the restarted node's games succeed once
    it serves again, and every subscriber gets every event once, in order."""
    async with (
        asyncio.timeout(60),
        EmbeddedRedisCluster(tmp_path / "cluster", node_timeout_ms=5_000) as private,
    ):
        store = connect_store(private.url, block_ms=300, retries=1, connect_timeout=0.5)
        cluster = redis_client(private.url)
        assert isinstance(cluster, RedisCluster)
        try:
            await cluster.initialize()
            games = [g for gs in games_on_every_node(cluster, 1).values() for g in gs]
            subs = [store.subscribe(game) for game in games]
            for game in games:
                await store.append(game, 0, [b"1"])
            for sub in subs:
                assert [e.version for e in await take(sub, 1)] == [1]
            hub = store.hub
            assert isinstance(hub, ClusterSubscriptionHub) and hub.node is not None
            victim = next(n for n in private.nodes if f"127.0.0.1:{n.port}" == hub.node)
            victim.kill()
            await victim.restart()
            for version in range(1, 10):
                for game in games:
                    while True:  # what a client does with a 503: retry, same command id
                        with contextlib.suppress(StoreUnavailable):
                            result = await store.append(
                                game, version, [b"%d" % (version + 1)], f"c{version}"
                            )
                            assert result.status in ("ok", "duplicate")
                            break
                        await asyncio.sleep(0.05)
            for sub in subs:
                got = await take(sub, 9, within=20)
                assert [e.version for e in got] == list(range(2, 11))
            assert hub.reconnects >= 1 and hub.connected
        finally:
            await cluster.aclose()
            await store.aclose()
