"""The event store contract, against a real Redis.

Every test talks to the store through ``store`` and ``game_id`` only (plus ``redis`` for looking
behind its back), so the suite can be re-run against other deployments (another Redis version,
a Redis Cluster) by parametrizing the ``redis_url`` fixture: the ``backends`` mark runs each
test on the shared Redis server and on the shared 3-master cluster (see ``tests/conftest.py``).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import uuid
from typing import Any

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from server.store import (
    AppendResult,
    RedisEventStore,
    StoredEvent,
    StoreError,
    SubscriberLagged,
    Subscription,
    cmds_key,
    command_digest,
    connect_store,
    events_key,
)
from server.store.redis_store import FairConnectionPool

pytestmark = pytest.mark.backends  # on a Redis server and on a Redis Cluster


def ev(*names: str) -> list[bytes]:
    return [name.encode() for name in names]


async def take(sub: Subscription, n: int, within: float = 5.0) -> list[StoredEvent]:
    """The next ``n`` events of a subscription (fewer if it ends; fails if they do not come)."""

    async def collect() -> list[StoredEvent]:
        got: list[StoredEvent] = []
        async for event in sub:
            got.append(event)
            if len(got) == n:
                break
        return got

    return await asyncio.wait_for(collect(), within)


# -- append ------------------------------------------------------------------------------------


async def test_new_game_starts_at_version_zero(store: RedisEventStore, game_id: str) -> None:
    assert await store.version(game_id) == 0
    assert not await store.exists(game_id)
    assert await store.read(game_id) == []


async def test_append_creates_game(store: RedisEventStore, game_id: str) -> None:
    result = await store.append(game_id, 0, ev("a", "b"), command_id="create")
    assert result == AppendResult("ok", 2, 1)
    assert await store.version(game_id) == 2
    assert await store.exists(game_id)
    assert await store.read(game_id) == [
        StoredEvent(1, b"a", command_digest("create")),
        StoredEvent(2, b"b", None),
    ]


async def test_entry_ids_are_versions(store: RedisEventStore, redis: Redis, game_id: str) -> None:
    await store.append(game_id, 0, ev("a"))
    await store.append(game_id, 1, ev("b", "c"))
    raw: Any = await redis.xrange(events_key(game_id))
    assert [entry_id for entry_id, _ in raw] == [b"1-0", b"2-0", b"3-0"]
    assert [fields[b"e"] for _, fields in raw] == [b"a", b"b", b"c"]


async def test_keys_carry_the_game_hash_tag(
    store: RedisEventStore, redis: Redis, game_id: str
) -> None:
    await store.append(game_id, 0, ev("a"), command_id="c", seat_token=(1, "h"))
    await store.put_secret(game_id, "s")
    keys = sorted([key async for key in redis.scan_iter(match=f"*{game_id}*")])
    assert keys == [
        f"allfours:{{{game_id}}}:{suffix}".encode()
        for suffix in ("cmds", "events", "seats", "secret")
    ]


async def test_conflict_on_stale_expected_version_writes_nothing(
    store: RedisEventStore, game_id: str
) -> None:
    await store.append(game_id, 0, ev("a", "b"))
    assert await store.append(game_id, 1, ev("x"), command_id="late") == AppendResult(
        "conflict", 2, 0
    )
    assert await store.append(game_id, 5, ev("y")) == AppendResult("conflict", 2, 0)
    assert [e.data for e in await store.read(game_id)] == [b"a", b"b"]
    # The refused command id was not recorded: it can still be applied.
    assert await store.append(game_id, 2, ev("x"), command_id="late") == AppendResult("ok", 3, 3)


async def test_creating_an_existing_game_conflicts(store: RedisEventStore, game_id: str) -> None:
    await store.append(game_id, 0, ev("a"))
    assert await store.append(game_id, 0, ev("b")) == AppendResult("conflict", 1, 0)


async def test_appending_to_a_missing_game_conflicts(
    store: RedisEventStore, redis: Redis, game_id: str
) -> None:
    assert await store.append(game_id, 3, ev("a"), command_id="c") == AppendResult("conflict", 0, 0)
    assert await redis.exists(events_key(game_id)) == 0


async def test_duplicate_command_id_returns_recorded_versions(
    store: RedisEventStore, game_id: str
) -> None:
    await store.append(game_id, 0, ev("a"))
    assert await store.append(game_id, 1, ev("b", "c"), command_id="cmd") == AppendResult(
        "ok", 3, 2
    )
    await store.append(game_id, 3, ev("d"))
    # Same id again, at the current version or a stale one: recognised before any version check.
    for expected in (4, 1, 0):
        assert await store.append(game_id, expected, ev("b", "c"), command_id="cmd") == (
            AppendResult("duplicate", 3, 2)
        )
    assert [e.data for e in await store.read(game_id)] == [b"a", b"b", b"c", b"d"]


async def test_recorded_command_answers_like_a_duplicate(
    store: RedisEventStore, game_id: str
) -> None:
    assert await store.recorded_command(game_id, "cmd") is None
    await store.append(game_id, 0, ev("a"))
    await store.append(game_id, 1, ev("b", "c"), command_id="cmd")
    assert await store.recorded_command(game_id, "cmd") == AppendResult("duplicate", 3, 2)
    assert await store.recorded_command(game_id, "other") is None


async def test_the_store_keeps_a_digest_of_a_command_id_never_the_id(
    store: RedisEventStore, redis: Redis, game_id: str
) -> None:
    """A seating's command id holds its Idempotency-Key, which works as a secret; and ids are
    long. The log and the records keep the id's digest; the id itself is nowhere in Redis."""
    secret = "seat0:join:" + uuid.uuid4().hex
    await store.append(game_id, 0, ev("a"), command_id=secret)
    assert [e.command_id for e in await store.read(game_id)] == [command_digest(secret)]
    assert len(command_digest(secret)) == 16 and command_digest(secret) != command_digest("x")
    assert await redis.hkeys(cmds_key(game_id)) == [command_digest(secret).encode()]
    for key in (events_key(game_id), cmds_key(game_id)):
        assert secret.encode() not in await redis.dump(key), key


