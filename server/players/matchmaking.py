"""The matchmaking queue in Redis, shared by every instance.

Every key carries the ``{mm}`` hash tag (one slot, even on a cluster), so each step that
touches several keys is one Lua script and so atomic:

- *join* adds a ticket (or returns the one there is), *leave* and the heartbeat's *drop*
  take it out again;
- *take* moves up to four tickets out of the queue and records the match they make (its
  players, seats and game id) in the same step, refusing if any ticket changed since it was
  read: a person is taken into at most one match, whichever instance asks first;
- *finish*, after the table was made (``create_game`` keyed by the match id, so a retry
  names the same game), marks the match's tickets seated, once.

A match taken and never finished (its instance died between the two) stays pending, and any
instance's next pass finishes it: no table half-made, nobody lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from server.store import RedisEventStore
from server.store.redis_store import guarded

__all__ = ["Match", "MatchQueue", "Queued", "SeatRecord", "Ticket"]


def _key(name: str) -> str:
    return f"allfours:{{mm}}:{name}"


WAITING = _key("waiting")
"""Hash: player id -> their ticket (JSON), for everyone waiting."""
BEATS = _key("beats")
"""Sorted set: player id -> when their ticket was last polled (ms)."""
PENDING = _key("pending")
"""Sorted set: match id -> when it was taken (ms), until its table is made."""
MATCHES = _key("matches")
"""Hash: match id -> the match (JSON), while pending."""
TABLES = _key("tables")
"""Hash: game id -> people seated there by matchmaking, while the table is in progress."""
PLAYING = _key("playing")
"""Integer: the sum of ``TABLES``' values (what the stats show)."""


def seat_key(player_id: str) -> str:
    """Hash: ``status`` (``matched`` or ``seated``) and ``record`` (a ``SeatRecord``)."""
    return _key(f"seat:{player_id}")


class Ticket(msgspec.Struct, frozen=True):
    """A person's place in the queue."""

    name: str
    since: int
    """When they joined (ms)."""
    partner: str | None = None
    bots_after_s: int | None = None


class SeatRecord(msgspec.Struct, frozen=True):
    """Where a match put a person (their ticket as it was, and their seat)."""

    match_id: str
    game_id: str
    seat: int
    rated: bool
    ticket: Ticket


class Match(msgspec.Struct, frozen=True):
    """A table to make: ``seats`` holds (name, player id) per seat, None for a bot."""

    match_id: str
    game_id: str
    rated: bool
    seats: tuple[tuple[str, str] | None, ...]

    @property
    def people(self) -> list[str]:
        return [seat[1] for seat in self.seats if seat is not None]


Status = Literal["idle", "waiting", "matched", "seated"]


class Queued(msgspec.Struct, frozen=True):
    """A person's standing in the queue, and the counts every answer shows."""

    status: Status
    ticket: Ticket | None
    seat: SeatRecord | None
    waiting: int
    playing: int


_JOIN = """
-- KEYS: WAITING, BEATS, the seat hash. ARGV: player id, now, the ticket JSON.
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
    redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
    return current
end
if redis.call('HGET', KEYS[3], 'status') == 'matched' then return false end
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return ARGV[3]
"""

_DROP = """
-- KEYS: WAITING, BEATS. ARGV: the cutoff (ms). Tickets polled last at or before it go.
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
for _, player in ipairs(stale) do
    redis.call('HDEL', KEYS[1], player)
    redis.call('ZREM', KEYS[2], player)
end
return #stale
"""

# Every check comes before the first write (Redis does not roll a script back).
_TAKE = """
-- KEYS: WAITING, BEATS, PENDING, MATCHES, then each person's seat hash.
-- ARGV: match id, now, match JSON, then per person: player id, ticket JSON read, seat JSON.
local people = (#ARGV - 3) / 3
for i = 0, people - 1 do
    if redis.call('HGET', KEYS[1], ARGV[4 + 3 * i]) ~= ARGV[5 + 3 * i] then return 0 end
end
for i = 0, people - 1 do
    local player = ARGV[4 + 3 * i]
    redis.call('HDEL', KEYS[1], player)
    redis.call('ZREM', KEYS[2], player)
    redis.call('DEL', KEYS[5 + i])
    redis.call('HSET', KEYS[5 + i], 'status', 'matched', 'record', ARGV[6 + 3 * i])
end
redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
return 1
"""

_FINISH = """
-- KEYS: PENDING, MATCHES, TABLES, PLAYING, then each person's seat hash.
-- ARGV: match id, game id, how long a seated ticket stays readable (ms).
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[2], #KEYS - 4)
redis.call('INCRBY', KEYS[4], #KEYS - 4)
for i = 5, #KEYS do
    if redis.call('HGET', KEYS[i], 'status') == 'matched' then
        redis.call('HSET', KEYS[i], 'status', 'seated')
        redis.call('PEXPIRE', KEYS[i], ARGV[3])
    end
end
return 1
"""

_ENDED = """
-- KEYS: TABLES, PLAYING. ARGV: game id.
local people = redis.call('HGET', KEYS[1], ARGV[1])
if not people then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('DECRBY', KEYS[2], people)
return 1
"""

