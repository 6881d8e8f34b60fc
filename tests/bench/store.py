"""Event store benchmark: commands through ``GameService`` beside raw appends of the same batches.

What is measured, all in one run against the same Redis (ratios, since the machine is noisy):

- ``service_per_s``: real player commands through ``GameService.play`` on one game, one after
  the other (four people seated with ``take_seat``; each command picked at random from
  ``legal_actions`` of a state the bench folds from the events the service returned, which
  costs a few microseconds). ``p50_ms``/``p99_ms`` are the latencies of those ``play`` calls.
- ``raw_per_s``: the very same batches of event bytes (same count, sizes and command ids)
  appended with the store's ``append`` (EVALSHA of the append script: XLEN + XADD per event +
  HSET of the command id) from the same client, sequentially, to fresh streams.
  ``ratio`` = service_per_s / raw_per_s: what the service adds (state cache, decide, encode,
  lobby) on top of the raw XADD+Lua round trip. For scale (detail line): ``bare_lua_per_s``,
  the same batches through a minimal script (XADD only, no checks), and ``bare_xadd_per_s``,
  one plain ``XADD`` per command.
- ``many_games_per_s``: the same on 200 games at once (asyncio.gather, one task per game),
  beside ``raw_many_per_s`` (the same batches, 200 streams at once) and, as a diagnostic of
  the connection pool's queueing, ``raw_many_fifo_gate_*`` (the same with a FIFO semaphore
  as wide as the pool around each append).
- ``cost_ratio_v400_v10``: median latency of a command on a game at version ~400 over one at
  version ~10, measured alternately (one command on each in turn) so drift cancels out. Flat
  means no replay of the log per command; ``cold_load_ms_v400`` shows what a replay costs.
- ``redis_connections``: Redis connections held by a fresh store (pool + hub) serving 500
  subscribers (``store.subscribe``) on 100 games, counted with CLIENT LIST against a baseline
  (and, on a detail line, the same for a tenth of both).
- ``cost_ratio_followed_5000_10``: CPU per command (this process's, from getrusage, less the
  bench's own choosing and folding, plus Redis', from INFO CPU) while one subscriber follows
  each of 5,000 idle games, over the same with 10; in both, the played game has a subscriber
  too. Two stores in this process, one per side, measured in turn (ABBA), in many short
  rounds; the figure is the median over rounds of the two sides' ratio in that round, so a
  machine busy with something else moves both sides of a ratio alike. Flat means an append
  costs the same however many quiet games a process follows.

Phases are repeated ``--rounds`` times alternating service/raw order; rates are medians.
Redis: ``REDIS_URL`` if set (loopback only), else a private embedded Redis per ``--appendfsync``
value (default ``always,everysec``: the production default, then the cheaper setting).

Run: ``uv run python tests/bench/store.py [--commands 1000 --games 200 --per-game 40]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from _common import (
    emit,
    exit_on_sigterm,
    fsync_label,
    latency_summary,
    median,
    ms,
    note,
    redis_for_bench,
)
from redis.asyncio import Redis

from domain import PlayerCommand, Rules, State, evolve, legal_actions
from server.codec import decode_event
from server.lobby import Lobby
from server.service import GameService
from server.store import RedisClient, RedisEventStore, connect_store

RULES = Rules(target=99)
"""Long games (about 1,200 commands, 1,700 events): version 400 is reached, no game ends
during a phase, and the commands are the everyday ones (begging, playing cards, deals)."""


POOL_SIZE = 64
"""``connect_store``'s default ``max_connections`` (the store is built with its defaults)."""

OVERHEAD = [0.0]
"""Seconds the bench itself spent choosing commands and folding results (not the service)."""