async def test_every_entry_has_the_same_fields(
    store: RedisEventStore, redis: Redis, game_id: str
) -> None:
    """Entries with the same field names are stored with the names once per stream node:
    ``c`` is on every entry, empty but on a batch's first (read back as no command id)."""
    await store.append(game_id, 0, ev("a", "b", "c"), command_id="cmd")
    await store.append(game_id, 3, ev("d"))
    entries = await redis.xrange(events_key(game_id))
    assert [list(fields) for _, fields in entries] == [[b"e", b"c"]] * 4
    mark = command_digest("cmd")
    assert [fields[b"c"] for _, fields in entries] == [mark.encode(), b"", b"", b""]
    assert [e.command_id for e in await store.read(game_id)] == [mark, None, None, None]


async def test_records_written_before_digests_still_answer_retries(
    store: RedisEventStore, redis: Redis, game_id: str
) -> None:
    """An older version recorded the id itself: a retry reaching this version during a
    rolling upgrade is still a duplicate, not a second application."""
    await store.append(game_id, 0, ev("a", "b"))
    await redis.xadd(events_key(game_id), {"e": b"c", "c": b"old-cmd"}, id="3-0")
    await redis.hset(cmds_key(game_id), "old-cmd", "3:3:print")
    assert await store.append(game_id, 3, ev("c"), command_id="old-cmd") == AppendResult(
        "duplicate", 3, 3, "print"
    )
    assert await store.recorded_command(game_id, "old-cmd") == AppendResult(
        "duplicate", 3, 3, "print"
    )
    assert [e.command_id for e in await store.read(game_id)] == [None, None, "old-cmd"]


async def test_command_ids_are_per_game(store: RedisEventStore, game_id: str) -> None:
    other = f"{game_id}-other"
    assert (await store.append(game_id, 0, ev("a"), command_id="same")).status == "ok"
    assert (await store.append(other, 0, ev("a"), command_id="same")).status == "ok"


