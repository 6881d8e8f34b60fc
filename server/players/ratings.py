"""The rating projection: each finished rated game moves its four players' ratings once.

Ratings depend on the order games are rated in, so one instance at a time rates (a lease in
Redis), taking ended games from a queue in the order they were queued, and every game it
rates is appended to a log: a rebuild rates the logged games again in that order and gets
the same numbers. Each rating is one Lua script (all keys share the ``{ratings}`` hash tag:
one slot): it refuses a game already rated, and a stale read of a player's skill (their game
count moved meanwhile), so a rating is applied exactly once whatever crashes or races.

How games reach the queue: the instance that stores a rated game's end queues it at once;
every rated table is also watched from its creation, and the deadline sweeper looks over the
watched ones now and then, so an end whose queueing was lost in a crash is still rated.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence

import msgspec

from domain import Event
from server.clock import Clock, system_clock
from server.codec import decode_event
from server.lobby import Lobby
from server.players.rating_model import NEWCOMER, Skill, rate
from server.players.results import RatedResult, rated_result
from server.store import RedisEventStore
from server.store.redis_store import guarded

_log = logging.getLogger("allfours.ratings")


def _key(name: str) -> str:
    return f"allfours:{{ratings}}:{name}"


BOARD = _key("board")
"""Sorted set: player id -> shown rating (the leaderboard)."""
SKILLS = _key("skills")
"""Hash: player id -> ``{"mu", "sigma", "games", "wins"}`` (JSON)."""
COUNTS = _key("counts")
"""Hash: player id -> rated games (what a rating's stale-read check compares)."""
NAMES = _key("names")
"""Hash: player id -> name, so the leaderboard reads no player hashes."""
RATED = _key("rated")
"""Set: game ids rated."""
LOG = _key("log")
"""Stream: the game ids rated, in the order they were (what a rebuild replays)."""
QUEUE = _key("queue")
"""Sorted set: ended rated games to rate -> when queued (ms)."""
WATCH = _key("watch")
"""Sorted set: rated tables not yet ended -> when created (ms)."""
LEASE = _key("lease")
"""String: who rates now (a random id, with an expiry)."""


def history_key(player_id: str) -> str:
    """List: the player's rated games, newest first (JSON entries)."""
    return _key(f"history:{player_id}")


_APPLY = """
-- KEYS: RATED, QUEUE, LOG, SKILLS, COUNTS, BOARD, WATCH, then each seat's history list.
-- ARGV: game id, then per seat: player id, expected count, skill JSON, rating, entry JSON.
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then
    redis.call('ZREM', KEYS[2], ARGV[1])
    return 0
end
for seat = 0, 3 do
    local base = 2 + seat * 5
    local count = redis.call('HGET', KEYS[5], ARGV[base]) or '0'
    if count ~= ARGV[base + 1] then return -1 end
end
for seat = 0, 3 do
    local base = 2 + seat * 5
    redis.call('HSET', KEYS[4], ARGV[base], ARGV[base + 2])
    redis.call('HINCRBY', KEYS[5], ARGV[base], 1)
    redis.call('ZADD', KEYS[6], ARGV[base + 3], ARGV[base])
    redis.call('LPUSH', KEYS[8 + seat], ARGV[base + 4])
end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('XADD', KEYS[3], '*', 'game', ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[7], ARGV[1])
return 1
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Standing(msgspec.Struct, frozen=True):
    """A player's rating as the projection holds it."""

    rating: int
    mu: float
    sigma: float
    games: int
    wins: int


class HistoryEntry(msgspec.Struct, frozen=True):
    game_id: str
    """The rated game."""
    at: int
    """When it ended (ms since the epoch)."""
    won: bool
    """Whether this player's team won (a resignation is a loss)."""
    rating: int
    """The player's rating after it."""
    change: int
    """How much the game moved the rating."""


_entry = msgspec.json.Encoder()
_history_decoder = msgspec.json.Decoder(HistoryEntry)

EventsOf = Callable[[str], Awaitable[Sequence[Event]]]
"""Reads a game's whole log (decoded events)."""


async def logged_events(store: RedisEventStore, game_id: str) -> list[Event]:
    return [decode_event(stored.data) for stored in await store.read(game_id)]


class Ratings:
    def __init__(
        self,
        store: RedisEventStore,
        events_of: EventsOf,
        *,
        clock: Clock = system_clock,
        lease_ms: int = 30_000,
    ) -> None:
        self._redis = store.redis
        self._events_of = events_of
        self._clock = clock
        self._lease_ms = lease_ms
        self._apply = store.script(_APPLY)
        self._release = store.script(_RELEASE)

    # --- feeding --------------------------------------------------------------------------

    async def watch(self, game_id: str) -> None:
        """A rated table is made: watch it until it ends (queued then, or dropped)."""
        await guarded(self._redis.zadd(WATCH, {game_id: self._clock()}))

    async def queue(self, game_id: str) -> None:
        """A rated game ended: rate it (soon, in order)."""
        await guarded(self._redis.zadd(QUEUE, {game_id: self._clock()}, nx=True))

    async def look_over(self, lobby: Lobby, older_than_ms: int = 60_000) -> int:
        """Queue the watched tables the lobby lists as finished (an end whose queueing a
        crash lost), drop the ones gone, and rate what is queued; returns how many were
        queued. Only tables watched for ``older_than_ms``: a young one is still being made."""
        since = self._clock() - older_than_ms
        watched: list[bytes] = await guarded(self._redis.zrangebyscore(WATCH, 0, since))
        queued = 0
        for raw in watched:
            game_id = raw.decode()
            summary = await lobby.summary(game_id)
            if summary is None:
                await guarded(self._redis.zrem(WATCH, game_id))
            elif summary.status == "finished":
                await self.queue(game_id)
                queued += 1
        await self.settle()
        return queued

    # --- rating ---------------------------------------------------------------------------

    async def settle(self) -> int:
        """Rate every queued game, in queue order, if no other instance is at it; returns how
        many were rated."""
        lease = secrets.token_hex(8)
        if not await guarded(self._redis.set(LEASE, lease, nx=True, px=self._lease_ms)):
            return 0
        rated = 0
        try:
            while True:
                rows: list[bytes] = await guarded(self._redis.zrange(QUEUE, 0, 15))
                if not rows:
                    return rated
                for raw in rows:
                    rated += await self._rate(raw.decode())
        finally:
            await self._release((LEASE,), (lease,))

    async def _rate(self, game_id: str) -> int:
        result = rated_result(game_id, await self._events_of(game_id))
        if result is None:  # aborted, or no rated game: nothing to rate
            await guarded(self._redis.zrem(QUEUE, game_id))
            await guarded(self._redis.zrem(WATCH, game_id))
            return 0
        for _ in range(8):
            applied = await self._apply_result(result)
            if applied >= 0:
                return applied
        _log.warning("rating game %s kept meeting concurrent ratings", game_id)
        return 0

    async def _apply_result(self, result: RatedResult) -> int:
        standings = await self.standings(list(result.players))
        before = tuple(
            NEWCOMER if s is None else Skill(s.mu, s.sigma)
            for s in (standings.get(p) for p in result.players)
        )
        after = rate((before[0], before[1], before[2], before[3]), result.winner)
        args: list[str | int] = [result.game_id]
        for seat, player_id in enumerate(result.players):
            old = standings.get(player_id)
            won = seat % 2 == result.winner
            games = 0 if old is None else old.games
            skill = after[seat]
            standing = {
                "mu": skill.mu,
                "sigma": skill.sigma,
                "games": games + 1,
                "wins": (0 if old is None else old.wins) + won,
            }
            entry = HistoryEntry(
                result.game_id,
                result.ended_at,
                won,
                skill.rating,
                skill.rating - before[seat].rating,
            )
            args += [player_id, games, json.dumps(standing), skill.rating]
            args.append(_entry.encode(entry).decode())
        keys = (RATED, QUEUE, LOG, SKILLS, COUNTS, BOARD, WATCH)
        return int(await self._apply((*keys, *map(history_key, result.players)), args))

    # --- reading --------------------------------------------------------------------------

    async def standings(self, player_ids: list[str]) -> dict[str, Standing]:
        raw: list[bytes | None] = await guarded(self._redis.hmget(SKILLS, player_ids))
        found: dict[str, Standing] = {}
        for player_id, value in zip(player_ids, raw, strict=True):
            if value is not None:
                data = json.loads(value)
                skill = Skill(data["mu"], data["sigma"])
                found[player_id] = Standing(
                    skill.rating, skill.mu, skill.sigma, data["games"], data["wins"]
                )
        return found

    async def history(self, player_id: str, limit: int) -> list[HistoryEntry]:
        key = history_key(player_id)
        raw: list[bytes] = await guarded(self._redis.lrange(key, 0, limit - 1))
        return [_history_decoder.decode(item) for item in raw]

    async def board(self, offset: int, limit: int) -> tuple[list[tuple[str, str, int, int]], int]:
        """(player id, name, rating, games) from rank ``offset`` (0: the best), and how many
        are rated: three reads in one round trip."""
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.zrevrange(BOARD, offset, offset + limit - 1, withscores=True)
            pipe.zcard(BOARD)
            rows, total = await guarded(pipe.execute())
        ids = [member.decode() for member, _ in rows]
        if not ids:
            return [], int(total)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.hmget(NAMES, ids)
            pipe.hmget(COUNTS, ids)
            names, counts = await guarded(pipe.execute())
        board = [
            (player_id, (name or b"").decode(), int(score), int(count or 0))
            for (player_id, (_, score), name, count) in zip(ids, rows, names, counts, strict=True)
        ]
        return board, int(total)

    async def rename(self, player_id: str, name: str) -> None:
        """Keep the leaderboard's copy of a name (every rated player has one)."""
        await guarded(self._redis.hset(NAMES, player_id, name))

    # --- rebuilding -----------------------------------------------------------------------

    async def rebuild(self, also: Sequence[str] = ()) -> int:
        """Rate again, from the games' logs, every game the log says was rated, in that order
        (then ``also``: rated games found in the streams but never rated, in that order); the
        result is what rating them live gave. Holds the lease throughout."""
        lease = secrets.token_hex(8)
        if not await guarded(self._redis.set(LEASE, lease, nx=True, px=3_600_000)):
            raise RuntimeError("another instance is rating games now: try again shortly")
        try:
            entries: list[tuple[bytes, dict[bytes, bytes]]] = await guarded(self._redis.xrange(LOG))
            order = list(dict.fromkeys([e[b"game"].decode() for _, e in entries] + list(also)))
            players: list[str] = [p.decode() for p in await guarded(self._redis.hkeys(SKILLS))]
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.delete(BOARD, SKILLS, COUNTS, RATED, LOG, *map(history_key, players))
                await guarded(pipe.execute())
            rated = 0
            for game_id in order:
                result = rated_result(game_id, await self._events_of(game_id))
                if result is not None:
                    rated += max(0, await self._apply_result(result))
            return rated
        finally:
            await self._release((LEASE,), (lease,))
