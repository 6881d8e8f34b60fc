"""The game service: commands in, events stored. The only writer of game streams.

Each command runs against a cached state (fast-forwarded from the store when another instance
moved the game on), is decided by the pure domain, and is appended with the version it was
decided on. A conflict means someone else wrote first: fast-forward and decide again, a
bounded number of times. Whatever the game owes itself after a command (the next deal, the
bots' moves, the seed reveal at the end) is decided in the same step and stored in the same
atomic append, so a game never stalls half-way and two instances can never fork it.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import random
import secrets
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from domain import (
    BOTS,
    AbortTable,
    Command,
    CreateGame,
    Event,
    Join,
    PlayerCommand,
    Rules,
    RuleViolation,
    SeatCommand,
    State,
    execute,
    fold,
)
from domain.autoplay import opening_commands, owed_command
from domain.state import TAKEOVER_GRACE_MS
from server.clock import Clock, system_clock
from server.codec import decode_event, encode_events
from server.errors import (
    GameNotFound,
    IdempotencyKeyReused,
    TooManyConflicts,
    Unauthorized,
    VersionConflict,
)
from server.lobby import GamePage, Lobby, Status
from server.names import check_distinct, check_name
from server.store import AppendResult, Due, EventStore, StoredEvent, StoreRegressed
from server.store.keys import swept_slot
from server.tokens import CREATOR, derived_token, new_token, token_hash

_log = logging.getLogger("allfours.service")

_bot_rng = random.SystemRandom()
"""Bots need no reproducibility in a live game, and must not hint at the deck's seed."""


class CommandResult(msgspec.Struct, frozen=True):
    """What one accepted command stored: versions ``first_version..version``."""

    game_id: str
    first_version: int
    version: int
    duplicate: bool = False
    stored: tuple[bytes, ...] = ()
    """The stored events, when this call stored them (empty for a duplicate)."""
    creator_token: str | None = None
    """A table creation's creator token (shown this once: only its hash is kept)."""


class SeatGrant(msgspec.Struct, frozen=True):
    game_id: str
    seat: int
    token: str
    version: int
    duplicate: bool = False
    """A retried seating (same Idempotency-Key): the same token as the first answer."""


@dataclass(slots=True)
class _Cached:
    state: State
    seed: str


