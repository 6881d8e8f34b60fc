"""Concurrent writers on one game: optimistic concurrency must serialise them without a fork."""

from __future__ import annotations

import asyncio
import collections

import pytest
from redis.asyncio import Redis

from server.store import RedisEventStore, cmds_key, command_digest, connect_store

pytestmark = pytest.mark.backends  # on a Redis server and on a Redis Cluster

WRITERS = 8
COMMANDS = 200


async def test_concurrent_writers_apply_every_command_exactly_once(
    store: RedisEventStore, redis_url: str, redis: Redis, game_id: str
) -> None:
    # Half the writers share the fixture's store, half have their own connections (another
    # "process"): conflicts must be caught by Redis, not by anything in-process.
    other = connect_store(redis_url)
    conflicts = 0

    async def writer(w: int, s: RedisEventStore) -> None:
        nonlocal conflicts
        for i in range(COMMANDS):
            # Batches of 1-3 events, so versions and command ids do not line up trivially.
            batch = [f"{w}:{i}:{j}".encode() for j in range(1 + (w + i) % 3)]
            while True:
                version = await s.version(game_id)
                result = await s.append(game_id, version, batch, command_id=f"{w}:{i}")
                if result.status == "ok":
                    break
                assert result.status == "conflict"
                conflicts += 1
                await asyncio.sleep(0)

    try:
        await asyncio.gather(*(writer(w, store if w % 2 else other) for w in range(WRITERS)))
    finally:
        await other.aclose()

    events = await store.read(game_id)
    total = sum(1 + (w + i) % 3 for w in range(WRITERS) for i in range(COMMANDS))
    assert [e.version for e in events] == list(range(1, total + 1))
    assert await store.version(game_id) == total
    assert conflicts > 0  # the writers really raced

    # Every command id marks exactly one batch, whose events follow it contiguously and whole.
    ids = {command_digest(f"{w}:{i}"): f"{w}:{i}" for w in range(WRITERS) for i in range(COMMANDS)}
    marked = collections.Counter(ids[e.command_id] for e in events if e.command_id is not None)
    assert len(marked) == WRITERS * COMMANDS
    assert set(marked.values()) == {1}
    batches: dict[str, list[bytes]] = {}
    current = ""
    for e in events:
        if e.command_id is not None:
            current = ids[e.command_id]
        batches.setdefault(current, []).append(e.data)
    for command, datas in batches.items():
        w, i = map(int, command.split(":"))
        assert datas == [f"{w}:{i}:{j}".encode() for j in range(1 + (w + i) % 3)]

    # Each writer's commands are in its own order in the log.
    for w in range(WRITERS):
        mine = [int(c.split(":")[1]) for c in batches if c.startswith(f"{w}:")]
        assert mine == list(range(COMMANDS))
    assert await redis.hlen(cmds_key(game_id)) == WRITERS * COMMANDS