async def test_seat_token_is_stored_only_with_a_successful_append(
    store: RedisEventStore, game_id: str
) -> None:
    await store.append(game_id, 0, ev("created"))
    conflict = await store.append(game_id, 0, ev("join"), seat_token=(2, "hash-a"))
    assert conflict.status == "conflict"
    assert await store.seat_token_hash(game_id, 2) is None
    await store.append(game_id, 1, ev("join"), seat_token=(2, "hash-b"))
    assert await store.seat_token_hash(game_id, 2) == "hash-b"
    assert await store.seat_token_hash(game_id, 3) is None


async def test_secret_is_set_once(store: RedisEventStore, game_id: str) -> None:
    assert await store.get_secret(game_id) is None
    assert await store.put_secret(game_id, "first") == "first"
    assert await store.put_secret(game_id, "second") == "first"
    assert await store.get_secret(game_id) == "first"


@pytest.mark.parametrize(
    ("expected", "events", "command_id", "game"),
    [(-1, [b"a"], None, "g"), (0, [], None, "g"), (0, [b"a"], "", "g"), (0, [b"a"], None, "{x}")],
)
async def test_invalid_appends_are_refused(
    store: RedisEventStore,
    expected: int,
    events: list[bytes],
    command_id: str | None,
    game: str,
) -> None:
    with pytest.raises(ValueError):
        await store.append(game, expected, events, command_id)


# -- batches -----------------------------------------------------------------------------------


async def test_batches_are_all_or_nothing_for_readers(store: RedisEventStore, game_id: str) -> None:
    """A concurrent reader only ever sees whole batches: never a version inside one."""
    batch, batches = 10, 40
    seen: set[int] = set()
    done = asyncio.Event()

    async def watch() -> None:
        while not done.is_set():
            seen.add(await store.version(game_id))
            events = await store.read(game_id)
            assert len(events) % batch == 0

    async def write() -> None:
        for n in range(batches):
            payload = [f"{n}.{i}".encode() for i in range(batch)]
            assert (await store.append(game_id, n * batch, payload)).status == "ok"
            await asyncio.sleep(0)
        done.set()

    await asyncio.gather(watch(), write())
    assert all(v % batch == 0 for v in seen)
    assert len(seen) > 2  # the watcher really interleaved with the writer


async def test_conflicting_batch_leaves_no_partial_entries(
    store: RedisEventStore, game_id: str
) -> None:
    await store.append(game_id, 0, ev("a"))
    big = [f"x{i}".encode() for i in range(100)]
    assert (await store.append(game_id, 0, big, command_id="big")).status == "conflict"
    assert await store.version(game_id) == 1
    assert [e.data for e in await store.read(game_id)] == [b"a"]


async def test_tampered_stream_fails_before_writing(
    store: RedisEventStore, redis: Redis, game_id: str
) -> None:
    """If the never-delete invariant is broken, the first XADD fails and nothing is written."""
    await store.append(game_id, 0, ev("a", "b", "c"))
    await redis.xdel(events_key(game_id), "2-0")  # XLEN 2, top id 3-0
    with pytest.raises(StoreError, match="equal or smaller"):
        await store.append(game_id, 2, ev("x", "y"), command_id="cmd")
    assert [e.version for e in await store.read(game_id)] == [1, 3]
    assert not await redis.hexists(cmds_key(game_id), command_digest("cmd"))


async def test_versions_are_gapless(store: RedisEventStore, game_id: str) -> None:
    version = 0
    for n in range(1, 30):
        result = await store.append(game_id, version, [b"e"] * (n % 4 + 1))
        assert result.status == "ok"
        assert result.first_version == version + 1
        version = result.version
    assert [e.version for e in await store.read(game_id)] == list(range(1, version + 1))


# -- reads -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("after", "limit", "expected"),
    [
        (0, None, list(range(1, 11))),
        (3, None, list(range(4, 11))),
        (3, 2, [4, 5]),
        (0, 1, [1]),
        (9, 5, [10]),
        (10, None, []),
        (25, 3, []),
        (0, 100, list(range(1, 11))),
    ],
)
async def test_range_reads(
    store: RedisEventStore, game_id: str, after: int, limit: int | None, expected: list[int]
) -> None:
    await store.append(game_id, 0, [f"e{i}".encode() for i in range(1, 11)])
    events = await store.read(game_id, after=after, limit=limit)
    assert [e.version for e in events] == expected
    assert [e.data for e in events] == [f"e{v}".encode() for v in expected]