def new_game_id() -> str:
    """64 random bits, in hex, whose hash slot is one a cluster's sweeper reads each pass."""
    while True:
        game_id = secrets.token_hex(8)
        if swept_slot(game_id):
            return game_id


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
    ) -> None:
        self.store = store
        self.lobby = lobby
        self.clock = clock
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        self._cache_size = cache_size
        self._max_attempts = max_attempts
        self._table_expiry_ms = table_expiry_ms
        self._rematch_hold_ms = rematch_hold_ms
        self._takeover_grace_ms = takeover_grace_ms

    # --- reading -----------------------------------------------------------------------------

    async def state(self, game_id: str) -> State:
        """The game's current state (fast-forwarded from the store)."""
        return (await self._fresh(game_id)).state

    async def state_after(self, game_id: str, version: int) -> State:
        """The game's state at ``version`` or later: the cache when it is that far (as it is
        right after this process stored a command), else fresh from the store."""
        entry = self._cache.get(game_id)
        if entry is not None and entry.state.version >= version:
            return entry.state
        return await self.state(game_id)

    async def state_at(self, game_id: str, version: int) -> State:
        """The game as it was at ``version``: a duplicate is answered with the state its
        command made, never a later one (the cache when it is exactly there, else a fold)."""
        entry = self._cache.get(game_id)
        if entry is not None and entry.state.version == version:
            return entry.state
        return fold(_decoded(await self.store.read(game_id, limit=version)))

    async def _cached_or_load(self, game_id: str) -> _Cached:
        entry = self._cache.get(game_id)
        if entry is None:
            return await self._fresh(game_id)
        self._cache.move_to_end(game_id)
        return entry

    async def _fresh(self, game_id: str) -> _Cached:
        """The cached state brought up to the store's version (loaded if not cached)."""
        entry = self._cache.get(game_id)
        if entry is None:
            seed = await self.store.get_secret(game_id)
            if seed is None:
                raise GameNotFound(f"no game {game_id!r}")
            entry = _Cached(State(), seed)
        seen = entry.state.version
        try:
            # One round trip: read from the last event we know, inclusive. If the store no
            # longer has it, the store went back behind our cache.
            got = await self.store.read(game_id, after=max(seen - 1, 0))
            if seen and (not got or got[0].version != seen):
                raise StoreRegressed(game_id, seen, got[-1].version if got else 0)
            newer = got[1:] if seen else got
            if newer:
                entry = _Cached(fold(_decoded(newer), entry.state), entry.seed)
        except StoreRegressed:
            # The store is behind what we saw (restored from an older backup, or it lost
            # writes): the cache is a lie now. Rebuild from what the store really holds.
            self._cache.pop(game_id, None)
            entry = _Cached(fold(_decoded(await self.store.read(game_id))), entry.seed)
        if entry.state.version == 0:
            raise GameNotFound(f"no game {game_id!r}")
        self._remember(game_id, entry)
        return entry

    def _remember(self, game_id: str, entry: _Cached) -> None:
        self._cache[game_id] = entry
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

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
    ) -> CommandResult:
        """Create a game; seats with a bot kind are filled at once. With all four seats bots
        the whole game is played out before this returns. ``game_id`` names the game (a
        rematch's id is derived from the game it follows); else it is random, or derived from
        ``idempotency_key`` so that a retried creation names the same game.

        ``with_creator``: hand out a creator token (seat bots, close the table before its
        first card), derived from the key like a seating's, so a retry gets the same one. A
        rematch has none: its people hold its seats."""
        for kind in bots:
            if kind is not None and kind not in BOTS:
                raise ValueError(f"unknown bot kind {kind!r}")
        if game_id is None:
            game_id = new_game_id() if idempotency_key is None else game_id_for_key(idempotency_key)
        # The seed is stored (and kept) before anything else: a retried creation reuses it.
        seed = await self.store.put_secret(game_id, secrets.token_hex(32))
        now = self.clock()
        names = [f"{kind} bot" if kind else "" for kind in bots]
        opening = opening_commands(seed, rules, names, list(bots))
        first = opening[0]
        assert isinstance(first, CreateGame)
        expiry = self._table_expiry_ms
        commands: list[Command] = [
            msgspec.structs.replace(
                first,
                expires_at=None if expiry is None else now + expiry,
                rematch_of=rematch_of,
                reserved=reserved,
                reserved_until=now + self._rematch_hold_ms if reserved else None,
                takeover_grace_ms=self._takeover_grace_ms,
            ),
            *(c for c in opening[1:] if isinstance(c, Join) and c.bot is not None),
        ]
        creator = None
        if with_creator:
            creator = await self._token_for(game_id, CREATOR, idempotency_key)
        entry = _Cached(State(), seed)
        created = await self._append_decided(
            game_id,
            entry,
            commands,
            idempotency_key,
            None if creator is None else (CREATOR, token_hash(creator)),
            # The fingerprint covers the whole request but the times (a retry later is still
            # the same request): a rematch's reserved seats and origin included.
            _fingerprint(
                [
                    msgspec.structs.replace(commands[0], expires_at=None, reserved_until=None),
                    *commands[1:],
                ]
            ),
            now=now,
        )
        if created is None:  # the id exists without this key: a 64-bit collision, or tampering
            raise TooManyConflicts(f"game id {game_id} is taken; retry")
        return msgspec.structs.replace(created, creator_token=creator)

    async def _token_for(self, game_id: str, seat: int | str, idempotency_key: str | None) -> str:
        """A new token for ``seat`` (or the creator): random, or derived from the request's
        key with a secret of the game's, so that a retry after a lost answer gets it again."""
        if idempotency_key is None:
            return new_token(game_id, seat)
        key = await self.store.put_secret(game_id, secrets.token_hex(32), name="token-key")
        return derived_token(game_id, seat, key, idempotency_key)

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
    ) -> SeatGrant:
        """Seat a person (or take over a seat that was left or is away); returns the seat
        token, shown this once: only its hash is kept.

        With an ``idempotency_key`` the token is derived from it (HMAC with a per-game secret
        that never leaves Redis), so a retry after a lost answer gets the same token back,
        while the server still stores only the token's hash. ``claim``: the caller proved
        they held this seat in the game this one is a rematch of. The name must differ from
        every other seat's, as of the version the seating is stored at (``NameTaken``), and
        pass the name policy (``InvalidName``), checked before anything is read or stored."""
        check_name(name)
        state = await self.state(game_id)
        token = await self._token_for(game_id, seat, idempotency_key)
        command_id = None if idempotency_key is None else f"seat{seat}:join:{idempotency_key}"
        for _ in range(self._max_attempts):
            check_distinct([None if p is None else p.name for p in state.players], seat, name)
            try:
                result = await self.run(
                    game_id,
                    [Join(seat, name, None, claim=claim)],
                    command_id,
                    state.version,  # the names checked are the names when it is stored
                    seat_token=(seat, token_hash(token)),
                )
            except VersionConflict:
                state = await self.state(game_id)
                continue
            return SeatGrant(game_id, seat, token, result.version, result.duplicate)
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
        entry = await self._cached_or_load(game_id)
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

    async def run(
        self,
        game_id: str,
        commands: Sequence[Command],
        command_id: str | None = None,
        expected_version: int | None = None,
        seat_token: tuple[int | str, str] | None = None,
        required_token: tuple[int | str, str] | None = None,
    ) -> CommandResult:
        fingerprint = _fingerprint(commands) if command_id is not None else ""
        entry = await self._cached_or_load(game_id)
        for _ in range(self._max_attempts):
            if expected_version is not None and expected_version != entry.state.version:
                entry = await self._fresh(game_id)
                if expected_version != entry.state.version:
                    earlier = await self._earlier_outcome(
                        game_id, command_id, fingerprint, required_token
                    )
                    if earlier is not None:
                        return earlier
                    raise VersionConflict(
                        f"expected version {expected_version}, the game is at "
                        f"{entry.state.version}",
                        entry.state.version,
                    )
            try:
                result = await self._append_decided(
                    game_id,
                    entry,
                    commands,
                    command_id,
                    seat_token,
                    fingerprint,
                    required_token=required_token,
                )
            except StoreRegressed:
                entry = await self._fresh(game_id)
                continue
            except RuleViolation:
                # A retry of a command that went through is refused by the game as it is now
                # (the card was already played): answer it as the duplicate it is.
                earlier = await self._earlier_outcome(
                    game_id, command_id, fingerprint, required_token
                )
                if earlier is not None:
                    return earlier
                # Our cache may be behind another instance's writes: judge on fresh state.
                fresh = await self._fresh(game_id)
                if fresh.state.version == entry.state.version:
                    raise
                entry = fresh
                continue
            if result is not None:
                return result
            entry = await self._fresh(game_id)
        raise TooManyConflicts(f"game {game_id} is too busy; retry")

    async def _earlier_outcome(
        self,
        game_id: str,
        command_id: str | None,
        fingerprint: str,
        required_token: tuple[int | str, str] | None,
    ) -> CommandResult | None:
        """The outcome recorded for ``command_id``, if any, as its duplicate; but only to a
        request whose token holds the seat now (as the append script checks it): 401 else."""
        if command_id is None:
            return None
        if required_token is not None:
            seat, digest = required_token
            held = await self.store.seat_token_hash(game_id, seat)
            if not hmac.compare_digest(held or "", digest):
                raise Unauthorized("this seat token does not hold the seat")
        recorded = await self.store.recorded_command(game_id, command_id)
        if recorded is None:
            return None
        _same_command(recorded, fingerprint)
        return CommandResult(game_id, recorded.first_version, recorded.version, duplicate=True)

    async def _append_decided(
        self,
        game_id: str,
        entry: _Cached,
        commands: Sequence[Command],
        command_id: str | None,
        seat_token: tuple[int | str, str] | None,
        fingerprint: str = "",
        *,
        required_token: tuple[int | str, str] | None = None,
        now: int | None = None,
    ) -> CommandResult | None:
        """Decide ``commands`` and what follows from them at the clock's time, and append it
        all at the state's version, with the game's due-index entry. None on a conflict (the
        caller fast-forwards and tries again)."""
        at = self.clock() if now is None else now
        state, events = _decide_all(entry.state, commands, at)
        state, owed = _decide_owed(state, entry.seed, at)
        events.extend(owed)
        base = entry.state.version
        if not events:  # nothing was owed: an empty range, nothing stored
            return CommandResult(game_id, base + 1, base)
        stored = encode_events(events)
        outcome = await self.store.append(
            game_id,
            base,
            stored,
            command_id,
            seat_token=seat_token,
            fingerprint=fingerprint,
            due=Due(state.wakeup_at),
            required_token=required_token,
        )
        if outcome.status == "ok":
            self._remember(game_id, _Cached(state, entry.seed))
            if base == 0 or Lobby.listing_changed(entry.state, state):
                await self._note_listing(game_id, state, new=base == 0)
            return CommandResult(game_id, base + 1, outcome.version, stored=tuple(stored))
        if outcome.status == "duplicate":
            _same_command(outcome, fingerprint)
            return CommandResult(game_id, outcome.first_version, outcome.version, duplicate=True)
        if outcome.status == "rejected":
            raise Unauthorized("this seat token no longer holds the seat")
        return None

    async def _note_listing(self, game_id: str, state: State, *, new: bool = False) -> None:
        """Update the lobby after a stored command. The command stands whatever happens here:
        a failure is logged, and the listing is repaired by the game's next change (or by
        rebuilding the lobby from the streams)."""
        if self.lobby is None:
            return
        try:
            await self.lobby.note(game_id, state, new=new)
        except Exception:
            # Whatever failed (Redis, or a bug), the command was stored: never answer it
            # with an error. Logged with its traceback, repaired by a later note or rebuild.
            _log.warning("lobby update failed for game %s", game_id, exc_info=True)

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


