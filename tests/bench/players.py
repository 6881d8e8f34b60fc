"""Players benchmark: matchmaking seat latency with 1,000 people queueing across three
instances, and leaderboard reads with 100,000 rated players. Two JSON lines out.

Three ``allfours serve`` processes share one embedded Redis (the per-address quotas and the
rate limit off: every bench client comes from one address). ``--people`` (1,000) player
identities are made; then they join the queue (``POST /v1/matchmaking``), spread evenly over
``--arrival-s`` seconds and over the three instances, and each polls its ticket
(``GET /v1/matchmaking``, the heartbeat) every ``--poll-ms`` until it is seated. Reported:

- ``matchmaking_p50_ms``, ``matchmaking_p99_ms``: from sending the join to the poll that first
  shows the ticket seated (so a poll interval's worth of resolution), over everyone;
- ``tables``, and a check that each person was seated once and each table has four seats.

Then the rating projection's Redis structures (``ratings.BOARD``, ``NAMES``, ``COUNTS``) are
filled with ``--rated`` (100,000) synthetic players directly (``"filled": "direct"``: rating
that many games through the projection would take hours and measure something else), and
``--reads`` leaderboard pages (``GET /v1/leaderboard``, 50 a page, at random offsets) are
read across the instances, 8 at a time: ``leaderboard_p99_ms``.

Run with ``uv run python tests/bench/players.py [--people 1000] [--rated 100000]`` (on a
shared machine, under ``nice``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from collections import Counter
from typing import Any

from _common import (
    Conn,
    HttpError,
    Server,
    emit,
    exit_on_sigterm,
    latency_summary,
    note,
    redis_for_bench,
)
from redis.asyncio import Redis

from server.players.ratings import BOARD, COUNTS, NAMES

INSTANCES = 3
SERVER_ENV = {
    "ALLFOURS_PLAYERS_PER_HOUR": "0",
    "ALLFOURS_BOT_WORKERS": "0",  # no bots here: no worker processes to start
    # The bench's 1,000 polls compete for two cores: a late poll must not drop a ticket.
    "ALLFOURS_QUEUE_HEARTBEAT_S": "120",
}


async def make_players(servers: list[Server], people: int) -> list[tuple[int, bytes]]:
    """``people`` identities, made 32 at a time; (instance, Authorization header) each."""
    made: list[tuple[int, bytes]] = []
    conns = [Conn(servers[i % INSTANCES].port) for i in range(32)]

    async def maker(lane: int) -> None:
        for n in range(lane, people, len(conns)):
            body = json.dumps({"name": f"Bench {n}"}).encode()
            status, answer = await conns[lane].request("POST", "/v1/players", body)
            if status != 201:
                raise HttpError(f"createPlayer: {status} {answer[:200]!r}")
            key = json.loads(answer)["key"]
            made.append((n % INSTANCES, b"Authorization: Bearer %s\r\n" % key.encode()))

    await asyncio.gather(*(maker(lane) for lane in range(len(conns))))
    for conn in conns:
        conn.close()
    return made


async def queue_one(
    port: int, auth: bytes, start_at: float, poll_s: float, timeout_s: float
) -> tuple[float, str, int]:
    """Join at ``start_at`` (perf counter), poll until seated: (seconds, game, seat)."""
    await asyncio.sleep(max(0.0, start_at - time.perf_counter()))
    conn = Conn(port)
    try:
        sent = time.perf_counter()
        status, answer = await conn.request("POST", "/v1/matchmaking", b"{}", auth)
        if status != 201:
            raise HttpError(f"joinQueue: {status} {answer[:200]!r}")
        while time.perf_counter() - sent < timeout_s:
            await asyncio.sleep(poll_s)
            status, answer = await conn.request("GET", "/v1/matchmaking", headers=auth)
            if status != 200:
                raise HttpError(f"getTicket: {status} {answer[:200]!r}")
            ticket = json.loads(answer)
            if ticket["status"] == "seated":
                return time.perf_counter() - sent, ticket["game_id"], ticket["seat"]
        raise HttpError(f"not seated within {timeout_s}s")
    finally:
        conn.close()


async def matchmaking(servers: list[Server], args: argparse.Namespace) -> dict[str, Any]:
    players = await make_players(servers, args.people)
    note(f"{len(players)} players made; queueing them over {args.arrival_s}s")
    begin = time.perf_counter() + 0.5
    spacing = args.arrival_s / max(1, len(players))
    results = await asyncio.gather(
        *(
            queue_one(
                servers[(instance + 1) % INSTANCES].port,  # polls on another instance
                auth,
                begin + n * spacing,
                args.poll_ms / 1000,
                args.timeout_s,
            )
            for n, (instance, auth) in enumerate(players)
        )
    )
    seats_of = Counter(game for _, game, _ in results)
    distinct = {(game, seat) for _, game, seat in results}
    once = len(distinct) == len(results) and all(n == 4 for n in seats_of.values())
    return {
        "bench": "players",
        "what": "matchmaking",
        "instances": INSTANCES,
        "people": len(results),
        "arrival_s": args.arrival_s,
        "poll_ms": args.poll_ms,
        "tables": len(seats_of),
        "seated_once_four_a_table": once,
        **latency_summary([seconds for seconds, _, _ in results], "matchmaking_"),
    }


async def fill_board(redis_url: str, rated: int) -> None:
    """``rated`` synthetic players in the leaderboard's structures, as the projection keeps
    them (a rating, a name, a count of games)."""
    rng = random.Random(7)
    redis = Redis.from_url(redis_url)
    try:
        for start in range(0, rated, 5_000):
            ids = [f"p{n:016x}" for n in range(start, min(rated, start + 5_000))]
            async with redis.pipeline(transaction=False) as pipe:
                pipe.zadd(BOARD, {p: rng.randint(900, 2300) for p in ids})
                pipe.hset(NAMES, mapping={p: f"Rated {p[-6:]}" for p in ids})
                pipe.hset(COUNTS, mapping={p: rng.randint(1, 400) for p in ids})
                await pipe.execute()
    finally:
        await redis.aclose()


async def leaderboard(servers: list[Server], args: argparse.Namespace) -> dict[str, Any]:
    await fill_board(args.redis_url, args.rated)
    rng = random.Random(11)
    offsets = [rng.randrange(0, max(1, args.rated - 50)) for _ in range(args.reads)]
    timings: list[float] = []

    async def reader(lane: int) -> None:
        conn = Conn(servers[lane % INSTANCES].port)
        try:
            for offset in offsets[lane::8]:
                started = time.perf_counter()
                status, answer = await conn.request(
                    "GET", f"/v1/leaderboard?offset={offset}&limit=50"
                )
                timings.append(time.perf_counter() - started)
                if status != 200 or len(json.loads(answer)["entries"]) != 50:
                    raise HttpError(f"getLeaderboard: {status} {answer[:200]!r}")
        finally:
            conn.close()

    await asyncio.gather(*(reader(lane) for lane in range(8)))
    return {
        "bench": "players",
        "what": "leaderboard",
        "rated": args.rated,
        "filled": "direct",
        "reads": len(timings),
        "page": 50,
        **latency_summary(timings, "leaderboard_"),
    }


async def main_async(args: argparse.Namespace) -> None:
    async with redis_for_bench(args.appendfsync) as redis_url:
        args.redis_url = redis_url
        servers = [
            Server(1, args.appendfsync, redis_url=redis_url, env=SERVER_ENV)
            for _ in range(INSTANCES)
        ]
        try:
            await asyncio.gather(*(s.start() for s in servers))
            emit(await matchmaking(servers, args))
            emit(await leaderboard(servers, args))
        finally:
            for server in servers:
                server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=1_000)
    parser.add_argument("--arrival-s", type=float, default=10.0)
    parser.add_argument("--poll-ms", type=int, default=250)
    parser.add_argument("--timeout-s", type=float, default=120.0)
    parser.add_argument("--rated", type=int, default=100_000)
    parser.add_argument("--reads", type=int, default=2_000)
    parser.add_argument("--appendfsync", default="everysec")
    args = parser.parse_args()
    exit_on_sigterm()
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