_json = msgspec.json.Encoder()
_ticket = msgspec.json.Decoder(Ticket)
_record = msgspec.json.Decoder(SeatRecord)
_match = msgspec.json.Decoder(Match)


class MatchQueue:
    """The queue's Redis steps (each one round trip); the matcher decides what to take."""

    def __init__(self, store: RedisEventStore, *, seated_ttl_ms: int = 600_000) -> None:
        self._redis = store.redis
        self._seated_ttl_ms = seated_ttl_ms
        """How long a seated ticket stays readable (the client polling sees its game)."""
        self._join = self._redis.register_script(_JOIN)
        self._drop = self._redis.register_script(_DROP)
        self._take = self._redis.register_script(_TAKE)
        self._finish = self._redis.register_script(_FINISH)
        self._ended = self._redis.register_script(_ENDED)

    async def join(self, player_id: str, ticket: Ticket, now_ms: int) -> None:
        """Queue ``ticket`` unless the player is waiting already (then it only counts as a
        poll) or matched (about to be seated). A seated player queues again."""
        keys = (WAITING, BEATS, seat_key(player_id))
        await guarded(self._join(keys, (player_id, now_ms, _json.encode(ticket))))

    async def leave(self, player_id: str) -> None:
        """Out of the queue; a matched or seated player stays so (too late to leave)."""
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hdel(WAITING, player_id)
            pipe.zrem(BEATS, player_id)
            await guarded(pipe.execute())

    async def poll(self, player_id: str, now_ms: int) -> Queued:
        """The player's standing; a poll of a waiting ticket is its heartbeat."""
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.zadd(BEATS, {player_id: now_ms}, xx=True)  # only a ticket still there
            pipe.hget(WAITING, player_id)
            pipe.hmget(seat_key(player_id), ["status", "record"])
            pipe.hlen(WAITING)
            pipe.get(PLAYING)
            _, ticket, (status, record), waiting, playing = await guarded(pipe.execute())
        counts = {"waiting": int(waiting), "playing": int(playing or 0)}
        if ticket is not None:
            return Queued("waiting", _ticket.decode(ticket), None, **counts)
        if record is None:
            return Queued("idle", None, None, **counts)
        seat = _record.decode(record)
        shown: Status = "seated" if status == b"seated" else "matched"
        return Queued(shown, seat.ticket, seat, **counts)

    async def stats(self) -> tuple[int, int]:
        """(people waiting, people seated by matchmaking at tables in progress)."""
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.hlen(WAITING)
            pipe.get(PLAYING)
            waiting, playing = await guarded(pipe.execute())
        return int(waiting), int(playing or 0)

    async def waiting(self) -> dict[str, tuple[bytes, Ticket]]:
        """Everyone waiting: player id -> (their ticket as stored, decoded)."""
        raw: dict[bytes, bytes] = await guarded(self._redis.hgetall(WAITING))
        return {p.decode(): (t, _ticket.decode(t)) for p, t in raw.items()}

    async def drop_stale(self, cutoff_ms: int) -> int:
        """Drop the tickets last polled at or before ``cutoff_ms`` (closed tabs)."""
        return int(await guarded(self._drop((WAITING, BEATS), (cutoff_ms,))))

    async def take(
        self, match: Match, read: Sequence[tuple[str, bytes, SeatRecord]], now_ms: int
    ) -> bool:
        """Take the persons of ``read`` (player id, ticket as read, their seat) out of the
        queue as ``match``, if none of their tickets changed since it was read."""
        keys = [WAITING, BEATS, PENDING, MATCHES, *(seat_key(p) for p, _, _ in read)]
        args: list[str | bytes | int] = [match.match_id, now_ms, _json.encode(match)]
        for player_id, ticket, seat in read:
            args += [player_id, ticket, _json.encode(seat)]
        return bool(await guarded(self._take(keys, args)))

    async def finish(self, match: Match) -> bool:
        """Mark the match's tickets seated (its table is made); False: already done."""
        keys = [PENDING, MATCHES, TABLES, PLAYING, *map(seat_key, match.people)]
        args = (match.match_id, match.game_id, self._seated_ttl_ms)
        return bool(await guarded(self._finish(keys, args)))

    async def pending(self, taken_before_ms: int) -> list[Match]:
        """Matches taken before ``taken_before_ms`` whose tables are not yet made."""
        ids: list[bytes] = await guarded(
            self._redis.zrangebyscore(PENDING, "-inf", taken_before_ms)
        )
        if not ids:
            return []
        raw: list[bytes | None] = await guarded(self._redis.hmget(MATCHES, ids))
        return [_match.decode(m) for m in raw if m is not None]

    async def tables(self) -> list[str]:
        """Tables made by matchmaking not yet seen ended."""
        ids: list[bytes] = await guarded(self._redis.hkeys(TABLES))
        return [game_id.decode() for game_id in ids]

    async def ended(self, game_id: str) -> None:
        """The table ended: its people no longer count as playing."""
        await guarded(self._ended((TABLES, PLAYING), (game_id,)))
