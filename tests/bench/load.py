"""Load test: a closed-loop fleet of bot clients plays ``--games`` (500) games to the end over
HTTP + SSE, against 1 and then 3 ``allfours serve`` instances sharing one Redis.

Per run (one per ``--instances`` entry): a private embedded Redis (``REDIS_URL`` instead, if
set: loopback only), ``N`` ``allfours serve`` processes on distinct loopback ports with
``--workers`` each, ``ALLFOURS_RATE_LIMIT=0``, ``ALLFOURS_ACCESS_LOG=false``. Every client
connection goes to the next instance in turn, as a round-robin load balancer would place it.

Each game is created with four open seats (``bots: [null, null, null, null]``) and
``rules: {"target": --target}``; four clients take one seat each. A client has two
connections: a keep-alive one for its requests and its seat's SSE stream (``?after=0`` with its
token: 4 streams per game, 2,000 at 500 games). It folds its stream's events, redacted for its
seat, with ``domain.evolve`` (its own hand is in its ``Dealt``/``PackRun`` events), so it never
GETs the view: when the folded state says it is to act (and the state is at the end of an
append: see :func:`settled`) it POSTs a random move from ``domain.legal_actions`` (with
``expected_version`` and an ``Idempotency-Key``), then waits for its stream again. Games are
set up ``--ramp`` at a time (create, take the seats, open the streams); then all start at
once, so ``--games`` games are in play together.

One JSON object per run on stdout (progress on stderr):

- ``games_finished`` (saw ``SeedRevealed`` on all four streams, with the same final version)
  and ``games_unfinished`` at ``--deadline``;
- ``commands_per_s``: player commands / (last game finished - start of play; the setup is
  not counted); ``steady_commands_per_s``: the rate while at least 90 % of the games were in
  play (games end at different times: the tail runs with fewer);
- ``p50_ms``/``p99_ms``: player command POSTs, request written to response read;
- ``sse_p50_ms``/``sse_p99_ms``: frame read by the client minus the event's ``at`` (stamped by
  the server, truncated to the ms, just before the append), for events stored after the
  game's four streams were open (not the replayed history); ``sse_post_*``: from the return of
  the POST that stored the event instead (negative when the frame came first);
- ``errors`` (must be 0): non-2xx answers, transport or protocol failures, SSE gaps,
  duplicates, out-of-order ids, resyncs, and seats ending a game in different states;
- ``redis_bytes_per_game``: Redis ``used_memory`` after - before / games (finished games stay in
  Redis); ``redis_key_bytes_per_game``: ``MEMORY USAGE`` of a sample of games' keys;
- ``redis_bytes_per_event_byte``: after ``allfours expire`` and the TTLs, what the finished
  games hold in Redis (their keys, the lobby, the due-index) over their events' bytes (see
  :func:`memory_after_expiry`; split in ``detail.memory_after_expiry``);
- ``rss_bytes_per_game``: (peak - initial) sum of the server processes' ``VmRSS`` / games;
- ``cpu_cores``: CPU used (in cores; the machine has ``cores``) over the play and over the
  steady window (``cpu_cores_steady``) by the servers, Redis, this client, other processes (the
  machine may be shared: the busiest are named), interrupts, steal and idle, from /proc
  sampled every ``--sample`` s; ``cpu_ms_per_command``: the same per player command.

Run with ``uv run python tests/bench/load.py [--games 500 --instances 1,3 --target 14]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import math
import os
import random
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgspec
from _common import (
    DECODE_CREATED,
    DECODE_GRANTED,
    ROOT,
    Conn,
    HttpError,
    Server,
    command_body,
    emit,
    exit_on_sigterm,
    fsync_label,
    machine_cpu,
    ms,
    note,
    open_sse,
    percentile,
    proc_table,
    raise_fd_limit,
    redis_for_bench,
    rss_bytes,
    sse_batches,
)

from domain import (
    Begged,
    CardPlayed,
    Event,
    Revealed,
    SeedRevealed,
    State,
    TrickWon,
    TrumpSet,
    evolve,
    legal_actions,
)

SERVER_ENV = {"ALLFOURS_ACCESS_LOG": "false", "ALLFOURS_RATE_LIMIT": "0"}


class Accepted(msgspec.Struct):
    first_version: int
    version: int


DECODE_ACCEPTED = msgspec.json.Decoder(Accepted)
DECODE_EVENT = msgspec.json.Decoder(Event)


def settled(state: State, last: Event, seat: int) -> bool:
    """Whether ``last`` can be the last event of an append, i.e. a player is now to act.

    The service appends a command's events and their consequences (the trick won, the hand
    scored, the next deal and its kick, the game's end) at once, but a stream delivers them one
    by one, so a state folded half-way through such a batch may show a seat to act that is not
    (after the fourth card of a trick, after ``Stood`` before its ``TrumpSet``...). Acting then
    would be refused (409 ``version_conflict``, as every command carries ``expected_version``).
    These are the events after which the rules (``domain.decide``) stop and wait for a player.
    """
    if isinstance(last, Begged | TrumpSet):
        return True
    if isinstance(last, CardPlayed):
        return len(state.trick) < 4
    if isinstance(last, TrickWon):  # the hand goes on while cards are left (own hand: dealt)
        return state.tricks_played < state.dealt[seat].bit_count()
    if isinstance(last, Revealed):  # the first kick of a deal, unless it ended the game
        return state.phase == "begging" and max(state.scores) < state.rules.target
    return False


# --- what a run collects -------------------------------------------------------------------


@dataclass(slots=True)
class Tally:
    post_s: list[float] = field(default_factory=list)
    setup_s: list[float] = field(default_factory=list)
    sse_at_ms: list[float] = field(default_factory=list)
    sse_post_ms: list[float] = field(default_factory=list)
    commands: int = 0
    frames: int = 0
    reconnects: int = 0
    created: int = 0
    in_play: int = 0
    finished: int = 0
    finish_times: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def error(self, kind: str, detail: str) -> None:
        self.errors[kind] += 1
        if len(self.examples) < 10:
            self.examples.append(f"{kind}: {detail}"[:300])
            note(f"error {kind}: {detail[:300]}")


class Balancer:
    """Round-robin over the instances, per new connection (like a TCP load balancer)."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.next = 0

    def port(self) -> int:
        port = self.ports[self.next % len(self.ports)]
        self.next += 1
        return port