@dataclass(slots=True)
class Table:
    """A game the bench plays all four seats of, with its state folded client-side."""

    game_id: str
    state: State
    rng: random.Random
    batches: list[tuple[bytes, ...]] = field(default_factory=list)
    sent: int = 0

    def choose(self) -> PlayerCommand:
        started = time.perf_counter()
        seat = self.state.to_act
        assert seat is not None, f"nobody to act in phase {self.state.phase}"
        command = self.rng.choice(legal_actions(self.state, seat))
        OVERHEAD[0] += time.perf_counter() - started
        return command

    def absorb(self, stored: tuple[bytes, ...]) -> None:
        started = time.perf_counter()
        state = self.state
        for data in stored:
            state = evolve(state, decode_event(data))
        self.state = state
        self.batches.append(stored)
        OVERHEAD[0] += time.perf_counter() - started

    @property
    def over(self) -> bool:
        return self.state.to_act is None

    def command_id(self) -> str:
        self.sent += 1
        return f"{self.game_id}:{self.sent}"


async def new_table(service: GameService, rng: random.Random) -> Table:
    created = await service.create_game(RULES, [None, None, None, None])
    for seat in range(4):
        await service.take_seat(created.game_id, seat, f"p{seat}")
    state = await service.state(created.game_id)
    return Table(created.game_id, state, random.Random(rng.random()))


async def play_commands(
    service: GameService, table: Table, count: int, latencies: list[float]
) -> tuple[Table, float]:
    """``count`` commands on ``table`` (a new table when a game ends); returns the table in
    use and the seconds spent setting up replacements (to leave out of the timing)."""
    setup = 0.0
    clock = time.perf_counter
    for _ in range(count):
        if table.over:
            started = clock()
            table = await new_table(service, table.rng)
            setup += clock() - started
        command = table.choose()
        command_id = table.command_id()
        started = clock()
        result = await service.play(table.game_id, command, command_id=command_id)
        latencies.append(clock() - started)
        table.absorb(result.stored)
    return table, setup


async def append_batches(
    store: RedisEventStore,
    batches: list[tuple[bytes, ...]],
    latencies: list[float],
    gate: asyncio.Semaphore | None = None,
) -> None:
    """The batches appended to a fresh stream with the store's ``append``, one by one.

    ``gate``: a FIFO semaphore as wide as the store's pool, taken around each append (a
    diagnostic: callers then queue fairly instead of racing for the pool's connections)."""
    game_id = f"raw-{uuid.uuid4().hex[:16]}"
    version = 0
    clock = time.perf_counter
    for i, batch in enumerate(batches):
        started = clock()
        if gate is None:
            outcome = await store.append(game_id, version, batch, f"{game_id}:{i}")
        else:
            async with gate:
                outcome = await store.append(game_id, version, batch, f"{game_id}:{i}")
        latencies.append(clock() - started)
        assert outcome.status == "ok", outcome
        version = outcome.version


async def bare_xadds(redis: RedisClient, batches: list[tuple[bytes, ...]]) -> float:
    """Plain XADD of the first event of each batch, one call per batch: calls per second."""
    key = f"allfours:{{bare-{uuid.uuid4().hex[:16]}}}:events"
    started = time.perf_counter()
    for batch in batches:
        await redis.xadd(key, {"e": batch[0]})
    return len(batches) / (time.perf_counter() - started)


BARE_LUA = "for i = 1, #ARGV do redis.call('XADD', KEYS[1], '*', 'e', ARGV[i]) end return #ARGV"
"""The least a script can do to append a batch: no version check, no command id."""


async def bare_lua(redis: RedisClient, batches: list[tuple[bytes, ...]]) -> float:
    """Each batch appended by the minimal script (one EVALSHA per batch): batches per second."""
    script = redis.register_script(BARE_LUA)
    key = f"allfours:{{bare-{uuid.uuid4().hex[:16]}}}:events"
    started = time.perf_counter()
    for batch in batches:
        await script(keys=[key], args=list(batch))
    return len(batches) / (time.perf_counter() - started)


async def command_stats(redis: Redis) -> Counter[str]:
    stats: dict[str, Any] = await redis.info("commandstats")
    return Counter(
        {
            name.removeprefix("cmdstat_"): int(value["calls"])
            for name, value in stats.items()
            if name not in ("cmdstat_info",)
        }
    )


# --- phases --------------------------------------------------------------------------------


