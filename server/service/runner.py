"""The command pipeline: decide on the cached state, append at its version, and on a conflict
fast-forward and decide again, a bounded number of times; a retry the game would now refuse is
answered with its recorded outcome. After a commit the lobby hears of it (its failure never
changes the answer)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from domain import Command, RuleViolation, State
from server.clock import Clock
from server.codec import encode_events
from server.errors import TooManyConflicts, Unauthorized, VersionConflict
from server.lobby import Lobby
from server.players.projection import PlayerProjection
from server.service.deciding import decide_all, decide_owed
from server.service.idempotency import EarlierOutcomes, fingerprint_of, same_command
from server.service.results import CommandResult
from server.service.state_cache import Cached, StateCache
from server.service.thinking import Thinker
from server.store import Due, EventStore, StoreRegressed

__all__ = ["CommandRunner"]

_log = logging.getLogger("allfours.service")


class CommandRunner:
    def __init__(
        self,
        store: EventStore,
        cache: StateCache,
        lobby: Lobby | None,
        *,
        clock: Clock,
        max_attempts: int,
        thinker: Thinker,
        players: PlayerProjection | None = None,
    ) -> None:
        self._store = store
        self._players = players
        self._cache = cache
        self._lobby = lobby
        self._clock = clock
        self._max_attempts = max_attempts
        self._thinker = thinker
        self._earlier = EarlierOutcomes(store)

    async def run(
        self,
        game_id: str,
        commands: Sequence[Command],
        command_id: str | None = None,
        expected_version: int | None = None,
        *,
        seat_token: tuple[int | str, str] | None = None,
        required_token: tuple[int | str, str] | None = None,
    ) -> CommandResult:
        """Decide ``commands`` (and what the game then owes itself) and store them all in one
        append. ``command_id`` makes it idempotent; ``expected_version`` refuses it (409) unless
        the game is there; ``seat_token`` = (seat, hash) is stored with the events (a seating);
        ``required_token`` must hold its seat when they are stored (401 else)."""
        fingerprint = fingerprint_of(commands) if command_id is not None else ""
        entry = await self._cache.cached_or_load(game_id)
        for _ in range(self._max_attempts):
            if expected_version is not None and expected_version != entry.state.version:
                entry = await self._cache.fresh(game_id)
                if expected_version != entry.state.version:
                    earlier = await self._earlier.of(
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
                result = await self.append_decided(
                    game_id,
                    entry,
                    commands,
                    command_id,
                    seat_token,
                    fingerprint,
                    required_token=required_token,
                )
            except StoreRegressed:
                entry = await self._cache.fresh(game_id)
                continue
            except RuleViolation:
                # A retry of a command that went through is refused by the game as it is now
                # (the card was already played): answer it as the duplicate it is.
                earlier = await self._earlier.of(game_id, command_id, fingerprint, required_token)
                if earlier is not None:
                    return earlier
                # Our cache may be behind another instance's writes: judge on fresh state.
                fresh = await self._cache.fresh(game_id)
                if fresh.state.version == entry.state.version:
                    raise
                entry = fresh
                continue
            if result is not None:
                return result
            entry = await self._cache.fresh(game_id)
        raise TooManyConflicts(f"game {game_id} is too busy; retry")

    async def append_decided(
        self,
        game_id: str,
        entry: Cached,
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
        at = self._clock() if now is None else now
        state, events = decide_all(entry.state, commands, at)
        state, owed = await decide_owed(state, entry.seed, at, self._thinker)
        events.extend(owed)
        base = entry.state.version
        if not events:  # nothing was owed: an empty range, nothing stored
            return CommandResult(game_id, base + 1, base)
        stored = encode_events(events)
        outcome = await self._store.append(
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
            self._cache.remember(game_id, Cached(state, entry.seed))
            if base == 0 or Lobby.listing_changed(entry.state, state):
                await self._note_listing(game_id, state, new=base == 0)
            if self._players is not None and PlayerProjection.concerned(entry.state, state):
                await self._players.note(game_id, entry.state, state, at)
            return CommandResult(game_id, base + 1, outcome.version, stored=tuple(stored))
        if outcome.status == "duplicate":
            same_command(outcome, fingerprint)
            return CommandResult(game_id, outcome.first_version, outcome.version, duplicate=True)
        if outcome.status == "rejected":
            raise Unauthorized("this seat token no longer holds the seat")
        return None

    async def _note_listing(self, game_id: str, state: State, *, new: bool = False) -> None:
        """Update the lobby after a stored command. The command stands whatever happens here:
        a failure is logged, and the listing is repaired by the game's next change (or by
        rebuilding the lobby from the streams)."""
        if self._lobby is None:
            return
        try:
            await self._lobby.note(game_id, state, new=new)
        except Exception:
            # Whatever failed (Redis, or a bug), the command was stored: never answer it
            # with an error. Logged with its traceback, repaired by a later note or rebuild.
            _log.warning("lobby update failed for game %s", game_id, exc_info=True)
