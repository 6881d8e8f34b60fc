"""The matcher pass: every instance runs it (there is no queue holder to lose), each pass
drops closed tabs, finishes matches a crash left pending, and seats whoever can be seated.

Instances race freely: each groups the same queue, and the queue's *take* step hands each
person to one match only, so a pass that lost a race takes nothing and tries again next
time. A table is made with ``create_game`` keyed by its match id (a retry names the same
game: the pass that took a match and a pass finishing it after a crash make one table).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Sequence

from domain import Rules
from server.clock import Clock
from server.errors import IdempotencyKeyReused
from server.lookalike import lookalike_keys
from server.names import MAX_LENGTH
from server.players.matching import BotTable, RatedTable, Seeker, match
from server.players.matchmaking import Match, MatchQueue, SeatRecord, Ticket
from server.players.rating_model import NEWCOMER
from server.players.ratings import Ratings
from server.service import GameService
from server.service.game_ids import game_id_for_key

__all__ = ["Matchmaker"]

_log = logging.getLogger("allfours.matchmaking")
BOT = "strong"
_CREATING = 8
"""Tables made at once by one pass."""


class Matchmaker:
    def __init__(
        self,
        queue: MatchQueue,
        service: GameService,
        ratings: Ratings,
        *,
        clock: Clock,
        heartbeat_ms: int = 15_000,
        pending_grace_ms: int = 5_000,
    ) -> None:
        self.queue = queue
        self._service = service
        self._ratings = ratings
        self.clock = clock
        self._heartbeat_ms = heartbeat_ms
        self._pending_grace_ms = pending_grace_ms
        """How old a pending match must be before another pass finishes it (its own pass is
        most likely making its table right now)."""

    async def run_once(self) -> int:
        """One pass at the clock's time (what the app's upkeep calls)."""
        return await self.pass_once(self.clock())

    async def pass_once(self, now_ms: int) -> int:
        """Drop stale tickets, finish old pending matches, take and seat new ones; returns
        how many tables this pass made."""
        await self.queue.drop_stale(now_ms - self._heartbeat_ms)
        made = await self.finish_pending(now_ms - self._pending_grace_ms)
        taken = await self.take_matches(now_ms)
        return made + await self._make_all(taken)

    async def take_matches(self, now_ms: int) -> list[Match]:
        """Group everyone waiting and take what the queue grants (the first half of seating:
        what a crash may interrupt)."""
        waiting = await self.queue.waiting()
        if not waiting:
            return []
        standings = await self._ratings.standings(list(waiting))
        seekers = [
            Seeker(
                player_id,
                ticket.name,
                s.rating if (s := standings.get(player_id)) is not None else NEWCOMER.rating,
                ticket.since,
                ticket.partner,
                ticket.bots_after_s,
            )
            for player_id, (_, ticket) in waiting.items()
        ]
        rated, bots = match(seekers, now_ms)
        taken: list[Match] = []
        tables: list[RatedTable | BotTable] = [*rated, *bots]
        for table in tables:
            found = await self._take(table, waiting, now_ms)
            if found is not None:
                taken.append(found)
        return taken

    async def finish_pending(self, taken_before_ms: int) -> int:
        """Make the tables of matches taken before ``taken_before_ms`` and never finished."""
        return await self._make_all(await self.queue.pending(taken_before_ms))

    async def _take(
        self, table: RatedTable | BotTable, waiting: dict[str, tuple[bytes, Ticket]], now_ms: int
    ) -> Match | None:
        match_id = f"mm-{secrets.token_hex(12)}"
        game_id = game_id_for_key(match_id)
        rated = isinstance(table, RatedTable)
        names = _distinct([None if s is None else s.name for s in table.seats])
        seats = tuple(
            None if s is None else (name or s.name, s.player_id)
            for s, name in zip(table.seats, names, strict=True)
        )
        found = Match(match_id, game_id, rated, seats)
        read = [
            (s.player_id, raw, SeatRecord(match_id, game_id, seat, rated, ticket))
            for seat, s in enumerate(table.seats)
            if s is not None
            for raw, ticket in (waiting[s.player_id],)
        ]
        return found if await self.queue.take(found, read, now_ms) else None

    async def _make_all(self, matches: Sequence[Match]) -> int:
        limit = asyncio.Semaphore(_CREATING)

        async def make(found: Match) -> bool:
            async with limit:
                return await self._make(found)

        return sum(await asyncio.gather(*map(make, matches)))

    async def _make(self, found: Match) -> bool:
        """Make the match's table (again: the same one) and seat its people; False if it
        failed (logged: the match stays pending, and a later pass tries again)."""
        try:
            await self._service.create_game(
                Rules().with_default_clock(),
                [None if seat is not None else BOT for seat in found.seats],
                found.match_id,
                with_creator=False,
                rated=found.rated,
                people=found.seats,
            )
        except IdempotencyKeyReused:
            # Made already, by an instance whose table settings differ from ours: it stands.
            pass
        except Exception:
            _log.exception("making the table of match %s failed", found.match_id)
            return False
        return await self.queue.finish(found)

    async def look_over_tables(self) -> int:
        """Stop counting the people of matchmaking's tables that ended; returns how many."""
        lobby = self._service.lobby
        if lobby is None:
            return 0
        ended = 0
        for game_id in await self.queue.tables():
            summary = await lobby.summary(game_id)
            if summary is None or summary.status == "finished":
                await self.queue.ended(game_id)
                ended += 1
        return ended


def _distinct(names: list[str | None]) -> list[str | None]:
    """The names to seat under: a name that looks like an earlier seat's gets a number (the
    seats of one table are told apart by name)."""
    shown: list[str | None] = []
    seen: set[str] = set()
    for name in names:
        if name is None:
            shown.append(None)
            continue
        candidate, n = name, 1
        while not seen.isdisjoint(lookalike_keys(candidate)):
            n += 1
            candidate = f"{name[: MAX_LENGTH - 3]} {n}"  # a table has four seats
        seen |= lookalike_keys(candidate)
        shown.append(candidate)
    return shown