async def test_invalid_reads_are_refused(store: RedisEventStore, game_id: str) -> None:
    with pytest.raises(ValueError):
        await store.read(game_id, after=-1)
    with pytest.raises(ValueError):
        await store.read(game_id, limit=0)


async def test_events_are_opaque_bytes(store: RedisEventStore, game_id: str) -> None:
    payloads = [bytes(range(256)), b"", b"\x00\r\n*3\r\n", "é♣".encode()]
    await store.append(game_id, 0, payloads)
    assert [e.data for e in await store.read(game_id)] == payloads


# -- subscriptions -----------------------------------------------------------------------------


async def test_subscription_replays_then_goes_live(store: RedisEventStore, game_id: str) -> None:
    await store.append(game_id, 0, ev("1", "2", "3", "4", "5"))
    async with store.subscribe(game_id, after=2) as sub:
        assert [e.version for e in await take(sub, 3)] == [3, 4, 5]
        await store.append(game_id, 5, ev("6", "7"))
        got = await take(sub, 2)
        assert [(e.version, e.data) for e in got] == [(6, b"6"), (7, b"7")]
        assert sub.position == 7


async def test_a_batch_ends_where_the_next_event_needs_a_new_append(
    store: RedisEventStore, game_id: str
) -> None:
    """``next_at_hand`` is True only while the next event is there: a streaming consumer
    holds a batch's frames until it says False, so a False missed holds them forever."""
    await store.append(game_id, 0, ev("1", "2", "3"))
    async with store.subscribe(game_id, after=0) as sub:
        got = [await anext(sub)]
        assert sub.next_at_hand()  # the rest of the catch-up page
        got += await take(sub, 2)
        assert [e.version for e in got] == [1, 2, 3]
        assert not sub.next_at_hand()  # caught up: the next event is a future append
        await store.append(game_id, 3, ev("4", "5"))
        assert (await anext(sub)).version == 4
        for _ in range(100):  # the hub delivers the second of the batch with the first
            if sub.next_at_hand():
                break
            await asyncio.sleep(0.01)
        assert sub.next_at_hand()
        assert (await anext(sub)).version == 5
        assert not sub.next_at_hand()


async def test_a_full_catch_up_page_is_no_promise_of_more(
    store: RedisEventStore, game_id: str
) -> None:
    """A log of exactly one page (500 events): after its last event nothing is at hand, though
    the subscription cannot yet know that it is caught up."""
    await store.append(game_id, 0, [b"x"] * 500)
    async with store.subscribe(game_id, after=0) as sub:
        assert [e.version for e in await take(sub, 500)] == list(range(1, 501))
        assert not sub.next_at_hand()
        await store.append(game_id, 500, ev("501"))
        assert (await asyncio.wait_for(anext(sub), 5)).version == 501


async def test_a_live_event_a_catch_up_already_read_is_not_at_hand(
    store: RedisEventStore, game_id: str
) -> None:
    """An append that lands while a subscriber reads the store reaches it twice: in the page
    and live. The live copy is dropped, and is no event at hand."""
    await store.append(game_id, 0, ev("1", "2"))
    async with store.subscribe(game_id, after=0) as sub:
        _, second = await take(sub, 2)
        sub._push([second])  # what the hub delivers of an append the page already held
        assert not sub.next_at_hand()
        await store.append(game_id, 2, ev("3"))
        assert (await asyncio.wait_for(anext(sub), 5)).version == 3


async def test_subscription_to_a_game_not_created_yet(store: RedisEventStore, game_id: str) -> None:
    async with store.subscribe(game_id) as sub:
        reader = asyncio.create_task(take(sub, 3))
        await asyncio.sleep(0.05)
        await store.append(game_id, 0, ev("a"))
        await store.append(game_id, 1, ev("b", "c"))
        assert [e.data for e in await reader] == [b"a", b"b", b"c"]


