"""Faults against a real redis-server: kill -9, lost replies, killed connections, outages.

Tests that stop or kill Redis start their own EmbeddedRedis, never the shared one.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis
from redis_tools import APPEND_SCRIPT_SHA

from server.redis_server import EmbeddedRedis
from server.store import (
    AppendResult,
    RedisEventStore,
    ResyncRequired,
    StoredEvent,
    StoreRegressed,
    StoreUnavailable,
    Subscription,
    command_digest,
    connect_store,
)


@pytest.fixture
async def private_redis(tmp_path: Path) -> AsyncIterator[EmbeddedRedis]:
    """A redis-server of this test's own (appendfsync always), free to be killed."""
    async with EmbeddedRedis(tmp_path / "redis") as server:
        yield server


async def take(sub: Subscription, n: int, within: float = 10.0) -> list[StoredEvent]:
    async def collect() -> list[StoredEvent]:
        return [await anext(sub) for _ in range(n)]

    return await asyncio.wait_for(collect(), within)


async def append_until_applied(
    store: RedisEventStore, game: str, events: list[bytes], command_id: str
) -> int:
    """What a careful client does: retry with the same command id until ok or duplicate."""
    while True:
        try:
            version = await store.version(game)
            result = await store.append(game, version, events, command_id)
        except StoreUnavailable:
            await asyncio.sleep(0.01)
            continue
        if result.status != "conflict":
            return result.version


# -- (a) kill -9 -------------------------------------------------------------------------------


async def test_kill_9_loses_no_acknowledged_event(private_redis: EmbeddedRedis) -> None:
    store = connect_store(private_redis.url, retries=0)
    acked: dict[str, list[tuple[int, bytes]]] = collections.defaultdict(list)
    enough = asyncio.Event()

    async def writer(game: str) -> None:
        version = 0
        while True:
            data = f"{game}@{version + 1}".encode()
            try:
                result = await store.append(game, version, [data], command_id=data.decode())
            except StoreUnavailable:
                return  # Redis is gone: from here on nothing is acknowledged
            assert result.status == "ok"
            acked[game].append((result.version, data))
            if sum(len(a) for a in acked.values()) >= 400:
                enough.set()
            version = result.version

    writers = [asyncio.create_task(writer(f"g{n}")) for n in range(8)]
    await asyncio.wait_for(enough.wait(), 30)
    private_redis.kill()  # SIGKILL while appends are in flight
    await asyncio.wait_for(asyncio.gather(*writers), 10)
    await private_redis.restart()

    try:
        for game, written in acked.items():
            stored = await store.read(game)
            assert [(e.version, e.data) for e in stored[: len(written)]] == written
            # An unacknowledged append may or may not have landed, but never half of one.
            assert len(stored) <= len(written) + 1
    finally:
        await store.aclose()


# -- (b) lost replies and killed connections ---------------------------------------------------