class GameFailed(Exception):
    pass


# --- one game, four clients ----------------------------------------------------------------


@dataclass(slots=True)
class Game:
    tally: Tally
    game_id: str = ""
    seated_version: int = 1 << 30
    """The version once all four seats were taken (the first deal included): events after it
    were stored while all four streams were open, so their delivery latency is measured."""
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    posted: dict[int, float] = field(default_factory=dict)
    """Version -> perf_counter when the POST that stored it returned."""


@dataclass(slots=True)
class SeatClient:
    game: Game
    seat: int
    conn: Conn
    sse_port: int
    rng: random.Random
    auth: bytes = b""
    state: State = field(default_factory=State)
    settled: bool = False
    """The folded state is at the end of an append (see :func:`settled`)."""
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    done: bool = False
    opened: asyncio.Event = field(default_factory=asyncio.Event)

    async def take_seat(self) -> int:
        tally = self.game.tally
        started = time.perf_counter()
        status, body = await self.conn.request(
            "POST",
            f"/v1/games/{self.game.game_id}/seats/{self.seat}",
            b'{"name":"p%d"}' % self.seat,
        )
        tally.setup_s.append(time.perf_counter() - started)
        if status != 201:
            tally.error("http_status", f"take seat {self.seat}: {status} {body[:200]!r}")
            raise GameFailed
        granted = DECODE_GRANTED.decode(body)
        self.auth = b"Authorization: Bearer %s\r\n" % granted.token.encode()
        return granted.version

    async def follow(self) -> None:
        """Read the seat's stream to the game's end, folding it; resume after a drop."""
        tally = self.game.tally
        game = self.game
        clock, wall = time.perf_counter, time.time
        while not self.done:
            reader, writer = await open_sse(
                self.sse_port,
                f"/v1/games/{game.game_id}/stream?after={self.state.version}",
                self.auth,
            )
            self.opened.set()
            try:
                async for frames in sse_batches(reader):
                    now, now_ms = clock(), wall() * 1000
                    state = self.state
                    event: Event | None = None
                    for frame in frames:
                        if not frame.startswith(b"id: "):
                            if frame.startswith(b"event: resync"):
                                tally.error("sse_resync", f"{game.game_id} seat {self.seat}")
                                raise GameFailed
                            continue  # retry:, comments (heartbeats)
                        newline = frame.index(b"\n")
                        version = int(frame[4:newline])
                        if version != state.version + 1:
                            kind = (
                                "sse_gap"
                                if version > state.version + 1
                                else "sse_duplicate"
                                if version == state.version
                                else "sse_out_of_order"
                            )
                            where = f"{game.game_id} seat {self.seat}"
                            tally.error(kind, f"{where}: {version} after {state.version}")
                            if kind == "sse_gap":
                                raise GameFailed
                            continue
                        event = DECODE_EVENT.decode(frame[frame.index(b"\ndata: ") + 7 :])
                        state = evolve(state, event)
                        tally.frames += 1
                        if version > game.seated_version:
                            tally.sse_at_ms.append(now_ms - event.at)
                            posted = game.posted.get(version)
                            if posted is not None:
                                tally.sse_post_ms.append((now - posted) * 1000)
                        if isinstance(event, SeedRevealed):
                            self.done = True
                    self.state = state
                    if event is not None:
                        self.settled = settled(state, event, self.seat)
                    self.changed.set()
                    if self.done:
                        return
            finally:
                writer.close()
            # The server ended the stream (it dropped a lagging subscriber, or shuts down):
            # resume right after the last event, as a browser's EventSource would.
            tally.reconnects += 1

    async def act(self) -> None:
        """The closed loop: wait for the stream to say it is this seat's turn, then move."""
        await self.game.ready.wait()
        acted = -1
        tally = self.game.tally
        path = f"/v1/games/{self.game.game_id}/seats/{self.seat}/commands"
        while not self.done:
            await self.changed.wait()
            self.changed.clear()
            state = self.state
            if state.version <= acted or state.to_act != self.seat or not self.settled:
                continue
            acted = state.version
            command = self.rng.choice(legal_actions(state, self.seat))
            headers = self.auth + b"Idempotency-Key: %s.%d.%d\r\n" % (
                self.game.game_id.encode(),
                self.seat,
                state.version,
            )
            started = time.perf_counter()
            status, body = await self.conn.request(
                "POST", path, command_body(command, state.version), headers
            )
            done = time.perf_counter()
            if status != 200:
                tally.error("http_status", f"command {command}: {status} {body[:200]!r}")
                raise GameFailed
            tally.post_s.append(done - started)
            tally.commands += 1
            accepted = DECODE_ACCEPTED.decode(body)
            for version in range(accepted.first_version, accepted.version + 1):
                self.game.posted.setdefault(version, done)

    async def play(self) -> None:
        follower = asyncio.create_task(self.follow())
        actor = asyncio.create_task(self.act())
        try:
            done, _ = await asyncio.wait({follower, actor}, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()  # raises what failed
            await follower
            self.changed.set()
            await actor
        finally:
            for task in (follower, actor):
                task.cancel()
            await asyncio.gather(follower, actor, return_exceptions=True)


@dataclass(slots=True)
class Start:
    """The fleet's start line: games are set up ``ramp`` at a time, then all play at once."""

    ramp: asyncio.Semaphore
    go: asyncio.Event = field(default_factory=asyncio.Event)


async def run_game(
    index: int,
    balancer: Balancer,
    tally: Tally,
    start: Start,
    seated: asyncio.Future[None],
    args: argparse.Namespace,
) -> None:
    """Set one game up (signalling ``seated``), wait for the start, play it to the end."""
    game = Game(tally)
    rng = random.Random(args.seed * 1_000_003 + index)
    seats = [
        SeatClient(game, seat, Conn(balancer.port()), balancer.port(), random.Random(rng.random()))
        for seat in range(4)
    ]
    plays: list[asyncio.Task[None]] = []
    try:
        async with start.ramp:
            started = time.perf_counter()
            status, body = await seats[0].conn.request("POST", "/v1/games/", args.create_body)
            tally.setup_s.append(time.perf_counter() - started)
            if status != 201:
                tally.error("http_status", f"create: {status} {body[:200]!r}")
                raise GameFailed
            game.game_id = DECODE_CREATED.decode(body).game_id
            tally.created += 1
            versions = await asyncio.gather(*(s.take_seat() for s in seats))
            game.seated_version = max(versions)
            plays = [asyncio.create_task(s.play()) for s in seats]
            # Set up once the four streams are open (or a seat failed meanwhile).
            opened = asyncio.ensure_future(asyncio.gather(*(s.opened.wait() for s in seats)))
            await asyncio.wait([opened, *plays], return_when=asyncio.FIRST_COMPLETED)
            opened.cancel()
            for task in plays:
                if task.done():
                    task.result()
        seated.set_result(None)
        await start.go.wait()
        game.ready.set()
        tally.in_play += 1
        try:
            await asyncio.gather(*plays)
        finally:
            tally.in_play -= 1
        final = {(s.state.version, s.state.scores, s.state.phase) for s in seats}
        if len(final) != 1 or seats[0].state.phase != "ended":
            tally.error("state_mismatch", f"{game.game_id}: {final}")
            return
        tally.finished += 1
        tally.finish_times.append(time.perf_counter())
    except GameFailed:
        pass  # counted where it happened
    except HttpError as exc:
        tally.error("http_status", f"{game.game_id}: {exc}")
    except Exception as exc:  # transport or protocol: a broken connection, a bad frame
        tally.error("protocol", f"{game.game_id}: {exc!r}")
    finally:
        if not seated.done():
            seated.set_result(None)  # failed during its setup: do not hold the start
        for task in plays:
            task.cancel()
        await asyncio.gather(*plays, return_exceptions=True)
        for seat in seats:
            seat.conn.close()


# --- measuring the machine -----------------------------------------------------------------


@dataclass(slots=True)
class Sample:
    t: float
    commands: int
    in_play: int
    cpu: dict[str, float]
    """Cumulative CPU seconds: ours (servers, redis, client) and /proc/stat's columns."""
    others: dict[int, tuple[str, float]]
    """Every other process: pid -> (program name, cumulative CPU seconds)."""
    rss: int


class Sampler:
    """Every ``period`` s: commands so far, games in play, CPU by group, the servers' RSS."""

    def __init__(self, servers: list[Server], redis_pid: int | None, tally: Tally) -> None:
        self.servers = servers
        self.redis_pid = redis_pid
        self.tally = tally
        self.samples: list[Sample] = []
        self.baseline_rss = 0

    def take(self) -> Sample:
        table = proc_table()
        servers: set[int] = set()
        for server in self.servers:  # their process trees, less an embedded Redis (if any)
            servers |= {p for p in server.pids(table) if "redis" not in table.get(p, (0, "", 0))[1]}
        redis = {self.redis_pid} if self.redis_pid in table else set()
        client = {os.getpid()}

        def cpu_of(pids: set[int]) -> float:
            return sum(table[p][2] for p in pids if p in table)

        others = {
            pid: (name, cpu)
            for pid, (_, name, cpu) in table.items()
            if pid not in servers and pid not in redis and pid not in client
        }
        cpu = {
            "servers": cpu_of(servers),
            "redis": cpu_of(redis) if redis else math.nan,
            "client": cpu_of(client),
            **machine_cpu(),
        }
        rss = rss_bytes(servers)
        sample = Sample(
            time.perf_counter(), self.tally.commands, self.tally.in_play, cpu, others, rss
        )
        self.samples.append(sample)
        return sample

    async def run(self, period: float) -> None:
        while True:
            await asyncio.sleep(period)
            self.take()


def cpu_between(a: Sample, b: Sample) -> dict[str, Any]:
    """Cores used between two samples: by the servers, Redis, this client, other processes
    (and the busiest of them), interrupts (loopback networking is mostly softirq), steal, idle.
    They add up to the machine's cores."""
    wall = b.t - a.t

    def cores(key: str) -> float:
        return (b.cpu[key] - a.cpu[key]) / wall

    ours = cores("servers") + (0.0 if math.isnan(cores("redis")) else cores("redis"))
    ours += cores("client")
    processes = cores("user") + cores("nice") + cores("system")
    by_name: dict[str, float] = {}
    for pid, (name, cpu) in b.others.items():  # by pid: a kernel thread's name changes
        name = name.split("-", 1)[0] if name.startswith("kworker") else name
        by_name[name] = by_name.get(name, 0.0) + (cpu - a.others.get(pid, ("", 0.0))[1]) / wall
    busiest = sorted(by_name.items(), key=lambda item: -item[1])[:3]
    figures = {
        "servers": cores("servers"),
        "redis": cores("redis"),
        "client": cores("client"),
        "other_processes": processes - ours,
        "irq": cores("irq") + cores("softirq"),
        "steal": cores("steal"),
        "idle": cores("idle") + cores("iowait"),
    }
    result: dict[str, Any] = {k: round(v, 2) for k, v in figures.items()}
    result["busiest_others"] = {n: round(c, 2) for n, c in busiest if c >= 0.01}
    return result


def cpu_per_command(a: Sample, b: Sample) -> dict[str, float] | None:
    """CPU milliseconds per player command between two samples, by group."""
    commands = b.commands - a.commands
    if not commands:
        return None
    return {
        k: round((b.cpu[k] - a.cpu[k]) * 1000 / commands, 3) for k in ("servers", "redis", "client")
    }


def steady_window(samples: list[Sample], games: int) -> tuple[Sample, Sample] | None:
    """First and last sample while at least 90 % of the games were in play."""
    busy = [s for s in samples if s.in_play >= 0.9 * games]
    return (busy[0], busy[-1]) if len(busy) >= 2 else None


# --- Redis figures ------------------------------------------------------------------------


async def redis_info(client: Any, section: str) -> dict[str, Any]:
    info: dict[str, Any] = await client.info(section)
    return info


async def key_bytes_per_game(client: Any, game_ids: list[str]) -> float | None:
    """Average ``MEMORY USAGE`` (every element counted) of a game's keys, over a sample."""
    from server.store.keys import cmds_key, events_key, seats_key, secret_key

    if not game_ids:
        return None
    totals = []
    for game_id in game_ids:
        total = 0
        for key in (events_key, cmds_key, seats_key, secret_key):
            used = await client.memory_usage(key(game_id), samples=0)
            total += used or 0
        totals.append(total)
    return sum(totals) / len(totals)


async def memory_after_expiry(
    client: Any, redis_url: str, mem_before: int, games: int
) -> dict[str, Any]:
    """Redis bytes per finished game once the idempotency records are gone, over its events'.

    Runs the operator's ``allfours expire --older-than 0 --ttl 1`` on the store, waits for the
    TTLs to pass and reads every game key (so Redis drops an expired one now, not at its
    leisure), then compares ``MEMORY USAGE`` (every element counted) of what the games hold
    (their own keys, the lobby's keys and the due-index) with the bytes of their events (the
    ``e`` field of each stream entry, summed): ``redis_bytes_per_event_byte``. The detail splits
    a game's keys by kind, counts the command digests that ride on the streams (part of the log's
    entries, not events) and gives ``used_memory``'s growth since before the run too (which
    also holds fixed costs: buffers, the script cache, the allocator's slack).
    """
    env = {**os.environ, "REDIS_URL": redis_url, "ALLFOURS_LOG_LEVEL": "warning"}
    command = [sys.executable, "-m", "server.cli", "expire", "--older-than", "0", "--ttl", "1"]
    done = await asyncio.to_thread(
        subprocess.run, command, cwd=ROOT, env=env, capture_output=True, check=True
    )
    expired = msgspec.json.decode(done.stdout)
    await asyncio.sleep(1.5)
    ids = [
        k.decode().split("{", 1)[1].split("}", 1)[0]
        async for k in client.scan_iter(match="allfours:{*}:events", count=1000)
    ]
    by_kind: Counter[str] = Counter()
    event_bytes = command_bytes = entries = 0
    for game_id in ids:
        keys = [k async for k in client.scan_iter(match=f"allfours:{{{game_id}}}:*", count=100)]
        for key in keys:  # an expired key read is deleted now; one still there is measured
            used = await client.memory_usage(key, samples=0)
            if used is not None:
                by_kind[key.decode().rsplit(":", 1)[1]] += used
        for _, fields in await client.xrange(f"allfours:{{{game_id}}}:events"):
            event_bytes += len(fields[b"e"])
            command_bytes += len(fields.get(b"c", b""))
            entries += 1
    lobby = 0
    async for key in client.scan_iter(match="allfours:{lobby}:*", count=100):
        lobby += await client.memory_usage(key, samples=0) or 0
    due = await client.memory_usage("allfours:due", samples=0) or 0
    mem_after = int((await redis_info(client, "memory"))["used_memory"])
    n = max(len(ids), 1)
    owned = sum(by_kind.values()) + lobby + due
    return {
        "redis_bytes_per_event_byte": round(owned / max(event_bytes, 1), 3),
        "memory_after_expiry": {
            "games": len(ids),
            "games_expired": len(expired["expiring"]),
            "event_bytes_per_game": round(event_bytes / n),
            "command_id_bytes_per_game": round(command_bytes / n),
            "events_per_game": round(entries / n, 1),
            "redis_bytes_per_game": round(owned / n),
            "key_bytes_per_game": {kind: round(b / n) for kind, b in sorted(by_kind.items())},
            "stream_over_event_bytes": round(by_kind["events"] / max(event_bytes, 1), 3),
            "lobby_bytes_per_game": round(lobby / n),
            "due_index_bytes": due,
            "used_memory_growth_per_game": round((mem_after - mem_before) / max(games, 1)),
            "used_memory_growth_over_event_bytes": round(
                (mem_after - mem_before) / max(event_bytes, 1), 3
            ),
        },
    }


# --- one run ---------------------------------------------------------------------------------


async def run_fleet(args: argparse.Namespace, instances: int, redis_url: str) -> dict[str, Any]:
    import redis.asyncio as aioredis

    servers = [
        Server(args.workers, args.appendfsync, redis_url=redis_url, env=SERVER_ENV)
        for _ in range(instances)
    ]
    rclient = aioredis.Redis.from_url(redis_url)
    tally = Tally()
    try:
        note(
            f"{instances} instance(s) x {args.workers} worker(s) on ports "
            f"{[s.port for s in servers]}, Redis {redis_url}"
        )
        await asyncio.gather(*(s.start() for s in servers))
        redis_pid = int((await redis_info(rclient, "server"))["process_id"])
        mem_before = int((await redis_info(rclient, "memory"))["used_memory"])
        sampler = Sampler(servers, redis_pid, tally)  # an external Redis may be unseen: NaN
        sampler.baseline_rss = sampler.take().rss
        balancer = Balancer([s.port for s in servers])
        start = Start(asyncio.Semaphore(args.ramp))
        gc.collect()
        gc.freeze()
        gc.disable()  # the client's GC pauses are not what is measured
        setup_started = time.perf_counter()
        sampling = asyncio.create_task(sampler.run(args.sample))
        loop = asyncio.get_running_loop()
        seated = [loop.create_future() for _ in range(args.games)]
        tasks = [
            asyncio.create_task(run_game(i, balancer, tally, start, seated[i], args))
            for i in range(args.games)
        ]
        progress = asyncio.create_task(report_progress(tally, args.games, setup_started))
        await asyncio.wait(seated, timeout=args.deadline)
        setup_s = time.perf_counter() - setup_started
        note(f"{tally.created} games set up, 4 streams each, in {setup_s:.1f}s: go")
        first = sampler.take()  # the play phase starts here
        start.go.set()
        started = first.t
        _, pending = await asyncio.wait(tasks, timeout=args.deadline)
        ended = time.perf_counter()
        last = sampler.take()
        for task in (*pending, progress, sampling):
            task.cancel()
        await asyncio.gather(*tasks, progress, sampling, return_exceptions=True)
        gc.enable()
        unfinished = args.games - tally.finished
        if pending:
            note(f"deadline: {len(pending)} game(s) still running were stopped")
        end = max(tally.finish_times) if not pending and tally.finish_times else ended
        play_s = end - started
        await asyncio.sleep(0.5)  # streams closed: let Redis drop their buffers
        mem_after = int((await redis_info(rclient, "memory"))["used_memory"])
        games = max(tally.created, 1)
        sample_ids = [
            k.decode().split("{", 1)[1].split("}", 1)[0]
            async for k in rclient.scan_iter(match="allfours:{*}:events", count=1000)
        ][:50]
        key_bytes = await key_bytes_per_game(rclient, sample_ids)
        memory = await memory_after_expiry(rclient, redis_url, mem_before, games)
        peak_rss = max(s.rss for s in sampler.samples)
        play_samples = [s for s in sampler.samples if s.t >= started]
        steady = steady_window(play_samples, args.games)
        timeline = play_samples[:: max(1, len(play_samples) // 30)]
        if timeline[-1] is not play_samples[-1]:
            timeline.append(play_samples[-1])
        errors = sum(tally.errors.values())
        result: dict[str, Any] = {
            "bench": "load",
            "instances": instances,
            "workers": args.workers,
            "games": args.games,
            "games_finished": tally.finished,
            "games_unfinished": unfinished,
            "commands": tally.commands,
            "commands_per_s": round(tally.commands / play_s, 1),
            "steady_commands_per_s": (
                round((steady[1].commands - steady[0].commands) / (steady[1].t - steady[0].t), 1)
                if steady
                else None
            ),
            "p50_ms": ms(percentile(tally.post_s, 0.50)),
            "p99_ms": ms(percentile(tally.post_s, 0.99)),
            "sse_p50_ms": round(percentile(tally.sse_at_ms, 0.50), 1),
            "sse_p99_ms": round(percentile(tally.sse_at_ms, 0.99), 1),
            "errors": errors,
            "redis_bytes_per_game": round((mem_after - mem_before) / games),
            "rss_bytes_per_game": round((peak_rss - sampler.baseline_rss) / games),
            "redis_bytes_per_event_byte": memory["redis_bytes_per_event_byte"],
            "wall_s": round(play_s, 1),
            "rules": {"target": args.target},
            "streams": f"one SSE stream per seat: 4 per game, {4 * args.games}",
            "appendfsync": fsync_label(args.appendfsync),
            "cores": os.cpu_count(),
            "cpu_cores": cpu_between(first, last),
            "cpu_cores_steady": cpu_between(*steady) if steady else None,
            "cpu_ms_per_command": cpu_per_command(first, last),
            "detail": {
                "errors_by_kind": dict(tally.errors),
                "error_examples": tally.examples,
                "max_ms": ms(max(tally.post_s)) if tally.post_s else None,
                "setup_p50_ms": ms(percentile(tally.setup_s, 0.50)),
                "setup_p99_ms": ms(percentile(tally.setup_s, 0.99)),
                "sse_max_ms": round(max(tally.sse_at_ms), 1) if tally.sse_at_ms else None,
                "sse_post_p50_ms": round(percentile(tally.sse_post_ms, 0.50), 2),
                "sse_post_p99_ms": round(percentile(tally.sse_post_ms, 0.99), 2),
                "sse_frames": tally.frames,
                "sse_latency_samples": len(tally.sse_at_ms),
                "sse_reconnects": tally.reconnects,
                "steady_window_s": round(steady[1].t - steady[0].t, 1) if steady else None,
                "setup_s": round(setup_s, 1),
                "ramp": args.ramp,
                "games_created": tally.created,
                "redis_used_memory_before": mem_before,
                "redis_used_memory_after": mem_after,
                "redis_key_bytes_per_game": round(key_bytes) if key_bytes is not None else None,
                "memory_after_expiry": memory["memory_after_expiry"],
                "server_rss_before": sampler.baseline_rss,
                "server_rss_peak": peak_rss,
                "server_rss_end": last.rss,
                "loadavg_1m_end": round(os.getloadavg()[0], 2),
                "timeline": [  # [s since the start, commands so far, games in play]
                    [round(s.t - started, 1), s.commands, s.in_play] for s in timeline
                ],
            },
        }
        return result
    finally:
        gc.enable()
        await rclient.aclose()
        await asyncio.gather(*(asyncio.to_thread(s.stop) for s in servers))


async def report_progress(tally: Tally, games: int, started: float) -> None:
    while True:
        await asyncio.sleep(15)
        note(
            f"{time.perf_counter() - started:.0f}s: {tally.commands} commands, "
            f"{tally.in_play} in play, {tally.finished}/{games} finished, "
            f"{sum(tally.errors.values())} errors"
        )


async def run(args: argparse.Namespace) -> None:
    for _ in range(args.repeat):
        for instances in args.instances:
            async with redis_for_bench(args.appendfsync) as redis_url:
                result = await asyncio.wait_for(
                    run_fleet(args, instances, redis_url), 2 * args.deadline + 180
                )
            emit(result)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="concurrent games")
    parser.add_argument(
        "--instances",
        type=lambda text: [int(x) for x in text.split(",")],
        default=[1, 3],
        help="comma-separated instance counts, one run each (default 1,3)",
    )
    parser.add_argument("--workers", type=int, default=1, help="worker processes per instance")
    parser.add_argument("--target", type=int, default=14, help="the rules' target (1..99)")
    parser.add_argument(
        "--deadline", type=float, default=300.0, help="seconds of play (and of setup) per run"
    )
    parser.add_argument(
        "--ramp", type=int, default=50, help="games being set up at once (then all start)"
    )
    parser.add_argument("--sample", type=float, default=1.0, help="seconds between samples")
    parser.add_argument("--appendfsync", default="always", choices=["always", "everysec", "no"])
    parser.add_argument("--repeat", type=int, default=1, help="run the instance list again")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.create_body = msgspec.json.encode(
        {"rules": {"target": args.target}, "bots": [None, None, None, None]}
    )
    raise_fd_limit(args.games * 8 + 1024)
    exit_on_sigterm()
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run
    with contextlib.suppress(KeyboardInterrupt):
        runner(run(args))


if __name__ == "__main__":
    main()
