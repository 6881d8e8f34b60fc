"""The lobby: a listing of games by status, kept as a projection beside the event streams.

It is derived data (``rebuild`` recreates it from the streams) and is written after the
events it reflects, never instead of them. Its keys share one hash tag, ``{lobby}``, so the
few multi-key updates it makes stay in one Redis Cluster slot: :meth:`Lobby.note` is one Lua
script (atomic, and over the store's pipelined connection: a listing changes with every scored
hand, and redis-py's MULTI/EXEC cost a play several times what the script does), and the rare
:meth:`Lobby.forget` a MULTI/EXEC (redis-py's cluster pipeline accepts a transaction whose keys
share a slot). The listing as a whole therefore lives on one node.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Literal

import msgspec

from domain import EndReason, State
from server.clock import Clock, system_clock
from server.errors import ServiceError
from server.store import RedisEventStore
from server.store.keys import events_key

Status = Literal["open", "in_progress", "finished"]
STATUSES: tuple[Status, ...] = ("open", "in_progress", "finished")

_SUMMARIES = b"allfours:{lobby}:games"


def _index_key(status: Status) -> bytes:
    return f"allfours:{{lobby}}:status:{status}".encode()


_INDEX_KEYS = tuple(_index_key(status) for status in STATUSES)

_NOTE = """
-- KEYS[1]: the summaries hash; KEYS[2..]: the index of each status, in STATUSES' order.
-- ARGV: the game id, its summary, its creation time (the index score), its status's position
-- (0: listed under none, as a private table is: its summary serves its players' game lists).
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
for i = 2, #KEYS do
    if i - 1 == tonumber(ARGV[4]) then
        redis.call('ZADD', KEYS[i], ARGV[3], ARGV[1])
    else
        redis.call('ZREM', KEYS[i], ARGV[1])
    end
end
return 1
"""


class GameSummary(msgspec.Struct, frozen=True):
    game_id: str
    """The game's id."""
    status: Status
    """open (waiting for players), in_progress or finished."""
    open_seats: tuple[int, ...]
    """Seats a newcomer may take: open ones, and in a game in progress those whose person left or
    is away; never a seat in ``reserved``."""
    players: tuple[str | None, ...]
    """The name at each seat, null where open."""
    scores: tuple[int, int]
    """Both teams' scores, team 0 first."""
    version: int
    """The game's version when it was listed."""
    created_at: int
    """Milliseconds since the epoch; listings are newest first."""
    winner: int | None = None
    """The winning team of a finished game (null otherwise)."""
    end_reason: EndReason | None = None
    """How a finished game ended: ``target``, ``resigned``, ``aborted``, ``expired`` or
    ``idle``."""
    rematch_of: str | None = None
    """The game this table is a rematch of, or null."""
    turn_seconds: int | None = None
    """The table's turn clock: seconds a person has per decision, or null for no clock (so a
    newcomer sees how fast the table plays before sitting down)."""
    rated: bool = False
    """A rated table (made by matchmaking): its result moves its players' ratings."""
    player_ids: tuple[str | None, ...] = ()
    """The public player id at each seat, null where the seat is open, a bot's or an
    anonymous person's (empty in listings written before player identities)."""
    reserved: tuple[int, ...] = ()
    """Free seats a rematch keeps for the people of the last game: only they may take them
    (anyone else gets 409 ``seat_reserved``) until ``reserved_until``; after that they are
    open to anyone (the listing is not rewritten at that moment: compare the time)."""
    reserved_until: int | None = None
    """Until when (ms since the epoch) ``reserved`` seats are kept; null without any."""


class GamePage(msgspec.Struct, frozen=True):
    games: tuple[GameSummary, ...]
    """Games of the asked status, newest first."""
    next_cursor: str | None
    """Pass as ``cursor`` for the next page; None on the last page."""


def status_of(state: State) -> Status:
    if state.phase == "ended":
        return "finished"
    if state.phase in ("new", "seating"):
        return "open"
    return "in_progress"


def _free_seats(state: State) -> tuple[int, ...]:
    """Seats nobody holds: open ones and, in a game in progress, those whose person left or
    is away (a new person may take them over)."""
    if state.phase == "ended":
        return ()
    return tuple(
        seat
        for seat, p in enumerate(state.players)
        if p is None or (p.bot is None and (p.left or p.away))
    )


def _reserved_seats(state: State) -> tuple[int, ...]:
    """Free seats a rematch keeps for the people of the last game (until ``reserved_until``:
    the listing is written when the game changes, not when the reservation lapses, so it
    gives the time and a client compares it with its clock)."""
    return tuple(seat for seat in _free_seats(state) if seat in state.reserved)


def _open_seats(state: State) -> tuple[int, ...]:
    """Seats a newcomer may take now: free and not kept for a rematch's people."""
    return tuple(seat for seat in _free_seats(state) if seat not in state.reserved)


_decoder = msgspec.json.Decoder(GameSummary)


_CREATED_AT_CAPACITY = 10_000


class Lobby:
    """The listing. ``clock`` (ms) dates a game listed for the first time, once per note."""

    def __init__(self, store: RedisEventStore, *, clock: Clock = system_clock) -> None:
        self._redis = store.redis
        self._clock = clock
        self._note = store.script(_NOTE)
        # Each game's creation time, as this process last listed it: it never changes, so a
        # game's later listings need not read it back first (one round trip less per note).
        self._created_at: dict[str, int] = {}

    @staticmethod
    def listing_changed(before: State, after: State) -> bool:
        """Whether a listing shows anything different: seats, status or scores."""
        if (
            before.players is after.players  # (most commands leave the players as they were)
            and before.phase == after.phase
            and before.scores == after.scores
        ):
            return False
        return (
            _open_seats(before) != _open_seats(after)
            or [p and p.name for p in before.players] != [p and p.name for p in after.players]
            or status_of(before) != status_of(after)
            or before.scores != after.scores
        )

    async def note(
        self, game_id: str, state: State, *, created_at: int | None = None, new: bool = False
    ) -> None:
        """Record the game's listing after a change. ``created_at`` (ms): when the game was
        created, if known (a rebuild knows it from the log); else the listing's, else now.
        ``new``: the game was just created, so it is listed from now on, whatever was listed
        or remembered under its id before (an id made from a creation key may come again
        after the first game of that id was archived)."""
        created = created_at
        if created is None and new:
            created = self._clock()
        if created is None:
            created = self._created_at.get(game_id)
        if created is None:
            current = await self._redis.hget(_SUMMARIES, game_id)
            created = _decoder.decode(current).created_at if current else self._clock()
        self._remember_created(game_id, created)
        summary = GameSummary(
            game_id=game_id,
            status=status_of(state),
            open_seats=_open_seats(state),
            players=tuple(None if p is None else p.name for p in state.players),
            scores=state.scores,
            version=state.version,
            created_at=created,
            winner=state.winner,
            end_reason=state.end_reason,
            rematch_of=state.rematch_of,
            turn_seconds=state.rules.clock_ms // 1000 if state.rules.clock_ms else None,
            rated=state.rated,
            player_ids=tuple(None if p is None else p.player for p in state.players),
            reserved=_reserved_seats(state),
            reserved_until=state.reserved_until if state.reserved else None,
        )
        position = 0 if state.private else STATUSES.index(summary.status) + 1
        encoded = msgspec.json.encode(summary)
        await self._note((_SUMMARIES, *_INDEX_KEYS), (game_id, encoded, created, position))

    def _remember_created(self, game_id: str, created: int) -> None:
        self._created_at[game_id] = created
        if len(self._created_at) > _CREATED_AT_CAPACITY:
            del self._created_at[next(iter(self._created_at))]  # the oldest listed

    async def forget(self, game_id: str) -> None:
        """Remove the game's listing (its game was archived, or is gone)."""
        self._created_at.pop(game_id, None)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hdel(_SUMMARIES, game_id)
            for index_key in _INDEX_KEYS:
                pipe.zrem(index_key, game_id)
            await pipe.execute()

    async def summary(self, game_id: str) -> GameSummary | None:
        """The game's listing, if it has one."""
        raw = await self._redis.hget(_SUMMARIES, game_id)
        return None if raw is None else _decoder.decode(raw)

    async def listed(self, status: Status | None = None) -> list[str]:
        """Ids of the listed games (of one status, or all)."""
        keys: list[bytes | str]
        if status is None:
            keys = await self._redis.hkeys(_SUMMARIES)
        else:
            keys = await self._redis.zrange(_index_key(status), 0, -1)  # type: ignore[assignment]
        return [key.decode() if isinstance(key, bytes) else key for key in keys]

    async def rebuild(self, games: AsyncIterator[tuple[str, State, int]]) -> tuple[int, int]:
        """Make the listing what the streams say: ``games`` gives (game id, state, created at
        ms) of every game in the store. Listings of games that have no stream are removed.
        Returns (listed, removed). Safe beside live servers: a game they note meanwhile is
        listed either way, and its next change rewrites its listing."""
        seen: set[str] = set()
        async for game_id, state, created_at in games:
            await self.note(game_id, state, created_at=created_at)
            seen.add(game_id)
        listed = set(await self.listed())
        for status in STATUSES:
            listed.update(await self.listed(status))
        removed = 0
        for game_id in listed - seen:
            if not await self._redis.exists(events_key(game_id)):  # not one created meanwhile
                await self.forget(game_id)
                removed += 1
        return len(seen), removed

    async def page(self, status: Status, cursor: str | None, limit: int) -> GamePage:
        """Games of one status, newest first; ``cursor`` continues a previous page."""
        return await self.page_of(_index_key(status), cursor, limit)

    async def page_of(self, index: bytes | str, cursor: str | None, limit: int) -> GamePage:
        """The listings of the games in ``index`` (a sorted set of game ids scored by their
        creation time: a status's, or a player's), newest first.

        The cursor is ``<created_at>:<game_id>`` of the last game shown. Games created in the
        same millisecond are ordered by id, so none is skipped or shown twice. A game with no
        listing (archived) is left out."""
        top: str | int = "+inf"
        after: tuple[int, bytes] | None = None
        if cursor is not None:
            after = parse_cursor(cursor)
            top = after[0]
        rows: list[tuple[bytes, float]] = await self._redis.zrevrangebyscore(  # type: ignore[assignment]
            index,
            top,
            "-inf",
            start=0,
            num=limit + 1 + _SAME_MS_SLACK,
            withscores=True,
        )
        if after is not None:
            # Same-score members come in reverse lexical order: drop those already shown.
            rows = [(m, sc) for m, sc in rows if sc < after[0] or m < after[1]]
        more = len(rows) > limit
        rows = rows[:limit]
        raw = await self._redis.hmget(_SUMMARIES, [m for m, _ in rows]) if rows else []
        games = tuple(_decoder.decode(r) for r in raw if r is not None)
        next_cursor = None
        if more and rows:
            member, score = rows[-1]
            next_cursor = f"{int(score)}:{member.decode()}"
        return GamePage(games, next_cursor)


def parse_cursor(cursor: str) -> tuple[int, bytes]:
    """``<created_at>:<game_id>`` as (ms, id); :class:`InvalidCursor` for anything else
    (ASCII digits only: ``int`` would take ``١٢٣`` too, Redis would not)."""
    match = _CURSOR.fullmatch(cursor)
    if match is None:
        raise InvalidCursor(f"not a cursor this server gave: {cursor[:80]!r}")
    return int(match[1]), match[2].encode()


class InvalidCursor(ServiceError):
    code = "invalid_request"


_CURSOR = re.compile(r"([0-9]{1,16}):([A-Za-z0-9_-]{1,64})", re.ASCII)

_SAME_MS_SLACK = 64
"""Extra rows fetched so that games sharing the cursor's millisecond can be skipped."""
