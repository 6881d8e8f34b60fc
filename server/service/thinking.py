"""Bots' decisions, the searching levels off the event loop.

A ``strong`` or ``master`` decision is tens of milliseconds of CPU (compiled code holding the
GIL): made on the server's event loop it would hold up every other request of the process, so
those run in worker processes (``ALLFOURS_BOT_WORKERS``), the state pickled over. The cheap
levels decide in place. A decision that fails, or takes longer than ``timeout_s``, falls back
to the heuristic bot, so a slow or crashed worker never stalls a table; a broken pool is
replaced for the next decision. A hint or an analysis has no fallback: it is refused (503
``bots_busy``) and the person may ask again. When the server begins to shut down, every search
in flight ends at once (a decision with the heuristic's move, a hint or analysis with 503
``unavailable``): none holds a request, and so the server, for its whole grace period.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, TypeVar

from domain import (
    Beg,
    CardPlayed,
    Event,
    GiveOne,
    Play,
    PlayerCommand,
    RunPack,
    Stand,
    State,
    evolve,
    hints,
)
from domain.bots import BOTS, heuristic_bot
from domain.sight import bot_view
from server.errors import BotsBusy, ShuttingDown

__all__ = ["SEARCHING", "Move", "Thinker"]

T = TypeVar("T")

Move = tuple[int, int, PlayerCommand, float, PlayerCommand, float]
"""An analysed decision: its version, the seat, the action played and its chance to win, the
search's preferred action and its chance."""

_ANALYSIS_TIMEOUT_S: Final = 120.0
"""A whole game's analysis: about a hundred searches."""

SEARCHING: Final = frozenset({"strong", "master"})
"""The levels that search, decided in a worker."""

_log = logging.getLogger("allfours.bots")
_seeds = random.SystemRandom()
"""Each decision's rng is seeded afresh: never from the deck's seed, which it must not hint at."""


WORKER_NICENESS: Final = 19
"""Where the idle scheduling class is not to be had, bot workers run at the lowest nice
priority instead (about 1.5% of a core against a busy process at nice 0)."""


PARENT_CHECK_S: Final = 1.0
"""How often a bot worker checks that its server is still there."""


def _yield_to_requests() -> None:
    """Bot workers get a core only when nothing else wants it: Linux's ``SCHED_IDLE`` class,
    else the lowest nice priority. On a busy machine a person's command is answered first and
    a search waits; a search that waits past the decision's timeout is the heuristic's move,
    so a starved worker slows no table by more than that. (Nice 10 left persons' command p99
    at 1.41x beside 200 search-bot games on two cores: a niced process still takes about a
    tenth of a core from a busy one.)"""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):  # not Linux, or refused: a nice value is always allowed
        os.nice(WORKER_NICENESS)


def _start_worker(server: int) -> None:
    """A worker's start: the lowest priority, and an end when its server (process ``server``)
    ends. A server killed with SIGKILL never shuts its pool down, and its workers would
    otherwise wait for work forever (one set per crash, on a machine without containers to
    reap them). The server's pid is passed in: it may be gone before this runs."""
    _yield_to_requests()

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)  # orphaned: nothing here is the server's to save

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def decide(state: State, seat: int, kind: str, seed: int) -> PlayerCommand:
    """The decision of the ``kind`` bot for ``seat``, from that seat's view only (run in a
    worker for the searching levels)."""
    return BOTS[kind](bot_view(state, seat), random.Random(seed))  # noqa: S311  # play, not secrets


def rank(state: State, seat: int, seed: int) -> tuple[tuple[PlayerCommand, float], ...]:
    """Every legal action of ``seat`` with the ``master`` search's chance of winning after it,
    best first, from that seat's view only (run in a worker)."""
    return hints(bot_view(state, seat), random.Random(seed), level="master")  # noqa: S311


