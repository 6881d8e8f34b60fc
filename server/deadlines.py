"""The deadline sweeper: what makes time pass in games nobody touches.

Every game's next moment of "time alone changes it" (a person's turn deadline, an away person's
seat due to be played at the table's pace, an idle table's closing, or the expiry of a table
still waiting for players) is kept in a due-index in Redis, written by the very append
that set it (see :mod:`server.store.lua`). Every instance runs one sweeper: it reads what is
due and asks the service to fire it. The index only suggests; the game's log decides: the
service re-reads the game, checks the deadline really passed at that version, and appends the
timeout at that version under a command id naming it. So a move that lands first wins, two
sweepers racing on one deadline store it once, and an instance killed with deadlines pending
loses nothing: another instance's sweeper finds them in the index.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from domain import Command, Expire, RuleViolation, State, TimeOut
from server.errors import ServiceError, VersionConflict
from server.service import CommandResult, GameService
from server.store import Due, EventStore, StoreUnavailable

_log = logging.getLogger("allfours.deadlines")

__all__ = ["DeadlineSweeper", "fire_due"]


async def fire_due(service: GameService, game_id: str) -> CommandResult | None:
    """Do what time alone does to the game now (a turn's timeout, or a waiting table's
    expiry), if it is due: decided on the game's version as stored, and appended at that
    version with a command id naming it, so a move that lands first wins and two instances
    can never fire the same timeout twice. None when nothing was due (the game's due-index
    entry is corrected then: only if the game is still at the version it was judged on)."""
    now = service.clock()
    state = await service.state(game_id)
    due = state.wakeup_at
    commands = _due_commands(state)
    if commands is None or due is None or now < due:
        await service.store.fix_due(game_id, state.version, Due(due))
        return None
    try:
        return await service.run(
            game_id, commands, f"due:{state.version}", expected_version=state.version
        )
    except (VersionConflict, RuleViolation):
        return None  # someone moved first: the new state has its own deadline


def _due_commands(state: State) -> list[Command] | None:
    """What time alone does to the game once its ``wakeup_at`` comes: close a table waiting
    for players, or an idle one; time out the person to act; or nothing but what the game
    then owes itself (an away person's seat played at the table's pace). None: nothing."""
    if state.phase == "seating":
        return None if state.expires_at is None else [Expire()]
    if state.idle_expires_at is not None:
        return [Expire()]
    if state.deadline is not None and state.to_act is not None:
        return [TimeOut(state.to_act)]
    if state.away_due_at is not None:
        return []
    return None


class DeadlineSweeper:
    """One per process. ``sweep_once`` is one pass (tests call it with their own clock);
    ``run`` is only the loop around it."""

    def __init__(
        self,
        service: GameService,
        store: EventStore,
        *,
        clock: Callable[[], int],
        interval_s: float = 0.25,
        batch: int = 200,
        concurrency: int = 32,
        slots_per_pass: int = 64,
    ) -> None:
        self._service = service
        self._store = store
        self._clock = clock
        self._interval_s = interval_s
        self._batch = batch
        self._concurrency = asyncio.Semaphore(concurrency)
        self._slots_per_pass = slots_per_pass
        self._next_slot = 0
        self._stopping = asyncio.Event()

    async def sweep_once(self, now_ms: int | None = None) -> int:
        """Fire whatever is due at ``now_ms`` (default: the clock). Returns how many
        timeouts or expiries this pass stored."""
        return (await self._pass(now_ms))[1]

    async def _pass(self, now_ms: int | None) -> tuple[int, int]:
        """One pass: (entries found due, timeouts or expiries stored). On a cluster each pass
        also reads the due-indexes of ``slots_per_pass`` more slots, going round all 16384
        (every 256 passes, about a minute, with the defaults), for games whose ids have other
        slots."""
        now = self._clock() if now_ms is None else now_ms
        first = self._next_slot
        self._next_slot = (first + self._slots_per_pass) % 16384
        slots = range(first, min(first + self._slots_per_pass, 16384))
        due = await self._store.due_games(now, self._batch, slots=slots)
        fired = await asyncio.gather(*(self._fire(game_id) for game_id, _ in due))
        return len(due), sum(fired)

    async def _fire(self, game_id: str) -> int:
        async with self._concurrency:
            try:
                result = await fire_due(self._service, game_id)
            except ServiceError:
                # The game is gone or busy: the index entry stays, the next pass tries again.
                _log.info("could not fire the deadline of game %s", game_id, exc_info=True)
                return 0
        return 0 if result is None or result.duplicate else 1

    async def run(self) -> None:
        """Sweep until ``stop``. Errors are logged (with their traceback unless Redis is
        merely unavailable) and the loop backs off, so one bad game never stops the clock."""
        backoff = self._interval_s
        while not self._stopping.is_set():
            try:
                found, _ = await self._pass(None)
                backoff = self._interval_s
                if found >= self._batch:
                    continue  # more may be due already: no pause while behind
            except StoreUnavailable as exc:
                _log.warning("deadline sweep: %s", exc)
                backoff = min(backoff * 2, 5.0)
            except Exception:
                _log.exception("deadline sweep failed")
                backoff = min(backoff * 2, 5.0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), backoff)

    def stop(self) -> None:
        """End ``run`` after the pass in progress (no cancellation inside a Redis call)."""
        self._stopping.set()
