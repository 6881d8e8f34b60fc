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
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec

from domain import (
    BOTS,
    Command,
    Event,
    Join,
    PlayerCommand,
    Rules,
    RuleViolation,
    State,
    execute,
    fold,
    view,
)
from domain.autoplay import due_system_command, opening_commands
from server.codec import decode_event, encode_stamped
from server.errors import GameNotFound, IdempotencyKeyReused, TooManyConflicts, VersionConflict
from server.lobby import GamePage, Lobby, Status
from server.store import AppendResult, EventStore, StoredEvent, StoreRegressed
from server.tokens import new_token, token_hash

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


class SeatGrant(msgspec.Struct, frozen=True):
    game_id: str
    seat: int
    token: str
    version: int


@dataclass(slots=True)
class _Cached:
    state: State
    seed: str


def new_game_id() -> str:
    return secrets.token_hex(8)


def _now_ms() -> int:
    return int(time.time() * 1000)


class GameService:
    def __init__(
        self,
        store: EventStore,
        lobby: Lobby | None = None,
        *,
        cache_size: int = 10_000,
        max_attempts: int = 16,
    ) -> None:
        self.store = store
        self.lobby = lobby
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        self._cache_size = cache_size
        self._max_attempts = max_attempts

    # --- reading -----------------------------------------------------------------------------

    async def state(self, game_id: str) -> State:
        """The game's current state (fast-forwarded from the store)."""
        return (await self._fresh(game_id)).state

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
        self, rules: Rules, bots: Sequence[str | None], idempotency_key: str | None = None
    ) -> CommandResult:
        """Create a game; seats with a bot kind are filled at once. With all four seats bots
        the whole game is played out before this returns."""
        for kind in bots:
            if kind is not None and kind not in BOTS:
                raise ValueError(f"unknown bot kind {kind!r}")
        game_id = new_game_id() if idempotency_key is None else _id_for_key(idempotency_key)
        # The seed is stored (and kept) before anything else: a retried creation reuses it.
        seed = await self.store.put_secret(game_id, secrets.token_hex(32))
        names = [f"{kind} bot" if kind else "" for kind in bots]
        commands = [
            c
            for c in opening_commands(seed, rules, names, list(bots))
            if not isinstance(c, Join) or c.bot is not None
        ]
        entry = _Cached(State(), seed)
        created = await self._append_decided(
            game_id, entry, commands, idempotency_key, None, _fingerprint(commands)
        )
        if created is None:  # the id exists without this key: a 64-bit collision, or tampering
            raise TooManyConflicts(f"game id {game_id} is taken; retry")
        return created

    async def take_seat(self, game_id: str, seat: int, name: str) -> SeatGrant:
        """Seat a person; returns the seat token (shown this once: only its hash is kept)."""
        token = new_token(game_id, seat)
        result = await self.run(
            game_id, [Join(seat, name, None)], seat_token=(seat, token_hash(token))
        )
        return SeatGrant(game_id, seat, token, result.version)

    async def add_bot(self, game_id: str, seat: int, kind: str) -> CommandResult:
        if kind not in BOTS:
            raise ValueError(f"unknown bot kind {kind!r}")
        return await self.run(game_id, [Join(seat, f"{kind} bot", kind)])

    async def play(
        self,
        game_id: str,
        command: PlayerCommand,
        command_id: str | None = None,
        expected_version: int | None = None,
    ) -> CommandResult:
        """A player's command (its seat already authenticated)."""
        return await self.run(game_id, [command], command_id, expected_version)

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
        seat_token: tuple[int, str] | None = None,
    ) -> CommandResult:
        fingerprint = _fingerprint(commands) if command_id is not None else ""
        entry = await self._cached_or_load(game_id)
        for _ in range(self._max_attempts):
            if expected_version is not None and expected_version != entry.state.version:
                entry = await self._fresh(game_id)
                if expected_version != entry.state.version:
                    earlier = await self._earlier_outcome(game_id, command_id, fingerprint)
                    if earlier is not None:
                        return earlier
                    raise VersionConflict(
                        f"expected version {expected_version}, the game is at "
                        f"{entry.state.version}",
                        entry.state.version,
                    )
            try:
                result = await self._append_decided(
                    game_id, entry, commands, command_id, seat_token, fingerprint
                )
            except StoreRegressed:
                entry = await self._fresh(game_id)
                continue
            except RuleViolation:
                # A retry of a command that went through is refused by the game as it is now
                # (the card was already played): answer it as the duplicate it is.
                earlier = await self._earlier_outcome(game_id, command_id, fingerprint)
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
        self, game_id: str, command_id: str | None, fingerprint: str
    ) -> CommandResult | None:
        if command_id is None:
            return None
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
        seat_token: tuple[int, str] | None,
        fingerprint: str = "",
    ) -> CommandResult | None:
        """Decide ``commands`` and what follows from them, and append it all at the state's
        version. None on a conflict (the caller fast-forwards and tries again)."""
        state, events = _decide_all(entry.state, commands)
        state, owed = _decide_owed(state, entry.seed)
        events.extend(owed)
        base = entry.state.version
        if not events:  # nothing was owed: an empty range, nothing stored
            return CommandResult(game_id, base + 1, base)
        stored = encode_stamped(events, _now_ms())
        outcome = await self.store.append(
            game_id, base, stored, command_id, seat_token=seat_token, fingerprint=fingerprint
        )
        if outcome.status == "ok":
            self._remember(game_id, _Cached(state, entry.seed))
            if self.lobby is not None and Lobby.listing_changed(entry.state, state):
                await self.lobby.note(game_id, state)
            return CommandResult(game_id, base + 1, outcome.version, stored=tuple(stored))
        if outcome.status == "duplicate":
            _same_command(outcome, fingerprint)
            return CommandResult(game_id, outcome.first_version, outcome.version, duplicate=True)
        return None

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


def _decide_all(state: State, commands: Sequence[Command]) -> tuple[State, list[Event]]:
    events: list[Event] = []
    for command in commands:
        state, produced = execute(state, command)
        events.extend(produced)
    return state, events


def _decide_owed(state: State, seed: str) -> tuple[State, list[Event]]:
    """Everything the game does by itself from ``state`` until a person must act."""
    events: list[Event] = []
    while True:
        command: Command | None = due_system_command(state, seed)
        if command is None:
            seat = state.to_act
            if seat is None:
                return state, events
            player = state.players[seat]
            if player is None or player.bot is None:
                return state, events
            bot: Callable[..., Command] = BOTS[player.bot]
            command = bot(view(state, seat), _bot_rng)
        state, produced = execute(state, command)
        events.extend(produced)


def _id_for_key(idempotency_key: str) -> str:
    """A retried creation with the same key names the same game, so it cannot create two."""
    return hashlib.sha256(b"create:" + idempotency_key.encode()).hexdigest()[:16]