def _fingerprint(commands: Sequence[Command]) -> str:
    """What a command id is recorded with, so that its reuse for another command is caught."""
    return hashlib.sha256(msgspec.json.encode(list(commands))).hexdigest()[:32]


def _same_command(recorded: AppendResult, fingerprint: str) -> None:
    if recorded.fingerprint and fingerprint and recorded.fingerprint != fingerprint:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was used for a different request; use a new key per request"
        )


def _decoded(stored: Sequence[StoredEvent]) -> list[Event]:
    return [decode_event(e.data) for e in stored]


def _decide_all(state: State, commands: Sequence[Command], at: int) -> tuple[State, list[Event]]:
    events: list[Event] = []
    for command in commands:
        state, produced = execute(state, command, at)
        events.extend(produced)
    return state, events


def _decide_owed(state: State, seed: str, at: int) -> tuple[State, list[Event]]:
    """Everything the game does by itself from ``state`` until a person must act: deals,
    bots' moves (for bots, and for people away, gone or just timed out), the seed reveal."""
    events: list[Event] = []
    while True:
        command = owed_command(state, seed, _bot_rng)
        if command is None:
            return state, events
        state, produced = execute(state, command, at)
        events.extend(produced)


def game_id_for_key(idempotency_key: str) -> str:
    """A retried creation with the same key names the same game, so it cannot create two."""
    return _derived_id(f"create:{idempotency_key}")


def rematch_id_of(game_id: str) -> str:
    """The id of ``game_id``'s rematch, the same on every instance and retry. No client's
    creation can name it: their ids are derived under ``create:``, this one under
    ``rematch-of:``, so nobody can open (or block) a game's rematch before its people do."""
    return _derived_id(f"rematch-of:{game_id}")


def _derived_id(name: str) -> str:
    """The first of ``name``'s hashes whose slot a cluster's sweeper reads (64 tries on
    average)."""
    n = 0
    while True:
        digest = hashlib.sha256(f"{name}:{n}".encode()).hexdigest()[:16]
        if swept_slot(digest):
            return digest
        n += 1