async def throughput(
    args: argparse.Namespace,
    service: GameService,
    store: RedisEventStore,
    admin: Redis,
    rng: random.Random,
) -> dict[str, Any]:
    """Sequential one-game and 200-game service runs beside raw appends of their batches."""
    one = await new_table(service, rng)
    many = await asyncio.gather(*(new_table(service, rng) for _ in range(args.games)))
    tables = list(many)
    seq_rates: dict[str, list[float]] = {
        "service": [],
        "raw": [],
        "bare": [],
        "bare_lua": [],
        "service_many": [],
        "raw_many": [],
        "raw_many_gated": [],
    }
    ratios: list[float] = []
    ratios_many: list[float] = []
    lat: dict[str, list[float]] = {k: [] for k in seq_rates}
    shares: dict[str, list[float]] = {"service": [], "service_many": []}
    last_batches: list[tuple[bytes, ...]] = []
    last_many: list[list[tuple[bytes, ...]]] = []
    calls: Counter[str] = Counter()
    calls_commands = 0
    for round_no in range(args.rounds):
        service_first = round_no % 2 == 0 or not last_batches

        async def run_service() -> None:
            nonlocal one, calls_commands, calls, last_batches
            before = await command_stats(admin)
            mark = len(one.batches)
            started, overhead = time.perf_counter(), OVERHEAD[0]
            one, setup = await play_commands(service, one, args.commands, lat["service"])
            wall = time.perf_counter() - started - setup
            shares["service"].append((OVERHEAD[0] - overhead) / wall)
            after = await command_stats(admin)
            calls += after - before
            calls_commands += args.commands
            seq_rates["service"].append(args.commands / wall)
            last_batches = one.batches[mark:] if len(one.batches) - mark == args.commands else []
            if not last_batches:  # the game ended mid-phase: take the newest batches
                last_batches = one.batches[-args.commands :]

        async def run_raw() -> None:
            started = time.perf_counter()
            await append_batches(store, last_batches, lat["raw"])
            seq_rates["raw"].append(len(last_batches) / (time.perf_counter() - started))
            seq_rates["bare"].append(await bare_xadds(store.redis, last_batches))
            seq_rates["bare_lua"].append(await bare_lua(store.redis, last_batches))

        async def run_service_many() -> None:
            nonlocal last_many
            marks = [len(t.batches) for t in tables]
            started, overhead = time.perf_counter(), OVERHEAD[0]
            done = await asyncio.gather(
                *(play_commands(service, t, args.per_game, lat["service_many"]) for t in tables)
            )
            wall = time.perf_counter() - started
            shares["service_many"].append((OVERHEAD[0] - overhead) / wall)
            tables[:] = [t for t, _ in done]
            seq_rates["service_many"].append(args.games * args.per_game / wall)
            last_many = [t.batches[m:] for t, m in zip(tables, marks, strict=True)]

        async def run_raw_many() -> None:
            started = time.perf_counter()
            await asyncio.gather(*(append_batches(store, b, lat["raw_many"]) for b in last_many))
            wall = time.perf_counter() - started
            seq_rates["raw_many"].append(sum(len(b) for b in last_many) / wall)
            gate = asyncio.Semaphore(POOL_SIZE)
            started = time.perf_counter()
            await asyncio.gather(
                *(append_batches(store, b, lat["raw_many_gated"], gate) for b in last_many)
            )
            wall = time.perf_counter() - started
            seq_rates["raw_many_gated"].append(sum(len(b) for b in last_many) / wall)

        if service_first:
            await run_service()
            await run_raw()
            await run_service_many()
            await run_raw_many()
        else:
            await run_raw()
            await run_service()
            await run_raw_many()
            await run_service_many()
        ratios.append(seq_rates["service"][-1] / seq_rates["raw"][-1])
        ratios_many.append(seq_rates["service_many"][-1] / seq_rates["raw_many"][-1])
        note(
            f"round {round_no}: service {seq_rates['service'][-1]:.0f}/s raw "
            f"{seq_rates['raw'][-1]:.0f}/s; 200 games {seq_rates['service_many'][-1]:.0f}/s "
            f"raw {seq_rates['raw_many'][-1]:.0f}/s"
        )

    events = sum(len(b) for b in last_batches)
    return {
        "service_per_s": round(median(seq_rates["service"]), 1),
        "raw_per_s": round(median(seq_rates["raw"]), 1),
        "ratio": round(median(ratios), 3),
        **latency_summary(lat["service"]),
        "many_games_per_s": round(median(seq_rates["service_many"]), 1),
        "raw_many_per_s": round(median(seq_rates["raw_many"]), 1),
        "ratio_many": round(median(ratios_many), 3),
        "detail": {
            "rounds": args.rounds,
            "service_rounds_per_s": [round(r) for r in seq_rates["service"]],
            "raw_rounds_per_s": [round(r) for r in seq_rates["raw"]],
            "service_many_rounds_per_s": [round(r) for r in seq_rates["service_many"]],
            "raw_many_rounds_per_s": [round(r) for r in seq_rates["raw_many"]],
            **latency_summary(lat["raw"], "raw_"),
            **latency_summary(lat["service_many"], "many_"),
            **latency_summary(lat["raw_many"], "raw_many_"),
            "raw_many_fifo_gate_per_s": round(median(seq_rates["raw_many_gated"]), 1),
            **latency_summary(lat["raw_many_gated"], "raw_many_fifo_gate_"),
            "bench_choose_fold_share": round(median(shares["service"]), 4),
            "bench_choose_fold_share_many": round(median(shares["service_many"]), 4),
            "events_per_command": round(events / max(len(last_batches), 1), 3),
            "bytes_per_event": round(
                sum(len(d) for b in last_batches for d in b) / max(events, 1), 1
            ),
            "bare_xadd_per_s": round(median(seq_rates["bare"]), 1),
            "bare_lua_per_s": round(median(seq_rates["bare_lua"]), 1),
            "ratio_vs_bare_lua": round(
                median(
                    [
                        a / b
                        for a, b in zip(seq_rates["service"], seq_rates["bare_lua"], strict=True)
                    ]
                ),
                3,
            ),
            "redis_calls_per_service_command": {
                name: round(n / calls_commands, 3) for name, n in sorted(calls.items()) if n
            },
        },
    }