async def test_subscription_sees_writes_of_another_process(
    store: RedisEventStore, redis_url: str, game_id: str
) -> None:
    other = connect_store(redis_url)
    try:
        async with store.subscribe(game_id) as sub:
            reader = asyncio.create_task(take(sub, 2))
            await other.append(game_id, 0, ev("a"))
            await other.append(game_id, 1, ev("b"))
            assert [e.version for e in await reader] == [1, 2]
    finally:
        await other.aclose()


async def test_subscribers_joining_during_writes_get_no_gap_and_no_duplicate(
    store: RedisEventStore, game_id: str
) -> None:
    total = 150
    subs = []

    async def write() -> None:
        for v in range(total):
            await store.append(game_id, v, [f"e{v + 1}".encode()])
            if v % 10 == 0:
                subs.append(store.subscribe(game_id, after=max(0, v - 5)))
            await asyncio.sleep(0)

    await write()
    for sub in subs:
        start = sub.position
        got = await take(sub, total - start)
        assert [e.version for e in got] == list(range(start + 1, total + 1))
        sub.close()


async def test_many_subscribers_on_one_game(store: RedisEventStore, game_id: str) -> None:
    await store.append(game_id, 0, ev("a", "b", "c"))
    subs = [store.subscribe(game_id, after=n % 4) for n in range(60)]
    readers = [asyncio.create_task(take(sub, 13 - sub.position)) for sub in subs]
    for v in range(3, 13):
        await store.append(game_id, v, [f"e{v + 1}".encode()])
    for sub, reader in zip(subs, readers, strict=True):
        got = await reader
        assert [e.version for e in got] == list(range(got[0].version, 14))
        assert sub.position == 13
        sub.close()
    assert store.hub.stats()["games"] == 0


async def connections_named(
    redis: Redis | RedisCluster, prefix: str
) -> tuple[collections.Counter[str], list[collections.Counter[str]]]:
    """Connections whose name starts with ``prefix``, by name: in all, and per node."""
    if isinstance(redis, RedisCluster):
        by_node = await redis.client_list(target_nodes=RedisCluster.ALL_NODES)
        lists = list(by_node.values())
    else:
        lists = [await redis.client_list()]
    per_node = [
        collections.Counter(c["name"] for c in clients if c["name"].startswith(prefix))
        for clients in lists
    ]
    return sum(per_node, collections.Counter()), per_node


async def test_connections_grow_with_processes_not_subscribers(
    redis_url: str, redis: Redis
) -> None:
    name = f"conn-{uuid.uuid4().hex[:8]}"
    store = connect_store(redis_url, name=name)  # default pool: up to 64 connections
    try:
        games = [f"t-{uuid.uuid4().hex}" for _ in range(20)]
        for game in games:
            await store.append(game, 0, ev("a"))
        subs = [store.subscribe(game) for game in games for _ in range(10)]
        await asyncio.gather(*(take(sub, 1) for sub in subs))  # 200 concurrent catch-ups
        for game in games:
            await store.append(game, 1, ev("b"))
        await asyncio.gather(*(take(sub, 1) for sub in subs))  # 200 live deliveries
        ours, per_node = await connections_named(redis, name)
        # One blocking reader (a cluster: one Pub/Sub connection) for 20 games, 200 subscribers.
        assert ours[f"{name}-hub"] == 1
        # Subscribers' reads share 4 slots; add the hub's CLIENT UNBLOCK and our own appends.
        assert 1 <= ours[f"{name}-store"] <= 8 * len(per_node)
        assert all(node[f"{name}-store"] <= 8 for node in per_node)
        for sub in subs:
            sub.close()
    finally:
        await store.aclose()


async def test_slow_subscriber_is_dropped_without_blocking_others(
    redis_url: str, game_id: str
) -> None:
    store = connect_store(redis_url, queue_size=4)
    try:
        slow = store.subscribe(game_id)
        fast = store.subscribe(game_id)
        await store.append(game_id, 0, ev("a"))
        assert [e.version for e in await take(slow, 1)] == [1]
        assert [e.version for e in await take(fast, 1)] == [1]
        for v in range(1, 20):
            await store.append(game_id, v, ev("x"))
            assert (await take(fast, 1))[0].version == v + 1
        with pytest.raises(SubscriberLagged) as lagged:
            await take(slow, 1)
        assert lagged.value.position == 1
        # Resubscribing from the reported position loses nothing.
        async with store.subscribe(game_id, after=lagged.value.position) as again:
            assert [e.version for e in await take(again, 19)] == list(range(2, 21))
    finally:
        await store.aclose()


