"""``GameService``: creating tables, seating people and bots, and every command, stored
through the event store with the expected version; see the package docstring."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from domain import (
    BOTS,
    AbortTable,
    Command,
    CreateGame,
    Join,
    PlayerCommand,
    Rules,
    RuleViolation,
    SeatCommand,
    State,
    fold,
)
from domain.autoplay import opening_commands
from domain.state import TAKEOVER_GRACE_MS
from server.clock import Clock, system_clock
from server.errors import Forbidden, GameNotFound, TooManyConflicts, VersionConflict
from server.lobby import GamePage, Lobby, Status
from server.names import check_distinct, check_name
from server.players.projection import PlayerProjection
from server.service.game_ids import game_id_for_key, new_game_id
from server.service.idempotency import fingerprint_of
from server.service.issuing import TokenIssuer
from server.service.results import CommandResult, SeatGrant
from server.service.runner import CommandRunner
from server.service.state_cache import Cached, StateCache, decoded
from server.service.thinking import Thinker
from server.store import EventStore, StoredEvent
from server.tokens import CREATOR, INVITE, matches, new_token, token_hash

__all__ = ["GameService", "TableOptions"]


@dataclass(frozen=True, slots=True)
class TableOptions:
    """How a new table treats people who are not there, recorded in its ``GameCreated``: it
    pauses while all are away or gone, an away seat's bot plays at ``away_pace_ms`` while
    others play on, and a table idle for ``idle_expiry_ms`` is closed (None: never)."""

    pause_when_absent: bool = True
    away_pace_ms: int = 1_500
    idle_expiry_ms: int | None = 1_800_000
    stand_in: str = "strong"
    """The bot level that plays for a person who is away, gone or out of time."""


_log = logging.getLogger("allfours.service")


class GameService:
    """Commands in, events stored. ``clock`` (ms) is read once per command and handed to the
    rules, so tests move time by hand. ``table_expiry_ms``: how long a new table waits for
    players; ``rematch_hold_ms``: how long a rematch keeps old seats for their people;
    ``takeover_grace_ms``: how long an away seat stays its person's (recorded in the game)."""

    def __init__(
        self,
        store: EventStore,
        lobby: Lobby | None = None,
        *,
        cache_size: int = 10_000,
        max_attempts: int = 16,
        clock: Clock = system_clock,
        table_expiry_ms: int | None = 3_600_000,
        rematch_hold_ms: int = 120_000,
        takeover_grace_ms: int = TAKEOVER_GRACE_MS,
        table: TableOptions | None = None,
        thinker: Thinker | None = None,
        players: PlayerProjection | None = None,
    ) -> None:
        self.store = store
        self.players = players
        """The players' projections (game lists, ratings); None: no player features."""
        self.lobby = lobby
        self.clock = clock
        self._cache = StateCache(store, cache_size)
        self.thinker = thinker or Thinker()
        """Who decides the bots' moves (the searching levels in worker processes)."""
        self._runner = CommandRunner(
            store,
            self._cache,
            lobby,
            clock=clock,
            max_attempts=max_attempts,
            thinker=self.thinker,
            players=players,
        )
        self._tokens = TokenIssuer(store)
        self.run = self._runner.run
        """Decide and store commands (what deals, bots and the sweeper owe a game too)."""
        self._max_attempts = max_attempts
        self._table_expiry_ms = table_expiry_ms
        self._rematch_hold_ms = rematch_hold_ms
        self._takeover_grace_ms = takeover_grace_ms
        self._table = table or TableOptions()

    # --- reading -----------------------------------------------------------------------------

    async def state(self, game_id: str) -> State:
        """The game's current state (fast-forwarded from the store)."""
        return (await self._cache.fresh(game_id)).state

    async def state_after(self, game_id: str, version: int) -> State:
        """The game's state at ``version`` or later: the cache when it is that far (as it is
        right after this process stored a command), else fresh from the store."""
        entry = self._cache.peek(game_id)
        if entry is not None and entry.state.version >= version:
            return entry.state
        return await self.state(game_id)

    async def state_at(self, game_id: str, version: int) -> State:
        """The game as it was at ``version``: a duplicate is answered with the state its
        command made, never a later one (the cache when it is exactly there, else a fold)."""
        entry = self._cache.peek(game_id)
        if entry is not None and entry.state.version == version:
            return entry.state
        return fold(decoded(await self.store.read(game_id, limit=version)))

    # --- writing -----------------------------------------------------------------------------

    async def create_game(
        self,
        rules: Rules,
        bots: Sequence[str | None],
        idempotency_key: str | None = None,
        *,
        game_id: str | None = None,
        rematch_of: str | None = None,
        reserved: tuple[int, ...] = (),
        with_creator: bool = True,
        private: bool = False,
        rated: bool = False,
        people: Sequence[tuple[str, str] | None] = (),
        stand_in: str | None = None,
    ) -> CommandResult:
        """Create a game; seats with a bot kind are filled at once. With all four seats bots
        the whole game is played out before this returns. ``game_id`` names the game (a
        rematch's id is derived from the game it follows); else it is random, or derived from
        ``idempotency_key`` so that a retried creation names the same game.

        ``with_creator``: hand out a creator token (seat bots, close the table before its
        first card), derived from the key like a seating's, so a retry gets the same one. A
        rematch has none: its people hold its seats.

        ``private``: an unlisted table, seated only with its invitation (in the answer, derived
        from the key like the creator token). ``rated``: its result rates its players, who
        are ``people`` (name, player id) per seat, seated in the same append (matchmaking).
        ``stand_in``: the bot level that plays for an away, gone or timed-out person (None:
        the server's)."""
        for kind in bots:
            if kind is not None and kind not in BOTS:
                raise ValueError(f"unknown bot kind {kind!r}")
        if game_id is None:
            game_id = new_game_id() if idempotency_key is None else game_id_for_key(idempotency_key)
        # The seed is stored (and kept) before anything else: a retried creation reuses it.
        seed = await self.store.put_secret(game_id, secrets.token_hex(32))
        now = self.clock()
        commands = self._opening(seed, rules, bots, now, rematch_of=rematch_of, reserved=reserved)
        commands[0] = msgspec.structs.replace(
            _creation(commands),
            private=private,
            rated=rated,
            stand_in=stand_in or self._table.stand_in,
        )
        commands += [
            Join(seat, name, player=player_id) for seat, (name, player_id) in _seated(people)
        ]
        creator = None
        if with_creator:
            creator = await self._tokens.token_for(game_id, CREATOR, idempotency_key)
        invite = None
        if private:
            invite = await self._tokens.token_for(game_id, INVITE, idempotency_key)
            await self.store.put_secret(game_id, token_hash(invite), name=INVITE)
        if rated and self.players is not None:
            await self.players.ratings.watch(game_id)
        entry = Cached(State(), seed)
        created = await self._runner.append_decided(
            game_id,
            entry,
            commands,
            idempotency_key,
            None if creator is None else (CREATOR, token_hash(creator)),
            # The fingerprint covers the whole request but the times (a retry later is still
            # the same request): a rematch's reserved seats and origin included.
            fingerprint_of(
                [
                    msgspec.structs.replace(commands[0], expires_at=None, reserved_until=None),
                    *commands[1:],
                ]
            ),
            now=now,
        )
        if created is None:  # the id exists without this key: a 64-bit collision, or tampering
            raise TooManyConflicts(f"game id {game_id} is taken; retry")
        return msgspec.structs.replace(created, creator_token=creator, invite=invite)

    def _opening(
        self,
        seed: str,
        rules: Rules,
        bots: Sequence[str | None],
        now: int,
        *,
        rematch_of: str | None,
        reserved: tuple[int, ...],
    ) -> list[Command]:
        """A new table's commands: its creation (with this server's times) and its bots."""
        names = [f"{kind} bot" if kind else "" for kind in bots]
        opening = opening_commands(seed, rules, names, list(bots))
        first = _creation(opening)
        expiry = self._table_expiry_ms
        return [
            msgspec.structs.replace(
                first,
                expires_at=None if expiry is None else now + expiry,
                rematch_of=rematch_of,
                reserved=reserved,
                reserved_until=now + self._rematch_hold_ms if reserved else None,
                takeover_grace_ms=self._takeover_grace_ms,
                pause_when_absent=self._table.pause_when_absent,
                away_pace_ms=self._table.away_pace_ms,
                idle_expiry_ms=self._table.idle_expiry_ms,
            ),
            *(c for c in opening[1:] if isinstance(c, Join) and c.bot is not None),
        ]

    async def created_with(self, idempotency_key: str) -> bool:
        """Whether a creation with this ``Idempotency-Key`` made its table already."""
        return await self.store.exists(game_id_for_key(idempotency_key))

    async def take_seat(
        self,
        game_id: str,
        seat: int,
        name: str,
        *,
        idempotency_key: str | None = None,
        claim: bool = False,
        player_id: str | None = None,
        invite: str | None = None,
    ) -> SeatGrant:
        """Seat a person (or take over a seat that was left or is away); returns the seat
        token, shown this once: only its hash is kept.

        With an ``idempotency_key`` the token is derived from it (HMAC with a per-game secret
        that never leaves Redis), so a retry after a lost answer gets the same token back,
        while the server still stores only the token's hash. ``claim``: the caller proved
        they held this seat in the game this one is a rematch of. The name must differ from
        every other seat's, as of the version the seating is stored at (``NameTaken``), and
        pass the name policy (``InvalidName``), checked before anything is read or stored.

        ``player_id``: the person proved that identity; the seat is linked to it. A private
        table seats only holders of its ``invite`` (403 else)."""
        check_name(name)
        state = await self.state(game_id)
        if state.private and not claim:  # a rematch's seat is its old player's, invited or not
            await self._check_invite(game_id, invite)
        token = await self._tokens.token_for(game_id, seat, idempotency_key)
        command_id = None if idempotency_key is None else f"seat{seat}:join:{idempotency_key}"
        for _ in range(self._max_attempts):
            check_distinct([None if p is None else p.name for p in state.players], seat, name)
            try:
                result = await self.run(
                    game_id,
                    [Join(seat, name, None, claim=claim, player=player_id)],
                    command_id,
                    state.version,  # the names checked are the names when it is stored
                    seat_token=(seat, token_hash(token)),
                )
            except VersionConflict:
                state = await self.state(game_id)
                continue
            if result.duplicate and not matches(
                token, await self.store.seat_token_hash(game_id, seat)
            ):
                # The seating stands, but its token was replaced since (re-issued to another
                # device, or the seat taken over): a dead token is no answer.
                raise RuleViolation(
                    "seat_taken", f"seat {seat} has another token now: this seating's is dead"
                )
            return SeatGrant(game_id, seat, token, result.version, result.duplicate)
        raise TooManyConflicts(f"game {game_id} is too busy; retry")

    async def invite_of(self, game_id: str, idempotency_key: str) -> str:
        """A private table's invitation, derived again from the key it was created with (a
        rematch's: everyone who asks for it gets it)."""
        return await self._tokens.token_for(game_id, INVITE, idempotency_key)

    async def _check_invite(self, game_id: str, invite: str | None) -> None:
        if invite is None:
            raise Forbidden("this table is private: seats are taken with its invitation")
        if not matches(invite, await self.store.get_secret(game_id, name=INVITE)):
            raise Forbidden("this is not this table's invitation")

    async def reissue_token(self, game_id: str, seat: int, player_id: str) -> SeatGrant:
        """A fresh token for a seat linked to ``player_id`` (another device, a lost browser):
        the seat's old token stops working. Stored only if the seat is still theirs at the
        version it was judged on (a takeover meanwhile wins)."""
        for _ in range(self._max_attempts):
            state = await self.state(game_id)
            held = state.players[seat]
            if held is None or held.player != player_id:
                raise Forbidden(f"seat {seat} is not yours")
            if held.left:
                raise RuleViolation("not_a_person", "you left this seat: take it again")
            token = new_token(game_id, seat)
            if await self.store.replace_seat_token(game_id, seat, token_hash(token), state.version):
                return SeatGrant(game_id, seat, token, state.version)
        raise TooManyConflicts(f"game {game_id} is too busy; retry")

    async def add_bot(self, game_id: str, seat: int, kind: str) -> CommandResult:
        """Seat a bot (the caller checked that the creator or a seated person asks)."""
        if kind not in BOTS:
            raise ValueError(f"unknown bot kind {kind!r}")
        return await self.run(game_id, [Join(seat, f"{kind} bot", kind)])

    async def abort_table(self, game_id: str, creator_token: str) -> CommandResult:
        """The creator closes the table before its first card; stored only if
        ``creator_token`` is the table's (checked in the same step as the append)."""
        return await self.run(
            game_id, [AbortTable()], required_token=(CREATOR, token_hash(creator_token))
        )

    async def play(
        self,
        game_id: str,
        command: PlayerCommand | SeatCommand,
        *,
        command_id: str | None = None,
        expected_version: int | None = None,
        token: str | None = None,
    ) -> CommandResult:
        """A person's command for their seat. ``token``: the seat token it came with; the
        append is refused unless that token holds the seat when it is stored, and a
        ``command_id`` then belongs to that token: another holder of the seat (or a forged
        token) sending the same id is a new command, never answered with this one's outcome."""
        entry = await self._cache.cached_or_load(game_id)
        player = entry.state.players[command.seat]
        if player is not None and player.left:
            raise RuleViolation("not_a_person", "you left this seat: the bot plays it now")
        required = None if token is None else (command.seat, token_hash(token))
        if command_id is not None and required is not None:
            command_id = f"{command_id}@{required[1]}"
        return await self.run(
            game_id, [command], command_id, expected_version, required_token=required
        )

    async def advance(self, game_id: str) -> CommandResult:
        """Store whatever the game owes itself (deals, bot moves, seed reveal), if anything.
        Any instance may call this at any time; racing calls never fork the game."""
        return await self.run(game_id, [])

    async def list_games(self, status: Status, cursor: str | None, limit: int) -> GamePage:
        if self.lobby is None:
            return GamePage((), None)
        return await self.lobby.page(status, cursor, limit)

    async def read_events(
        self, game_id: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        events = await self.store.read(game_id, after=after, limit=limit)
        if not events and after == 0 and not await self.store.exists(game_id):
            raise GameNotFound(f"no game {game_id!r}")
        return events


def _creation(commands: Sequence[Command]) -> CreateGame:
    first = commands[0]
    assert isinstance(first, CreateGame)
    return first


def _seated(people: Sequence[tuple[str, str] | None]) -> list[tuple[int, tuple[str, str]]]:
    return [(seat, person) for seat, person in enumerate(people) if person is not None]