async def cost_by_version(
    args: argparse.Namespace, store: RedisEventStore, rng: random.Random
) -> dict[str, Any]:
    """Per-command latency on a game at version ~400 vs one at ~10, alternating commands."""
    service = GameService(store, Lobby(store))
    low: list[float] = []
    high: list[float] = []
    cold: list[float] = []
    warm: list[float] = []
    old = None
    for _ in range(args.cost_pairs):
        old = await new_table(service, rng)
        while old.state.version < 390:
            result = await service.play(old.game_id, old.choose(), command_id=old.command_id())
            old.absorb(result.stored)
        young = await new_table(service, rng)
        versions = (young.state.version, old.state.version)
        while old.state.version < 430 and young.state.version < 50:
            for table, bucket in ((old, high), (young, low)):
                command, command_id = table.choose(), table.command_id()
                started = time.perf_counter()
                result = await service.play(table.game_id, command, command_id=command_id)
                bucket.append(time.perf_counter() - started)
                table.absorb(result.stored)
        # What a replay of the whole log would cost: a service with an empty cache.
        fresh = GameService(store, Lobby(store))
        command, command_id = old.choose(), old.command_id()
        started = time.perf_counter()
        result = await fresh.play(old.game_id, command, command_id=command_id)
        cold.append(time.perf_counter() - started)
        old.absorb(result.stored)
        command, command_id = old.choose(), old.command_id()
        started = time.perf_counter()
        result = await fresh.play(old.game_id, command, command_id=command_id)
        warm.append(time.perf_counter() - started)
        old.absorb(result.stored)
    return {
        "cost_ratio_v400_v10": round(median(high) / median(low), 3),
        "detail": {
            "pairs": args.cost_pairs,
            "start_versions_of_last_pair": versions,
            "samples": [len(low), len(high)],
            "v10_p50_ms": ms(median(low)),
            "v400_p50_ms": ms(median(high)),
            "mean_ratio": round((sum(high) / len(high)) / (sum(low) / len(low)), 3),
            "cold_load_ms_v400": ms(median(cold)),
            "warm_after_load_ms_v400": ms(median(warm)),
            "final_version": old.state.version if old else 0,
        },
    }


