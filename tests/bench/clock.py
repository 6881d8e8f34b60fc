"""Benchmark: turn clocks at scale against a real ``allfours serve``.

Thousands of tables each wait for one absent person (seat 0; three random bots), so each holds
a pending deadline in the due-index. Phases, on one server and one private Redis:

1. idle: the server with no table, its CPU per second (the baseline);
2. pending: ``--games`` tables whose deadlines are far away (a one-hour clock): the CPU per
   second the sweepers spend finding nothing due, and Redis bytes per pending deadline;
3. steady: with those still pending, ``--firing`` more tables on a short clock, ``--rate`` of
   them seated each second, so as many time out each second: how late each timeout fired after
   its deadline (``TurnTimedOut.at - deadline``, both the server's clock), p50 and p99;
4. burst: ``--burst`` tables seated as fast as the server takes them, all timing out within a
   few seconds of each other (``burst_…`` keys): what a backlog costs.

One JSON line: ``pending_deadlines``, ``fire_late_p50_ms``, ``fire_late_p99_ms``,
``sweep_cpu_ms_per_s`` (phase 2), ``idle_cpu_ms_per_s`` (phase 1), ``redis_bytes_per_deadline``,
and the burst's ``burst_fire_late_p50_ms`` / ``burst_fire_late_p99_ms``.

    uv run python tests/bench/clock.py --games 5000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Awaitable, Callable

from _common import DECODE_CREATED, Conn, HttpError, Server, emit, note, percentile, redis_for_bench
from redis.asyncio import Redis

from server.store.keys import DUE_KEY


async def _on_connections(
    port: int, count: int, job: Callable[[Conn, int], Awaitable[None]]
) -> None:
    """Run ``job(conn, i)`` for i in 0..count-1 over 32 keep-alive connections."""
    todo = iter(range(count))

    async def worker() -> None:
        conn = Conn(port)
        try:
            for i in todo:
                await job(conn, i)
        finally:
            conn.close()

    await asyncio.gather(*(worker() for _ in range(32)))


async def _seat_tables(port: int, count: int, seconds: int) -> list[str]:
    """``count`` tables, each with a person at seat 0 (who never plays) and three bots."""
    games: list[str] = []
    body = json.dumps(
        {"bots": [None, "random", "random", "random"], "rules": {"turn_seconds": seconds}}
    ).encode()

    async def one(conn: Conn, _: int) -> None:
        status, created = await conn.request("POST", "/v1/games", body)
        if status != 201:
            raise HttpError(f"create: {status} {created[:200]!r}")
        game = DECODE_CREATED.decode(created).game_id
        status, seated = await conn.request(
            "POST", f"/v1/games/{game}/seats/0", b'{"name":"absent"}'
        )
        if status != 201:
            raise HttpError(f"seat: {status} {seated[:200]!r}")
        games.append(game)

    await _on_connections(port, count, one)
    return games


async def _cpu_ms_per_s(server: Server, seconds: float) -> float:
    before = sum(server.cpu_seconds().values())
    start = time.perf_counter()
    await asyncio.sleep(seconds)
    spent = sum(server.cpu_seconds().values()) - before
    return round(spent * 1000 / (time.perf_counter() - start), 2)


async def _lateness(port: int, games: list[str]) -> list[float]:
    """For each game, how late its first timeout fired after its deadline (ms)."""
    late: list[float] = []

    async def one(conn: Conn, i: int) -> None:
        status, page = await conn.request("GET", f"/v1/games/{games[i]}/events?limit=1000")
        if status != 200:
            raise HttpError(f"events: {status}")
        for envelope in json.loads(page)["events"]:
            event = envelope["event"]
            if event["type"] == "TurnTimedOut":
                late.append(event["at"] - event["deadline"])
                return

    await _on_connections(port, len(games), one)
    return late


async def _fire_lateness(
    port: int, count: int, clock_s: int, *, per_second: int | None
) -> list[float]:
    """Seat ``count`` tables on a ``clock_s`` clock (``per_second`` of them each second, or
    all at once) and wait until each has timed out once: how late each fired (ms)."""
    started = time.monotonic()
    firing: list[str] = []
    if per_second is None:
        firing = await _seat_tables(port, count, clock_s)
    else:
        for wave in range(0, count, per_second):
            firing += await _seat_tables(port, min(per_second, count - wave), clock_s)
            await asyncio.sleep(max(0.0, started + wave / per_second + 1 - time.monotonic()))
    note(f"seated {len(firing)} in {time.monotonic() - started:.1f} s; waiting for the timeouts")
    await asyncio.sleep(max(0.0, started + clock_s - time.monotonic()))
    give_up = time.monotonic() + 120
    while True:  # until every one has timed out once (bounded)
        late = await _lateness(port, firing)
        if len(late) == len(firing) or time.monotonic() > give_up:
            return late
        await asyncio.sleep(1.0)


def _summary(prefix: str, late: list[float]) -> dict[str, float]:
    return {
        f"{prefix}fired": len(late),
        f"{prefix}fire_late_p50_ms": round(percentile(late, 0.5), 1),
        f"{prefix}fire_late_p99_ms": round(percentile(late, 0.99), 1),
        f"{prefix}fire_late_max_ms": round(max(late, default=float("nan")), 1),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=5000, help="pending deadlines")
    parser.add_argument("--firing", type=int, default=1000, help="tables that time out")
    parser.add_argument("--rate", type=int, default=100, help="of them seated per second")
    parser.add_argument("--burst", type=int, default=1000, help="tables timing out at once")
    parser.add_argument("--short-clock", type=int, default=15, help="seconds")
    parser.add_argument("--measure-s", type=float, default=5.0)
    args = parser.parse_args()
    async with redis_for_bench("everysec") as redis_url:
        server = Server(1, "everysec", redis_url=redis_url)
        await server.start()
        redis = Redis.from_url(redis_url)
        try:
            port = server.port
            idle = await _cpu_ms_per_s(server, args.measure_s)
            note(f"seating {args.games} tables on a one-hour clock")
            await _seat_tables(port, args.games, 3600)
            pending = int(await redis.zcard(DUE_KEY))
            memory = int(await redis.memory_usage(DUE_KEY) or 0)
            sweeping = await _cpu_ms_per_s(server, args.measure_s)
            note(f"{args.firing} tables timing out, {args.rate} a second")
            steady = await _fire_lateness(port, args.firing, args.short_clock, per_second=args.rate)
            note(f"{args.burst} tables timing out at once")
            burst = await _fire_lateness(port, args.burst, args.short_clock, per_second=None)
        finally:
            await redis.aclose()
            server.stop()
    emit(
        {
            "benchmark": "clock",
            "pending_deadlines": pending,
            "firing_per_s": args.rate,
            **_summary("", steady),
            **_summary("burst_", burst),
            "sweep_cpu_ms_per_s": sweeping,
            "idle_cpu_ms_per_s": idle,
            "redis_bytes_per_deadline": round(memory / max(pending, 1), 1),
        }
    )


if __name__ == "__main__":
    asyncio.run(main())
