"""HTTP benchmark: plays over HTTP beside a trivial endpoint, and SSE delivery at scale.

Starts a real ``allfours serve`` (a subprocess on a free loopback port: its embedded Redis, or
``REDIS_URL``; ``ALLFOURS_RATE_LIMIT=0``; ``--workers``) and measures, in the same run:

- ``plays_per_s``, ``p50_ms``, ``p99_ms``: player commands (``POST .../seats/{n}/commands``)
  across ``--games`` (100) games at once, one keep-alive connection per game, each game's four
  seats taken by the bench with ``POST .../seats/{n}``. The client keeps every game's state
  itself by folding the events each command response returns (``domain.evolve``) and picks a
  random move from ``domain.legal_actions``; the only extra requests are one seat view per
  other seat after a deal (its hand is not in the acting seat's redacted events), counted as
  ``view_gets`` and left out of the latencies.
- ``trivial_per_s``: ``GET /livez`` at the same concurrency on the same server.
  ``ratio`` = plays_per_s / trivial_per_s.
- ``one_round_trip_per_s``: ``GET /readyz`` likewise: the same app's routing and response
  around one Redis round trip (a PING over the store's own connection, the one a play's
  append takes) and nothing else.
  ``ratio_to_round_trip`` = plays_per_s / one_round_trip_per_s. The three phases take turns
  (``--rounds``, 6, order rotated each round); rates and ratios are medians of the rounds' (six
  rounds: on a shared machine one round in three or four can be 0.05 off the others).
- ``server_cpu_us_<kind>``: the server's CPU (its Python and Redis processes) per request of
  each phase, and ``cpu_ratio`` / ``cpu_ratio_to_round_trip`` = a ``/livez`` / ``/readyz``
  request's CPU over a play's: the ratios as they would be with the server CPU-bound, which
  hold better than rates on a shared machine (where the server gets what the others leave).
- ``sse_p50_ms``, ``sse_p99_ms``: for each count of ``--subscribers`` (1,000 then 5,000), that
  many SSE streams (spectators) spread over ``--sse-games`` (25) games while those games are
  played at ``--sse-rate`` commands/s in all (default 25, then 100 on the same streams:
  ``sse_by_rate_<count>`` has both; ``sse_p50_ms_<count>``/``sse_p99_ms_<count>`` the first;
  the plain names are the first count's). Latency = time the frame is read by the client minus
  the event's ``at`` (the server stamps it just before the append, in whole ms), so it covers
  append, hub read, fan-out and the socket. ``sse_post_*`` is measured from the moment the
  appending POST returned instead. Every stream is checked for gaps, duplicates and order.
- ``sse_last_of_<n>_ms``: ``--fanout`` (10,000) streams on one game; ``--fanout-commands``
  commands one after another: for each, the age (from ``at``) of its first event when the last
  stream read it; the median (every command's on the ``http.fanout`` line).

All bench traffic comes from one address: the server is started with the per-address limits
lifted (``_common.BENCH_LIMITS``), the rate limiter off (``--rate-limit N`` turns it on, at a
limit of N writes per client per window, so that each write pays its count as in production)
and the open-file limit raised.

The client is raw asyncio HTTP/1.1 on uvloop (httpx would cost more CPU than the server);
client and server CPU shares are reported so a saturated client shows. Run with
``uv run python tests/bench/http.py [--workers 1 --duration 8 --subscribers 1000,5000]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

# This script is named like the standard library's ``http`` package. Python puts the script's
# folder first on the import path, where ``import http`` (by any library) would find this file:
# move the folder to the end, after the standard library, so ``_common`` is still found.
# ruff: noqa: E402
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE] + [str(_HERE)]

import argparse
import asyncio
import gc
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from _common import (
    DECODE_CREATED,
    DECODE_GRANTED,
    HOST,
    Conn,
    CpuMeter,
    HttpError,
    Server,
    command_body,
    emit,
    exit_on_sigterm,
    latency_summary,
    median,
    note,
    open_sse,
    percentile,
    raise_fd_limit,
    sse_batches,
)

from domain import Dealt, Event, PackRun, State, evolve, legal_actions
from domain import cards as C

# --- games played over HTTP ----------------------------------------------------------------


class Envelope(msgspec.Struct):
    version: int
    event: Event


class Accepted(msgspec.Struct):
    first_version: int
    version: int
    events: list[Envelope]


class Page(msgspec.Struct):
    events: list[Envelope]
    next_after: int


class SeatViewLite(msgspec.Struct):
    version: int
    hand: list[str] | None
    to_act: int | None


DECODE_ACCEPTED = msgspec.json.Decoder(Accepted)
DECODE_PAGE = msgspec.json.Decoder(Page)
DECODE_VIEW = msgspec.json.Decoder(SeatViewLite)

CREATE_BODY = msgspec.json.encode(
    {"rules": {"target": 99, "turn_seconds": None}, "bots": [None, None, None, None]}
)
"""Long games (about 1,200 commands): none ends during a run; no turn clock, so a game left
waiting while the other phases run is not played by the server meanwhile."""


@dataclass(slots=True)
class Stats:
    latencies: list[float] = field(default_factory=list)
    commands: int = 0
    view_gets: int = 0
    errors: int = 0
    resyncs: int = 0


@dataclass(slots=True)
class HttpGame:
    """A game whose four seats the bench holds, with its state folded client-side."""

    conn: Conn
    rng: random.Random
    game_id: str = ""
    auth: list[bytes] = field(default_factory=list)
    state: State = field(default_factory=State)
    sent: int = 0
    posted: dict[int, float] = field(default_factory=dict)
    """Version -> perf_counter when the POST that stored it returned (SSE phase only)."""
    record_posts: bool = False

    async def create(self) -> None:
        status, body = await self.conn.request("POST", "/v1/games/", CREATE_BODY)
        if status != 201:
            raise HttpError(f"create: {status} {body[:200]!r}")
        self.game_id = DECODE_CREATED.decode(body).game_id
        for seat in range(4):
            status, body = await self.conn.request(
                "POST", f"/v1/games/{self.game_id}/seats/{seat}", b'{"name":"p%d"}' % seat
            )
            if status != 201:
                raise HttpError(f"take seat: {status} {body[:200]!r}")
            token = DECODE_GRANTED.decode(body).token
            self.auth.append(b"Authorization: Bearer %s\r\n" % token.encode())
        await self.resync(Stats())

    async def resync(self, stats: Stats) -> None:
        """Rebuild the state from the (spectator's) log, then the hands from the seats' views."""
        state = State()
        after = 0
        while True:
            status, body = await self.conn.request(
                "GET", f"/v1/games/{self.game_id}/events?after={after}&limit=1000"
            )
            if status != 200:
                raise HttpError(f"events: {status} {body[:200]!r}")
            page = DECODE_PAGE.decode(body)
            for envelope in page.events:
                state = evolve(state, envelope.event)
            if not page.events:
                break
            after = page.next_after
        self.state = state
        await self.fetch_hands(range(4), stats)

    async def fetch_hands(self, seats: Sequence[int], stats: Stats) -> bool:
        """Fill in the hands a redacted deal left blank. False if the game moved meanwhile."""
        hands = list(self.state.hands)
        for seat in seats:
            status, body = await self.conn.request(
                "GET", f"/v1/games/{self.game_id}", headers=self.auth[seat]
            )
            stats.view_gets += 1
            if status != 200:
                raise HttpError(f"view: {status} {body[:200]!r}")
            seen = DECODE_VIEW.decode(body)
            if seen.version != self.state.version:
                return False
            hands[seat] = C.cardset(C.parse(c) for c in seen.hand or ())
        self.state = self.state.replace(hands=(hands[0], hands[1], hands[2], hands[3]))
        return True

    async def play_one(self, stats: Stats) -> None:
        state = self.state
        seat = state.to_act
        if seat is None:  # the game ended (not expected with target 99): start another
            self.auth.clear()
            await self.create()
            return
        command = self.rng.choice(legal_actions(state, seat))
        self.sent += 1
        headers = self.auth[seat] + b"Idempotency-Key: %s-%d\r\n" % (
            self.game_id.encode(),
            self.sent,
        )
        started = time.perf_counter()
        status, body = await self.conn.request(
            "POST",
            f"/v1/games/{self.game_id}/seats/{seat}/commands",
            command_body(command),
            headers,
        )
        done = time.perf_counter()
        if status != 200:
            stats.errors += 1
            note(f"command refused: {status} {body[:300]!r}")
            stats.resyncs += 1
            await self.resync(stats)
            return
        stats.latencies.append(done - started)
        stats.commands += 1
        accepted = DECODE_ACCEPTED.decode(body)
        dealt = False
        for envelope in accepted.events:
            state = evolve(state, envelope.event)
            if self.record_posts:
                self.posted[envelope.version] = done
            dealt = dealt or isinstance(envelope.event, Dealt | PackRun)
        self.state = state
        if state.version != accepted.version or (
            dealt and not await self.fetch_hands([s for s in range(4) if s != seat], stats)
        ):
            stats.resyncs += 1
            await self.resync(stats)


# --- phases --------------------------------------------------------------------------------


async def plays_phase(
    games: list[HttpGame], duration: float, rate: float | None = None
) -> tuple[float, Stats]:
    """Every game plays for ``duration`` s: as fast as the server answers, or at ``rate``
    commands/s in all (each game on a fixed schedule; one that falls behind sends at once)."""
    stats = Stats()
    deadline = time.perf_counter() + duration
    interval = 0.0 if rate is None else len(games) / rate

    async def drive(game: HttpGame) -> None:
        due = time.perf_counter() + random.random() * interval
        while time.perf_counter() < deadline:
            if interval:
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                due += interval
            await game.play_one(stats)

    started = time.perf_counter()
    await asyncio.gather(*(drive(g) for g in games))
    return stats.commands / (time.perf_counter() - started), stats


async def get_phase(conns: list[Conn], path: str, duration: float) -> tuple[float, list[float]]:
    """GET ``path`` in a loop on every connection for ``duration`` s: rate and latencies."""
    latencies: list[float] = []
    deadline = time.perf_counter() + duration

    async def drive(conn: Conn) -> None:
        clock = time.perf_counter
        while clock() < deadline:
            started = clock()
            status, _ = await conn.request("GET", path)
            latencies.append(clock() - started)
            if status != 200:
                raise HttpError(f"{path}: {status}")

    started = time.perf_counter()
    await asyncio.gather(*(drive(c) for c in conns))
    return len(latencies) / (time.perf_counter() - started), latencies


GET_PATHS = {"trivial": "/livez", "round_trip": "/readyz"}
"""The two reference endpoints: no work at all, and one Redis round trip (a PING)."""


async def plays_vs_trivial(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    rng = random.Random(args.seed)
    games = [HttpGame(Conn(server.port), random.Random(rng.random())) for _ in range(args.games)]
    setup = asyncio.Semaphore(20)

    async def create(game: HttpGame) -> None:
        async with setup:
            await game.create()

    await asyncio.gather(*(create(g) for g in games))
    trivial_conns = [Conn(server.port) for _ in range(args.games)]
    await asyncio.gather(*(c.open() for c in trivial_conns))
    kinds = ("plays", "trivial", "round_trip")
    rates: dict[str, list[float]] = {k: [] for k in kinds}
    ratios: list[float] = []
    rt_ratios: list[float] = []
    play_stats: list[Stats] = []
    get_latencies: dict[str, list[float]] = {"trivial": [], "round_trip": []}
    cpu: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
    cpu_us: dict[str, list[float]] = {k: [] for k in kinds}
    for round_no in range(args.rounds):
        # Rotate the order so that no kind always runs first (a drifting machine moves all).
        order = kinds[round_no % 3 :] + kinds[: round_no % 3]
        for kind in order:
            with CpuMeter(server) as meter:
                if kind == "plays":
                    per_s, stats = await plays_phase(games, args.duration)
                    play_stats.append(stats)
                else:
                    per_s, latencies = await get_phase(
                        trivial_conns, GET_PATHS[kind], args.duration
                    )
                    get_latencies[kind].extend(latencies)
            rates[kind].append(per_s)
            cpu[kind].append(meter.shares)
            server_share = sum(v for k, v in meter.shares.items() if k.startswith("server_"))
            cpu_us[kind].append(server_share / per_s * 1e6)
        ratios.append(rates["plays"][-1] / rates["trivial"][-1])
        rt_ratios.append(rates["plays"][-1] / rates["round_trip"][-1])
        note(
            f"round {round_no}: plays {rates['plays'][-1]:.0f}/s, "
            f"/livez {rates['trivial'][-1]:.0f}/s, /readyz {rates['round_trip'][-1]:.0f}/s; "
            f"cpu {cpu['plays'][-1]} {cpu['trivial'][-1]} {cpu['round_trip'][-1]}"
        )
    for conn in trivial_conns:
        conn.close()
    for game in games:
        game.conn.close()
    latencies = [x for s in play_stats for x in s.latencies]
    commands = sum(s.commands for s in play_stats)
    return {
        "plays_per_s": round(median(rates["plays"]), 1),
        "trivial_per_s": round(median(rates["trivial"]), 1),
        "ratio": round(median(ratios), 3),
        "one_round_trip_per_s": round(median(rates["round_trip"]), 1),
        "ratio_to_round_trip": round(median(rt_ratios), 3),
        **{f"server_cpu_us_{k}": round(median(cpu_us[k])) for k in kinds},
        "cpu_ratio": round(median(cpu_us["trivial"]) / median(cpu_us["plays"]), 3),
        "cpu_ratio_to_round_trip": round(median(cpu_us["round_trip"]) / median(cpu_us["plays"]), 3),
        **latency_summary(latencies),
        "detail": {
            "games": args.games,
            "rounds": args.rounds,
            "duration_s": args.duration,
            "plays_rounds_per_s": [round(r) for r in rates["plays"]],
            "trivial_rounds_per_s": [round(r) for r in rates["trivial"]],
            "round_trip_rounds_per_s": [round(r) for r in rates["round_trip"]],
            "ratio_rounds": [round(r, 3) for r in ratios],
            "ratio_to_round_trip_rounds": [round(r, 3) for r in rt_ratios],
            **latency_summary(get_latencies["trivial"], "trivial_"),
            **latency_summary(get_latencies["round_trip"], "round_trip_"),
            "commands": commands,
            "view_gets": sum(s.view_gets for s in play_stats),
            "view_gets_per_command": round(
                sum(s.view_gets for s in play_stats) / max(commands, 1), 3
            ),
            "errors": sum(s.errors for s in play_stats),
            "resyncs": sum(s.resyncs for s in play_stats),
            "cpu_plays": cpu["plays"],
            "cpu_trivial": cpu["trivial"],
            "cpu_round_trip": cpu["round_trip"],
        },
    }


@dataclass(slots=True)
class Subscriber:
    game: HttpGame
    start: int
    ids: list[int] = field(default_factory=list)
    at_latency_ms: list[float] = field(default_factory=list)
    received_at: list[float] = field(default_factory=list)
    ready: bool = False
    error: str | None = None


async def follow(port: int, sub: Subscriber, opened: asyncio.Event) -> None:
    """One SSE stream: parse frames, note when each event arrives and how old it is."""
    writer = None
    try:
        reader, writer = await open_sse(
            port, f"/v1/games/{sub.game.game_id}/stream?after={sub.start}"
        )
        sub.ready = True
        opened.set()
        clock = time.perf_counter
        wall = time.time
        async for frames in sse_batches(reader):
            now, now_ms = clock(), wall() * 1000
            for frame in frames:
                if not frame.startswith(b"id: "):
                    continue  # retry:, comments (heartbeats)
                newline = frame.index(b"\n")
                sub.ids.append(int(frame[4:newline]))
                at = frame.index(b'"at":') + 5
                sub.at_latency_ms.append(now_ms - int(frame[at : frame.index(b",", at)]))
                sub.received_at.append(now)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        sub.error = repr(exc)
        opened.set()
    finally:
        if writer is not None:
            writer.close()


async def open_streams(
    server: Server, args: argparse.Namespace, subs: list[Subscriber]
) -> tuple[list[asyncio.Task[None]], float, float | None]:
    """Open one SSE stream per subscriber (100 at a time); wait until the server has them
    all subscribed. The tasks, the seconds it took to open them, the server's gauge."""
    opening = asyncio.Semaphore(100)
    tasks: list[asyncio.Task[None]] = []

    async def open_one(sub: Subscriber) -> None:
        async with opening:
            gate = asyncio.Event()
            tasks.append(asyncio.create_task(follow(server.port, sub, gate)))
            await gate.wait()

    started = time.perf_counter()
    await asyncio.gather(*(open_one(s) for s in subs))
    open_s = time.perf_counter() - started
    failed = [s.error for s in subs if s.error]
    if failed:
        await close_streams(tasks)
        raise HttpError(f"{len(failed)} streams failed to open, e.g. {failed[0]}")
    # The server subscribes right after sending the stream's first bytes: give it a moment.
    registered = await wait_for_subscribers(server, args, len(subs))
    return tasks, open_s, registered


async def close_streams(tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def sse_phase(args: argparse.Namespace, server: Server, count: int) -> dict[str, Any]:
    """Open ``count`` streams, then play the games at each rate of ``--sse-rate`` in turn."""
    rng = random.Random(args.seed + count)
    games = [
        HttpGame(Conn(server.port), random.Random(rng.random()), record_posts=True)
        for _ in range(args.sse_games)
    ]
    await asyncio.gather(*(g.create() for g in games))
    subs = [Subscriber(games[i % len(games)], 0) for i in range(count)]
    for sub in subs:
        sub.start = sub.game.state.version
    tasks, open_s, registered = await open_streams(server, args, subs)
    results = []
    try:
        for sse_rate in args.sse_rate:
            result = await sse_load(args, server, games, subs, sse_rate)
            result["detail"].update(open_s=round(open_s, 2), subscribers_registered=registered)
            results.append(result)
            note(f"SSE at {sse_rate:g} commands/s: {result['detail']}")
    finally:
        await close_streams(tasks)
        for game in games:
            game.conn.close()
    return {
        **{k: v for k, v in results[0].items() if k != "detail"},
        "sse_by_rate": {
            f"{r['detail']['sse_rate']:g}": [r["sse_p50_ms"], r["sse_p99_ms"]] for r in results
        },
        "detail": [r["detail"] for r in results],
    }


async def fanout_phase(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    """``--fanout`` streams on one game; ``--fanout-commands`` commands, one at a time, each
    after every stream has the one before: how long until the last stream has the event."""
    game = HttpGame(Conn(server.port), random.Random(args.seed), record_posts=True)
    await game.create()
    subs = [Subscriber(game, game.state.version) for _ in range(args.fanout)]
    tasks, open_s, registered = await open_streams(server, args, subs)
    last_at_ms: list[float] = []
    last_post_ms: list[float] = []
    stats = Stats()
    try:
        with CpuMeter(server) as meter:
            for _ in range(args.fanout_commands):
                before = game.state.version
                await game.play_one(stats)
                version = game.state.version
                if version <= before:
                    raise HttpError("a fan-out command stored nothing")
                deadline = time.perf_counter() + 30
                while any((s.ids[-1] if s.ids else 0) < version for s in subs):
                    if time.perf_counter() > deadline:
                        raise HttpError("fan-out: some stream never got the event")
                    await asyncio.sleep(0.002)
                # The first event of the command: every stream reads it, then the rest.
                index = [s.ids.index(before + 1) for s in subs]
                last_post_ms.append(
                    max(s.received_at[i] for s, i in zip(subs, index, strict=True)) * 1000
                    - game.posted[before + 1] * 1000
                )
                last_at_ms.append(max(s.at_latency_ms[i] for s, i in zip(subs, index, strict=True)))
                await asyncio.sleep(0.2)
    finally:
        await close_streams(tasks)
        game.conn.close()
    return {
        "sse_last_of_n_ms": round(median(last_at_ms), 1),
        "detail": {
            "fanout": args.fanout,
            "commands": args.fanout_commands,
            "open_s": round(open_s, 2),
            "subscribers_registered": registered,
            "last_at_ms": [round(x, 1) for x in last_at_ms],
            "last_after_post_ms": [round(x, 1) for x in last_post_ms],
            "stream_errors": sum(1 for s in subs if s.error),
            **meter.shares,
        },
    }


async def sse_load(
    args: argparse.Namespace,
    server: Server,
    games: list[HttpGame],
    subs: list[Subscriber],
    sse_rate: float,
) -> dict[str, Any]:
    """Play ``games`` at ``sse_rate`` commands/s in all; measure delivery to ``subs``."""
    for sub in subs:
        sub.start = sub.ids[-1] if sub.ids else sub.start
        sub.ids.clear()
        sub.at_latency_ms.clear()
        sub.received_at.clear()
    first = {id(g): g.state.version for g in games}
    stats = Stats()
    interval = len(games) / sse_rate
    deadline = time.perf_counter() + args.sse_duration

    async def drive(game: HttpGame, offset: float) -> None:
        await asyncio.sleep(offset)
        next_at = time.perf_counter()
        while time.perf_counter() < deadline:
            await game.play_one(stats)
            next_at += interval
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))

    with CpuMeter(server) as meter:
        drive_started = time.perf_counter()
        await asyncio.gather(*(drive(g, interval * i / len(games)) for i, g in enumerate(games)))
        drive_s = time.perf_counter() - drive_started
        # Let the last events reach every stream.
        for _ in range(200):  # 10 s at most
            if all((s.ids[-1] if s.ids else s.start) >= s.game.state.version for s in subs):
                break
            await asyncio.sleep(0.05)

    at_latencies = [x for s in subs for x in s.at_latency_ms]
    post_latencies = [
        (t - s.game.posted[v]) * 1000
        for s in subs
        for v, t in zip(s.ids, s.received_at, strict=True)
        if v in s.game.posted
    ]
    missing = duplicates = disorder = 0
    for s in subs:
        expected = s.game.state.version - s.start
        missing += max(0, expected - len(set(s.ids)))
        duplicates += len(s.ids) - len(set(s.ids))
        disorder += sum(1 for a, b in zip(s.ids, s.ids[1:], strict=False) if b != a + 1)
    frames = len(at_latencies)
    return {
        "sse_p50_ms": round(percentile(at_latencies, 0.5), 1),
        "sse_p99_ms": round(percentile(at_latencies, 0.99), 1),
        "detail": {
            "sse_rate": sse_rate,
            "sse_games": len(games),
            "subscribers": len(subs),
            "sse_p50_ms": round(percentile(at_latencies, 0.5), 1),
            "sse_p99_ms": round(percentile(at_latencies, 0.99), 1),
            "sse_max_ms": round(max(at_latencies), 1) if at_latencies else None,
            "sse_post_p50_ms": round(percentile(post_latencies, 0.5), 2),
            "sse_post_p99_ms": round(percentile(post_latencies, 0.99), 2),
            "commands_per_s": round(stats.commands / drive_s, 1),
            "events": sum(g.state.version - first[id(g)] for g in games),
            "frames_delivered": frames,
            "frames_per_s": round(frames / drive_s, 1),
            "missing": missing,
            "duplicates": duplicates,
            "out_of_order": disorder,
            "stream_errors": sum(1 for s in subs if s.error),
            **latency_summary(stats.latencies, "command_"),
            "command_errors": stats.errors,
            **meter.shares,
        },
    }


async def metric(server: Server, name: bytes) -> float | None:
    conn = Conn(server.port)
    try:
        status, body = await conn.request("GET", "/metrics")
    finally:
        conn.close()
    if status != 200:
        return None
    for line in body.splitlines():
        if line.startswith(name + b" "):
            return float(line.split()[1])
    return None


async def wait_for_subscribers(
    server: Server, args: argparse.Namespace, count: int
) -> float | None:
    """With one worker, wait until its gauge shows ``count`` streams subscribed; else pause."""
    if args.workers != 1:
        await asyncio.sleep(2)
        return None
    deadline = time.monotonic() + 60
    value = None
    while time.monotonic() < deadline:
        value = await metric(server, b"allfours_sse_subscribers")
        if value is None or value >= count:
            break
        await asyncio.sleep(0.2)
    await asyncio.sleep(0.5)  # and their catch-up reads
    return value


async def run(args: argparse.Namespace) -> None:
    # The rate limiter is off unless asked for: a limit far above what the bench sends, so
    # that every write pays its count (one Lua script) and none is refused.
    limiter = {"ALLFOURS_RATE_LIMIT": str(args.rate_limit)} if args.rate_limit else {}
    server = Server(args.workers, args.appendfsync, env=limiter)
    label = "external" if os.environ.get("REDIS_URL") else args.appendfsync
    load_before = os.getloadavg()[0]
    try:
        note(f"starting allfours serve on {HOST}:{server.port}, {args.workers} worker(s)")
        await server.start()
        # The client is not what is measured: keep its own GC pauses out of the latencies.
        gc.collect()
        gc.freeze()
        gc.disable()
        note(f"plays vs /livez: {args.games} games, {args.rounds} x {args.duration}s each")
        plays = await plays_vs_trivial(args, server)
        sse: dict[int, dict[str, Any]] = {}
        for count in args.subscribers:
            note(f"SSE: {count} streams on {args.sse_games} games")
            sse[count] = await sse_phase(args, server, count)
        fanout: dict[str, Any] = {"detail": None}
        if args.fanout:
            note(f"SSE fan-out: {args.fanout} streams on one game")
            fanout = await fanout_phase(args, server)
    finally:
        gc.enable()
        await asyncio.to_thread(server.stop)
    emit(
        {
            "bench": "http",
            "workers": args.workers,
            "appendfsync": label,
            "rate_limit": args.rate_limit,
            **{k: v for k, v in plays.items() if k != "detail"},
            **sse_summary(sse),
            **(
                {f"sse_last_of_{args.fanout}_ms": fanout["sse_last_of_n_ms"]} if args.fanout else {}
            ),
            "games": args.games,
            "sse_games": args.sse_games,
            "sse_rate": args.sse_rate[0],
            "loadavg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        }
    )
    emit({"bench": "http.plays", "workers": args.workers, **plays["detail"]})
    for result in sse.values():
        for detail in result["detail"]:
            emit({"bench": "http.sse", "workers": args.workers, **detail})
    if fanout["detail"] is not None:
        emit({"bench": "http.fanout", "workers": args.workers, **fanout["detail"]})


def sse_summary(sse: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The summary line's SSE figures: the first subscriber count's under the plain names
    (``sse_p50_ms``...), every count's as ``sse_p50_ms_<count>``/``sse_p99_ms_<count>``."""
    out: dict[str, Any] = {}
    for number, (count, result) in enumerate(sse.items()):
        if number == 0:
            out.update({k: v for k, v in result.items() if k != "detail"})
            out["subscribers"] = count
        out[f"sse_p50_ms_{count}"] = result["sse_p50_ms"]
        out[f"sse_p99_ms_{count}"] = result["sse_p99_ms"]
        out[f"sse_by_rate_{count}"] = result["sse_by_rate"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1, help="server worker processes")
    parser.add_argument("--games", type=int, default=100, help="concurrent games (connections)")
    parser.add_argument("--duration", type=float, default=8.0, help="seconds per phase")
    parser.add_argument(
        "--rounds",
        type=int,
        default=6,
        help="rounds of plays, /livez and /readyz (order rotated: a multiple of 3)",
    )
    parser.add_argument(
        "--subscribers",
        type=lambda text: [int(x) for x in text.split(",") if int(x)],
        default=[1000, 5000],
        help="SSE streams over --sse-games games; comma-separated: one measurement each (0: skip)",
    )
    parser.add_argument(
        "--fanout", type=int, default=10_000, help="SSE streams on one game (0: skip)"
    )
    parser.add_argument("--fanout-commands", type=int, default=5)
    parser.add_argument("--sse-games", type=int, default=25)
    parser.add_argument(
        "--sse-rate",
        type=lambda text: [float(x) for x in text.split(",")],
        default=[25.0, 100.0],
        help="commands/s in all over the SSE games; comma-separated: one measurement each "
        "(the summary line's sse_p50_ms/sse_p99_ms are the first)",
    )
    parser.add_argument("--sse-duration", type=float, default=15.0)
    parser.add_argument("--appendfsync", default="always", choices=["always", "everysec", "no"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--rate-limit",
        type=int,
        default=0,
        help="ALLFOURS_RATE_LIMIT for the server (0: the limiter off, as by default here)",
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="give up after (seconds)")
    args = parser.parse_args()
    raise_fd_limit(max([*args.subscribers, args.fanout]) + args.games * 2 + 1024)
    exit_on_sigterm()
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run
    runner(asyncio.wait_for(run(args), args.timeout))


if __name__ == "__main__":
    main()