async def client_names(admin: Redis) -> Counter[str]:
    clients: list[dict[str, Any]] = await admin.client_list(_type="normal")
    return Counter(str(c.get("name") or "-") for c in clients)


async def connections_with_subscribers(
    url: str, service: GameService, admin: Redis, rng: random.Random, subscribers: int, games: int
) -> dict[str, Any]:
    """Redis connections of a fresh store whose hub serves ``subscribers`` on ``games``."""
    tables = list(await asyncio.gather(*(new_table(service, rng) for _ in range(games))))
    baseline = await client_names(admin)
    store = connect_store(url)
    received: list[float] = []
    goal: dict[str, int] = {}
    goal_reached: dict[str, asyncio.Event] = {t.game_id: asyncio.Event() for t in tables}
    appended_at: dict[str, float] = {}
    pending = subscribers
    subscribed = 0
    all_subscribed = asyncio.Event()

    async def consume(table: Table, after: int) -> None:
        nonlocal pending, subscribed
        async with store.subscribe(table.game_id, after) as sub:
            subscribed += 1
            if subscribed == subscribers:
                all_subscribed.set()
            async for event in sub:
                goal_reached_event = goal_reached[table.game_id]
                await goal_reached_event.wait()
                if event.version >= goal[table.game_id]:
                    received.append(time.perf_counter() - appended_at[table.game_id])
                    pending -= 1
                    if pending == 0:
                        all_done.set()
                    return

    all_done = asyncio.Event()
    consumers = [
        asyncio.create_task(consume(tables[i % games], tables[i % games].state.version))
        for i in range(subscribers)
    ]
    try:
        await asyncio.wait_for(all_subscribed.wait(), 30)
        await asyncio.sleep(0.5)  # let every subscription finish its catch-up read
        stats = store.hub.stats()

        async def append_one(table: Table) -> None:
            result = await service.play(
                table.game_id, table.choose(), command_id=table.command_id()
            )
            appended_at[table.game_id] = time.perf_counter()
            table.absorb(result.stored)
            goal[table.game_id] = result.first_version
            goal_reached[table.game_id].set()

        await asyncio.gather(*(append_one(t) for t in tables))
        await asyncio.wait_for(all_done.wait(), 30)
        during = await client_names(admin)
    finally:
        for task in consumers:
            task.cancel()
        await asyncio.gather(*consumers, return_exceptions=True)
        await store.aclose()
    extra = during - baseline
    return {
        "redis_connections": sum(extra.values()),
        "detail": {
            "subscribers": subscribers,
            "games": games,
            "by_client_name": dict(extra),
            "hub": stats,
            "delivered": len(received),
            **latency_summary(received, "delivery_"),
        },
    }


@dataclass(slots=True)
class FollowedSide:
    """A store whose hub follows ``idle`` quiet games and the one game being played."""

    idle: int
    store: RedisEventStore
    service: GameService
    table: Table
    follower: asyncio.Task[None] | None = None
    waiting: list[asyncio.Task[Any]] = field(default_factory=list)
    server_s: list[float] = field(default_factory=list)
    redis_s: list[float] = field(default_factory=list)

    def follow(self) -> None:
        """A subscriber on the played game that takes every event (its delivery is counted)."""
        if self.follower is not None:
            self.follower.cancel()
        game_id, after = self.table.game_id, self.table.state.version

        async def consume() -> None:
            async with self.store.subscribe(game_id, after) as sub:
                async for _ in sub:
                    pass

        self.follower = asyncio.create_task(consume())

    async def close(self) -> None:
        for task in [*self.waiting, self.follower]:
            if task is not None:
                task.cancel()
        await asyncio.gather(*self.waiting, return_exceptions=True)
        if self.follower is not None:
            await asyncio.gather(self.follower, return_exceptions=True)
        await self.store.aclose()


