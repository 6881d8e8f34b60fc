"""Baselines for the store benchmark: raw XADD and a bare XADD Lua script vs ``store.append``.

All three run through the *same* redis-py client and server in the same process, so the ratio
measures what the store adds (its script's checks and Python work), not the machine.

    uv run python tests/bench/store_raw.py            # embedded Redis
    REDIS_URL=redis://... uv run python tests/bench/store_raw.py

Prints one JSON object. Importable: ``tests/bench/store.py`` can reuse the ``*_rate`` helpers.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from collections.abc import Awaitable, Callable

from server.redis_server import EmbeddedRedis
from server.store import RedisEventStore, connect_store

EVENT = b'{"type":"CardPlayed","seat":2,"card":"JC","at":1735689600000}'
# The smallest script that appends one event with an explicit id: the "raw XADD+Lua" floor.
BARE_LUA = "return redis.call('XADD', KEYS[1], ARGV[1] .. '-0', 'e', ARGV[2])"


async def _rate(
    n: int, concurrency: int, op: Callable[[str, int], Awaitable[object]]
) -> tuple[float, list[float]]:
    """Operations per second and per-operation latencies of ``op(game, version)``."""
    latencies: list[float] = []

    async def worker() -> None:
        game = f"bench-{uuid.uuid4().hex}"
        for version in range(n // concurrency):
            started = time.perf_counter()
            await op(game, version)
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return n / (time.perf_counter() - started), latencies


async def raw_xadd_rate(store: RedisEventStore, n: int, concurrency: int = 1) -> float:
    redis = store.redis

    async def op(game: str, version: int) -> object:
        return await redis.xadd(f"allfours:{{{game}}}:events", {"e": EVENT}, id=f"{version + 1}-0")

    return (await _rate(n, concurrency, op))[0]


async def raw_lua_rate(store: RedisEventStore, n: int, concurrency: int = 1) -> float:
    script = store.redis.register_script(BARE_LUA)

    async def op(game: str, version: int) -> object:
        return await script(keys=[f"allfours:{{{game}}}:events"], args=[version + 1, EVENT])

    return (await _rate(n, concurrency, op))[0]


async def append_rate(
    store: RedisEventStore, n: int, concurrency: int = 1
) -> tuple[float, list[float]]:
    async def op(game: str, version: int) -> object:
        result = await store.append(game, version, [EVENT], command_id=uuid.uuid4().hex)
        assert result.status == "ok"
        return result

    return await _rate(n, concurrency, op)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(url: str, n: int = 3000) -> dict[str, float]:
    store = connect_store(url)
    try:
        await append_rate(store, 200)  # warm-up: connections, script cache
        raw_xadd = await raw_xadd_rate(store, n)
        raw_lua = await raw_lua_rate(store, n)
        append, latencies = await append_rate(store, n)
        many_raw = await raw_lua_rate(store, n, concurrency=200)
        many, _ = await append_rate(store, n, concurrency=200)
        return {
            "raw_xadd_per_s": round(raw_xadd),
            "raw_lua_per_s": round(raw_lua),
            "append_per_s": round(append),
            "ratio_vs_lua": round(append / raw_lua, 3),
            "p50_ms": round(_percentile(latencies, 0.5) * 1000, 3),
            "p99_ms": round(_percentile(latencies, 0.99) * 1000, 3),
            "many_games_raw_lua_per_s": round(many_raw),
            "many_games_append_per_s": round(many),
        }
    finally:
        await store.aclose()


async def main() -> None:
    url = os.environ.get("REDIS_URL")
    if url:
        print(json.dumps(await measure(url)))
        return
    async with EmbeddedRedis() as server:
        print(json.dumps(await measure(server.url)))


if __name__ == "__main__":
    asyncio.run(main())