async def test_closing_ends_iteration(store: RedisEventStore, game_id: str) -> None:
    sub = store.subscribe(game_id)
    reader = asyncio.create_task(take(sub, 1))
    await asyncio.sleep(0.05)
    sub.close()
    assert await reader == []


async def test_closing_the_store_ends_subscriptions(redis_url: str, game_id: str) -> None:
    store = connect_store(redis_url)
    sub = store.subscribe(game_id)
    reader = asyncio.create_task(take(sub, 1))
    await asyncio.sleep(0.05)
    await store.aclose()
    assert await reader == []


async def test_cancelled_waits_lose_nothing(store: RedisEventStore, game_id: str) -> None:
    """``wait_for(sub.__anext__(), t)`` (SSE heartbeats) may cancel a wait at any moment."""
    sub = store.subscribe(game_id)
    got: list[int] = []

    async def consume() -> None:
        while len(got) < 40:
            with contextlib.suppress(TimeoutError):
                got.append((await asyncio.wait_for(sub.__anext__(), 0.001)).version)

    consumer = asyncio.create_task(consume())
    for v in range(40):
        await store.append(game_id, v, ev("x"))
        await asyncio.sleep(0.001 * (v % 3))
    await asyncio.wait_for(consumer, 10)
    assert got == list(range(1, 41))
    sub.close()


async def test_a_hole_in_live_delivery_is_filled_from_the_store(
    store: RedisEventStore, game_id: str
) -> None:
    """Defence in depth: should a live event ever arrive ahead of its predecessors, they are
    read from the store first, and their later live copies are skipped."""
    await store.append(game_id, 0, ev("1"))
    async with store.subscribe(game_id) as sub:
        assert [e.version for e in await take(sub, 1)] == [1]
        await store.append(game_id, 1, ev("2", "3", "4"))
        sub._push([StoredEvent(4, b"4")])  # jumps ahead of the hub's own delivery of 2..4
        assert [e.version for e in await take(sub, 3)] == [2, 3, 4]
        await store.append(game_id, 4, ev("5"))
        assert [e.version for e in await take(sub, 1)] == [5]


async def test_a_waiting_caller_is_not_overtaken_by_a_busy_one(redis_url: str) -> None:
    """A busy caller that releases its connection and asks again at once must not keep it
    while another caller waits: under load redis-py's own pool let such newcomers overtake
    waiters, who then starved for seconds (p99 of 400-800 ms with 200 busy games)."""
    if "cluster" in redis_url:
        pytest.skip("a cluster has its own pools")
    pool = FairConnectionPool.from_url(redis_url, max_connections=1, timeout=5)
    log: list[str] = []

    async def busy() -> None:
        for _ in range(20):
            connection = await pool.get_connection()
            log.append("busy")
            await asyncio.sleep(0)
            await pool.release(connection)

    async def waiting() -> None:
        await asyncio.sleep(0)  # asks once busy holds the connection
        connection = await pool.get_connection()
        log.append("waiting")
        await pool.release(connection)

    await asyncio.wait_for(asyncio.gather(busy(), waiting()), 5)
    await pool.disconnect()
    assert log.index("waiting") <= 2, log


async def test_a_duplicate_returns_the_fingerprint_recorded_with_the_command(
    store: RedisEventStore, game_id: str
) -> None:
    first = await store.append(game_id, 0, [b"{}"], "cmd-1", fingerprint="abc")
    again = await store.append(game_id, 1, [b"{}"], "cmd-1", fingerprint="other")
    assert (first.status, again.status) == ("ok", "duplicate")
    assert again.fingerprint == "abc"
    recorded = await store.recorded_command(game_id, "cmd-1")
    assert recorded is not None and recorded.fingerprint == "abc"
    assert await store.version(game_id) == 1