async def followed_side(url: str, idle: int, rng: random.Random) -> FollowedSide:
    """A fresh store with one caught-up subscriber on each of ``idle`` one-event games."""
    store = connect_store(url, name=f"bench-follow-{idle}")
    service = GameService(store, Lobby(store))
    side = FollowedSide(idle, store, service, await new_table(service, rng))
    run = uuid.uuid4().hex[:12]
    games = [f"idle-{run}-{i}" for i in range(idle)]
    gate = asyncio.Semaphore(POOL_SIZE)

    async def create(game: str) -> None:
        async with gate:
            await store.append(game, 0, [b"{}"])

    await asyncio.gather(*(create(game) for game in games))
    subs = [store.subscribe(game) for game in games]
    await asyncio.gather(*(anext(sub) for sub in subs))  # each caught up with its one event
    side.waiting = [asyncio.create_task(anext(sub)) for sub in subs]
    side.follow()
    async with asyncio.timeout(60):
        while True:
            stats = store.hub.stats()
            if stats["live"] == stats["games"] == idle + 1:
                break
            await asyncio.sleep(0.05)
    return side


def process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def redis_cpu(admin: Redis) -> float:
    info: dict[str, Any] = await admin.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


async def measure_followed(side: FollowedSide, admin: Redis, commands: int) -> None:
    """``commands`` plays on the side's game; CPU per command, of this process and of Redis."""
    await asyncio.sleep(0.2)  # let the previous side's deliveries settle
    game_before = side.table.game_id
    cpu, redis, overhead = process_cpu(), await redis_cpu(admin), OVERHEAD[0]
    side.table, _ = await play_commands(side.service, side.table, commands, [])
    await asyncio.sleep(0.05)  # the follower takes the last events
    server = process_cpu() - cpu - (OVERHEAD[0] - overhead)
    side.redis_s.append((await redis_cpu(admin) - redis) / commands)
    side.server_s.append(server / commands)
    if side.table.game_id != game_before:  # the game ended: follow its successor
        side.follow()