class ReplyDroppingProxy:
    """TCP proxy to Redis that can swallow the reply to one command and cut the connection.

    The command reaches Redis and runs; the client only sees its connection die. That is the
    nasty case for an append: it happened, but the client cannot know.
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self.drop_reply_to: bytes | None = None
        self.dropped = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"redis://127.0.0.1:{port}"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        up_r, up_w = await asyncio.open_connection("127.0.0.1", self.port)
        armed = False

        async def upstream() -> None:
            nonlocal armed
            while data := await client_r.read(65536):
                if self.drop_reply_to is not None and self.drop_reply_to in data:
                    self.drop_reply_to = None
                    armed = True
                up_w.write(data)
                await up_w.drain()

        async def downstream() -> None:
            while data := await up_r.read(65536):
                if armed:
                    self.dropped += 1
                    return  # Redis answered (so the command ran); the client never hears it
                client_w.write(data)
                await client_w.drain()

        tasks = [asyncio.create_task(upstream()), asyncio.create_task(downstream())]
        with contextlib.suppress(ConnectionError):
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        for writer in (client_w, up_w):
            writer.close()


@pytest.fixture
async def proxy(private_redis: EmbeddedRedis) -> AsyncIterator[ReplyDroppingProxy]:
    assert private_redis.port
    p = ReplyDroppingProxy(private_redis.port)
    yield p
    await p.close()


async def test_lost_reply_then_transparent_retry_applies_once(
    proxy: ReplyDroppingProxy, game_id: str
) -> None:
    store = connect_store(await proxy.start())  # redis-py retries after a connection error
    try:
        await store.append(game_id, 0, [b"a"], command_id="c1")
        proxy.drop_reply_to = b"EVALSHA"
        result = await store.append(game_id, 1, [b"b"], command_id="c2")
        assert proxy.dropped == 1
        # The retry found the command already applied, and says so with its versions.
        assert (result.status, result.version, result.first_version) == ("duplicate", 2, 2)
        assert [e.data for e in await store.read(game_id)] == [b"a", b"b"]
    finally:
        await store.aclose()


async def test_lost_reply_then_caller_retry_applies_once(
    proxy: ReplyDroppingProxy, game_id: str
) -> None:
    store = connect_store(await proxy.start(), retries=0)
    try:
        await store.append(game_id, 0, [b"a"], command_id="c1")
        proxy.drop_reply_to = b"EVALSHA"
        with pytest.raises(StoreUnavailable):
            await store.append(game_id, 1, [b"b", b"c"], command_id="c2")
        again = await store.append(game_id, 1, [b"b", b"c"], command_id="c2")
        assert (again.status, again.version, again.first_version) == ("duplicate", 3, 2)
        assert [e.data for e in await store.read(game_id)] == [b"a", b"b", b"c"]
    finally:
        await store.aclose()


async def test_lost_reply_without_command_id_still_never_double_applies(
    proxy: ReplyDroppingProxy, game_id: str
) -> None:
    """Without a command id the expected version still prevents a second application; the
    retry just cannot tell "mine" from "someone else's" (a conflict): use command ids."""
    store = connect_store(await proxy.start())
    try:
        await store.append(game_id, 0, [b"a"])
        proxy.drop_reply_to = b"EVALSHA"
        result = await store.append(game_id, 1, [b"b"])
        assert (result.status, result.version) == ("conflict", 2)
        assert [e.data for e in await store.read(game_id)] == [b"a", b"b"]
    finally:
        await store.aclose()


async def test_client_kill_storm_during_appends_applies_every_command_once(
    store: RedisEventStore, redis: Redis, game_id: str
) -> None:
    """CLIENT KILL the store's connections over and over while 6 writers append."""
    stop = asyncio.Event()
    kills = 0

    async def killer() -> None:
        nonlocal kills
        while not stop.is_set():
            for client in await redis.client_list():
                if client["name"] == "allfours-store":
                    with contextlib.suppress(Exception):
                        kills += await redis.client_kill_filter(_id=client["id"])
            await asyncio.sleep(0.003)

    async def writer(w: int) -> None:
        for i in range(60):
            await append_until_applied(store, game_id, [f"{w}:{i}".encode()], f"{w}:{i}")

    killing = asyncio.create_task(killer())
    await asyncio.gather(*(writer(w) for w in range(6)))
    stop.set()
    await killing

    events = await store.read(game_id)
    assert kills > 5
    assert [e.version for e in events] == list(range(1, 361))
    assert sorted(e.data for e in events) == sorted(
        f"{w}:{i}".encode() for w in range(6) for i in range(60)
    )
    assert all(e.command_id == command_digest(e.data.decode()) for e in events)


# -- (c) Redis down ----------------------------------------------------------------------------