class Thinker:
    """Decides bots' moves; ``workers`` processes for the searching levels (0: one thread of
    this process, which keeps the loop free but shares its core and its GIL)."""

    def __init__(self, workers: int = 1, timeout_s: float = 5.0) -> None:
        self._workers = workers
        self._timeout_s = timeout_s
        self._pool: Executor | None = None
        self._waiting: set[asyncio.Future[Any]] = set()
        """The answers awaited from the workers now (ended by ``stop``)."""
        self._stopped = False
        self._warming: Future[int] | None = None
        """The first work given to the workers (``warm``): done once they are up."""
        self.decisions = 0
        """Decisions made in the pool."""
        self.fallbacks = 0
        """Decisions the heuristic made because the pool failed or was too slow (each also
        logged as a warning)."""

    def _executor(self) -> Executor:
        if self._pool is None:
            if self._workers:
                # spawn: a forked child of an asyncio server would inherit its threads' locks.
                context = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(
                    self._workers,
                    mp_context=context,
                    initializer=_start_worker,
                    initargs=(os.getpid(),),
                )
            else:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="bots")
        return self._pool

    async def _in_worker(self, timeout_s: float, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in a worker; a broken pool (a worker died) is dropped, so the next
        call starts a fresh one. ``ShuttingDown`` once ``stop`` was called, or if it is
        called while this waits."""
        if self._stopped:
            raise ShuttingDown("the server is shutting down")
        future = asyncio.get_running_loop().run_in_executor(self._executor(), work, *args)
        self._waiting.add(future)
        try:
            return await asyncio.wait_for(future, timeout_s)
        except BrokenProcessPool:
            self._pool = None
            raise
        except asyncio.CancelledError:
            # The answer was cancelled by ``stop``, not this task (which is left to end).
            if self._stopped and not _cancelling():
                raise ShuttingDown("the server is shutting down") from None
            raise
        finally:
            self._waiting.discard(future)

    async def _asked(self, timeout_s: float, work: Callable[..., T], *args: Any) -> T:
        """A search a person asked for: with no move to fall back on, a worker that fails or
        is too slow is a 503 (``bots_busy``) they may retry, never a 500."""
        try:
            return await self._in_worker(timeout_s, work, *args)
        except (TimeoutError, BrokenProcessPool, OSError) as error:
            _log.warning("a search for a person failed: %r", error)
            raise BotsBusy("the bot workers are busy: ask again in a moment") from None

    async def decide(self, state: State, seat: int, kind: str) -> PlayerCommand:
        seed = _seeds.getrandbits(64)
        if kind not in SEARCHING:
            return decide(state, seat, kind, seed)
        try:
            command = await self._in_worker(self._timeout_s, decide, state, seat, kind, seed)
        except (TimeoutError, BrokenProcessPool, OSError, ShuttingDown) as error:
            self.fallbacks += 1
            _log.warning("bot %s fell back to the heuristic: %r", kind, error)
            return heuristic_bot(bot_view(state, seat), random.Random(seed))  # noqa: S311
        self.decisions += 1
        return command

    async def hints(self, state: State, seat: int) -> tuple[tuple[PlayerCommand, float], ...]:
        """The seat's hints (``rank``), searched in a worker; none while it is not to act."""
        if state.to_act != seat or state.phase == "ended":
            return ()
        return await self._asked(self._timeout_s, rank, state, seat, _seeds.getrandbits(64))

    async def analyse(self, log: Sequence[Event]) -> tuple[Move, ...]:
        """A finished game's decisions beside the search's (``analyse``), in a worker."""
        return await self._asked(_ANALYSIS_TIMEOUT_S, analyse, tuple(log), _seeds.getrandbits(64))

    def warm(self) -> None:
        """Starts the workers now (a spawned process imports the engine for a second or so),
        so the first search of a table does not wait for it: until they are up, ``ready`` is
        False (``/readyz`` says so), where the first table's first seat answered in 0.7 s."""
        if self._workers:
            started = time.monotonic()
            self._warming = self._executor().submit(int)
            self._warming.add_done_callback(
                lambda _: _log.info(
                    "%d bot worker(s) up in %.1f s", self._workers, time.monotonic() - started
                )
            )

    @property
    def ready(self) -> bool:
        """Whether the workers started by ``warm`` are up, or failed to start (decisions then
        fall back, hints and analyses answer 503): nothing left to wait for."""
        return self._warming is None or self._warming.done()

    def stop(self) -> None:
        """Ends every search in flight now and refuses new ones (see the module's text): the
        server is shutting down. Decisions go on with the heuristic."""
        self._stopped = True
        for future in list(self._waiting):
            future.cancel()

    def close(self) -> None:
        """Stops the searches and the workers themselves: a search already running in a worker
        would otherwise hold the process's exit until it ended (up to an analysis's 120 s,
        past a process manager's patience), as the interpreter waits for its pool's work."""
        self.stop()
        if self._pool is not None:
            # (ProcessPoolExecutor's processes: no public way to end them before Python 3.14)
            workers = list(getattr(self._pool, "_processes", {}).values())
            self._pool.shutdown(wait=False, cancel_futures=True)
            _let_the_pool_drop_cancelled_work(self._pool)
            for worker in workers:
                worker.terminate()
            self._pool = None


def _let_the_pool_drop_cancelled_work(pool: Executor, patience_s: float = 1.0) -> None:
    """Waits (briefly) for a process pool's own thread to drop the work that was given up
    (cancelled) while it waited for a worker. Its processes must not end before: Python 3.11's
    pool, finding them gone, marks all its waiting work failed, and raised in its thread (a
    traceback at shutdown) on a piece already cancelled."""
    deadline = time.monotonic() + patience_s
    while getattr(pool, "_cancel_pending_futures", False) and time.monotonic() < deadline:
        time.sleep(0.005)


def _cancelling() -> bool:
    """Whether the running task itself is being cancelled (not only what it awaits)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


_DECISIONS: Final[dict[str, type[Stand | Beg | GiveOne | RunPack]]] = {
    "Stood": Stand,
    "Begged": Beg,
    "GaveOne": GiveOne,
    "PackRun": RunPack,
}


def _played(event: Event, seat: int) -> PlayerCommand | None:
    """The decision an event records, as the command that made it; None for other events."""
    if isinstance(event, CardPlayed):
        return Play(seat=seat, card=event.card)
    made = _DECISIONS.get(type(event).__name__)
    return None if made is None else made(seat=seat)


def analyse(log: Sequence[Event], seed: int) -> tuple[Move, ...]:
    """Each real choice of a finished game (more than one legal action): the action played and
    the ``strong`` search's preferred one for that seat, with their chances to win, from the
    seat's sight at that moment (run in a worker)."""
    rng = random.Random(seed)  # noqa: S311
    state = State()
    moves: list[Move] = []
    for version, event in enumerate(log, 1):
        seat = getattr(event, "seat", None)
        played = None if seat is None or state.to_act != seat else _played(event, seat)
        if seat is not None and played is not None:
            sight = bot_view(state, seat)
            if len(sight.legal_actions) > 1:
                ranked = dict(hints(sight, rng, level="strong"))
                best = max(ranked, key=ranked.__getitem__)
                moves.append((version, seat, played, ranked[played], best, ranked[best]))
        state = evolve(state, event)
    return tuple(moves)