async def cost_with_followers(
    args: argparse.Namespace, url: str, admin: Redis, rng: random.Random
) -> dict[str, Any]:
    """Per-command CPU with ``--followers`` idle followed games over ``--few-followers``."""
    few = await followed_side(url, args.few_followers, rng)
    many = await followed_side(url, args.followers, rng)
    try:
        for side in (few, many):  # warm-up (caches, pools, code paths), not counted
            await measure_followed(side, admin, args.followed_commands // 4)
            side.server_s.clear()
            side.redis_s.clear()
        for round_no in range(args.followed_rounds):
            order = (few, many) if round_no % 2 == 0 else (many, few)
            for side in order:
                await measure_followed(side, admin, args.followed_commands)
            note(
                f"followers round {round_no}: "
                + ", ".join(
                    f"{s.idle}: {(s.server_s[-1] + s.redis_s[-1]) * 1e6:.0f} us/command"
                    for s in (few, many)
                )
            )
    finally:
        await few.close()
        await many.close()

    def totals(side: FollowedSide) -> list[float]:
        return [a + b for a, b in zip(side.server_s, side.redis_s, strict=True)]

    def paired(many_s: list[float], few_s: list[float]) -> float:
        return round(median([m / f for m, f in zip(many_s, few_s, strict=True)]), 3)

    def us(values: list[float]) -> float:
        return round(median(values) * 1e6, 1)

    return {
        f"cost_ratio_followed_{args.followers}_{args.few_followers}": paired(
            totals(many), totals(few)
        ),
        "detail": {
            "commands_per_round": args.followed_commands,
            "rounds": args.followed_rounds,
            **{
                f"{key}_{side.idle}": value
                for side in (few, many)
                for key, value in (
                    ("us_per_command", us(totals(side))),
                    ("server_us", us(side.server_s)),
                    ("redis_us", us(side.redis_s)),
                )
            },
            "server_ratio": paired(many.server_s, few.server_s),
            "redis_ratio": paired(many.redis_s, few.redis_s),
            "round_ratios": [
                round(m / f, 3) for m, f in zip(totals(many), totals(few), strict=True)
            ],
        },
    }


PHASES = ("throughput", "cost", "subscribers", "followers")


async def run_pass(args: argparse.Namespace, appendfsync: str) -> None:
    rng = random.Random(args.seed)
    phases = set(args.phases.split(","))
    async with redis_for_bench(appendfsync) as url:
        label = fsync_label(appendfsync)
        admin = Redis.from_url(url, single_connection_client=True)
        store = connect_store(url)
        service = GameService(store, Lobby(store))
        summary: dict[str, Any] = {"bench": "store", "appendfsync": label}
        details: list[dict[str, Any]] = []
        try:
            if "throughput" in phases:
                note(f"appendfsync={label}: throughput")
                result = await throughput(args, service, store, admin, rng)
                summary.update({k: v for k, v in result.items() if k != "detail"})
                summary.update(commands=args.commands, games=args.games, per_game=args.per_game)
                details.append({"bench": "store.throughput", **result["detail"]})
            if "cost" in phases:
                note(f"appendfsync={label}: cost by version")
                cost = await cost_by_version(args, store, rng)
                summary["cost_ratio_v400_v10"] = cost["cost_ratio_v400_v10"]
                details.append({"bench": "store.cost", **cost["detail"]})
            if "subscribers" in phases:
                note(f"appendfsync={label}: subscribers")
                small = await connections_with_subscribers(
                    url, service, admin, rng, args.subscribers // 10, args.sub_games // 10
                )
                subs = await connections_with_subscribers(
                    url, service, admin, rng, args.subscribers, args.sub_games
                )
                summary.update(
                    redis_connections=subs["redis_connections"],
                    subscribers=args.subscribers,
                    sub_games=args.sub_games,
                )
                details += [
                    {
                        "bench": "store.connections",
                        "redis_connections": conn["redis_connections"],
                        "pool_max_connections": POOL_SIZE,
                        **conn["detail"],
                    }
                    for conn in (small, subs)
                ]
            if "followers" in phases:
                note(f"appendfsync={label}: idle followers")
                followed = await cost_with_followers(args, url, admin, rng)
                summary.update({k: v for k, v in followed.items() if k != "detail"})
                details.append({"bench": "store.followers", **followed["detail"]})
        finally:
            await store.aclose()
            await admin.aclose()
        emit(summary)
        for detail in details:
            emit({**detail, "appendfsync": label})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=1000, help="per round, one game")
    parser.add_argument("--games", type=int, default=200, help="concurrent games")
    parser.add_argument("--per-game", type=int, default=40, help="commands per game per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cost-pairs", type=int, default=6)
    parser.add_argument("--subscribers", type=int, default=500)
    parser.add_argument("--sub-games", type=int, default=100)
    parser.add_argument("--followers", type=int, default=5000, help="idle followed games")
    parser.add_argument("--few-followers", type=int, default=10, help="the same, few")
    parser.add_argument("--followed-commands", type=int, default=500, help="per round, side")
    parser.add_argument("--followed-rounds", type=int, default=10)
    parser.add_argument(
        "--phases", default=",".join(PHASES), help=f"comma-separated, among {', '.join(PHASES)}"
    )
    parser.add_argument(
        "--appendfsync",
        default="always,everysec",
        help="comma-separated, one pass each on a fresh embedded Redis (ignored with REDIS_URL)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300, help="seconds per pass, at most")
    args = parser.parse_args()
    exit_on_sigterm()
    modes = ["external"] if os.environ.get("REDIS_URL") else args.appendfsync.split(",")
    for mode in modes:
        asyncio.run(asyncio.wait_for(run_pass(args, mode.strip()), timeout=args.timeout))


if __name__ == "__main__":
    main()