async def test_redis_down_is_a_clear_error_and_the_store_recovers_by_itself(
    private_redis: EmbeddedRedis, game_id: str
) -> None:
    store = connect_store(private_redis.url)
    admin = Redis.from_url(private_redis.url)
    try:
        assert (await store.append(game_id, 0, [b"a"], command_id="c1")).status == "ok"
        await private_redis.stop()

        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await store.append(game_id, 1, [b"b"], command_id="c2")
        assert time.monotonic() - started < 3  # bounded retries, then a clear error
        for call in (store.read(game_id), store.version(game_id), store.ping()):
            with pytest.raises(StoreUnavailable):
                await call

        await private_redis.start()  # same port and data directory: the AOF is replayed
        # Redis 7 starts with an empty script cache; 6.2 replays SCRIPT LOAD from the AOF.
        # Flush it so that both take the NOSCRIPT path.
        await admin.script_flush()
        assert await admin.script_exists(APPEND_SCRIPT_SHA) == [False]
        # No reconnect call, no manual script load: the next append just works.
        assert await store.append(game_id, 1, [b"b"], command_id="c2") == AppendResult("ok", 2, 2)
        assert await admin.script_exists(APPEND_SCRIPT_SHA) == [True]
        assert [e.data for e in await store.read(game_id)] == [b"a", b"b"]
    finally:
        await admin.aclose()
        await store.aclose()


# -- (d) subscribers across a restart ----------------------------------------------------------


async def test_subscribers_survive_a_redis_restart(private_redis: EmbeddedRedis) -> None:
    store = connect_store(private_redis.url, block_ms=200)
    try:
        subs = {game: store.subscribe(game) for game in ("g1", "g2")}
        for game in subs:
            await store.append(game, 0, [b"1", b"2"])
        for sub in subs.values():
            assert [e.version for e in await take(sub, 2)] == [1, 2]

        private_redis.kill()
        await asyncio.sleep(0.3)  # the hub notices and backs off
        await private_redis.restart()
        for game in subs:
            assert (await store.append(game, 2, [b"3"])).status == "ok"
            assert (await store.append(game, 3, [b"4"])).status == "ok"
        for sub in subs.values():
            assert [(e.version, e.data) for e in await take(sub, 2)] == [(3, b"3"), (4, b"4")]
        assert store.hub.reconnects >= 1
        assert store.hub.connected
    finally:
        await store.aclose()


# -- regression: Redis came back with fewer events --------------------------------------------


async def test_store_that_lost_events_is_detected(private_redis: EmbeddedRedis) -> None:
    store = connect_store(private_redis.url, block_ms=200)
    try:
        await store.append("g", 0, [b"1", b"2", b"3"])
        sub = store.subscribe("g")
        assert len(await take(sub, 3)) == 3

        await private_redis.stop()
        (private_redis.data_dir / "appendonly.aof").unlink()  # the acknowledged data is gone
        await private_redis.start()

        with pytest.raises(ResyncRequired) as resync:
            await take(sub, 1)
        assert resync.value.position == 3
        with pytest.raises(StoreRegressed) as regressed:
            await store.version("g")
        assert (regressed.value.seen, regressed.value.actual) == (3, 0)
        # Told once; after a resync the store works against the new reality.
        assert await store.version("g") == 0
        assert (await store.append("g", 0, [b"new"])).status == "ok"
    finally:
        await store.aclose()


async def test_append_conflict_below_a_seen_version_raises_regressed(
    store: RedisEventStore, redis: Redis, game_id: str
) -> None:
    await store.append(game_id, 0, [b"1", b"2", b"3", b"4"])
    # Behind the store's back, the game loses its last events (as after a failover).
    key = f"allfours:{{{game_id}}}:events"
    await redis.delete(key)
    await redis.xadd(key, {"e": b"1"}, id="1-0")
    await redis.xadd(key, {"e": b"2"}, id="2-0")
    with pytest.raises(StoreRegressed) as regressed:
        await store.append(game_id, 4, [b"5"])
    assert (regressed.value.seen, regressed.value.actual) == (4, 2)


async def test_subscription_resuming_past_the_top_must_resync(
    store: RedisEventStore, game_id: str
) -> None:
    await store.append(game_id, 0, [b"1"])
    with pytest.raises(ResyncRequired):
        await take(store.subscribe(game_id, after=5), 1)
