"""Search bots in the service: their decisions are made in a worker process, off the event
loop; a decision that is too slow falls back to the heuristic and the game goes on; an away
person's seat is played at the table's stand-in level."""

from __future__ import annotations

import asyncio
import os

import pytest

from domain import Event, Rules, fold, verify
from server.codec import decode_event
from server.errors import BotsBusy, ShuttingDown
from server.lobby import Lobby
from server.service import GameService, TableOptions, Thinker
from server.service.thinking import decide
from server.store import RedisEventStore

pytestmark = pytest.mark.backends


async def test_strong_bots_play_a_whole_game_in_a_worker_process(store: RedisEventStore) -> None:
    thinker = Thinker(workers=1)
    service = GameService(store, Lobby(store), thinker=thinker)
    try:
        created = await service.create_game(
            Rules(target=5), ["strong", "master", "strong", "heuristic"]
        )
        state = await service.state(created.game_id)
        assert state.phase == "ended" and state.seed is not None
        log = [decode_event(e.data) for e in await service.read_events(created.game_id)]
        assert fold(log) == state and verify(log).ok
        assert thinker.decisions > 0 and thinker.fallbacks == 0
        # Where they were made: a worker of the pool, not this process.
        pool = thinker._executor()
        pids = await asyncio.get_running_loop().run_in_executor(pool, os.getpid)
        assert pids != os.getpid()
    finally:
        thinker.close()


async def test_a_decision_too_slow_falls_back_to_the_heuristic(store: RedisEventStore) -> None:
    thinker = Thinker(workers=1, timeout_s=0.0)  # no search can answer in no time
    service = GameService(store, Lobby(store), thinker=thinker)
    try:
        # A target above a kick's 3 points: the game cannot end on the first kick, before
        # the begger's (a bot's) first decision, so at least one decision falls back.
        created = await service.create_game(Rules(target=7), ["strong"] * 4)
        state = await service.state(created.game_id)
        assert state.phase == "ended"  # the table never stalled
        assert thinker.fallbacks > 0 and thinker.decisions == 0
    finally:
        thinker.close()


async def test_an_away_seat_is_played_at_the_tables_stand_in_level(
    store: RedisEventStore,
) -> None:
    service = GameService(
        store, Lobby(store), table=TableOptions(stand_in="master", pause_when_absent=False)
    )
    created = await service.create_game(Rules(), [None, "heuristic", "heuristic", "heuristic"])
    state = await service.state(created.game_id)
    assert state.stand_in == "master"
    log = [decode_event(e.data) for e in await service.read_events(created.game_id)]
    assert log[0].stand_in == "master"  # recorded in GameCreated, so a replay agrees


def test_the_worker_decides_from_the_state_it_is_sent() -> None:
    """A state travels to the worker pickled and comes back the same: the decision there is
    the one this process would make with the same seed."""
    import pickle

    from domain.autoplay import play_game

    _, log = play_game("ab" * 32, bots=("heuristic",) * 4)
    for n in range(30, len(log)):
        state = fold(log[:n])
        if state.to_act is not None and state.phase in ("begging", "playing"):
            break
    seat = state.to_act
    assert seat is not None
    copy = pickle.loads(pickle.dumps(state))
    assert copy == state
    assert decide(copy, seat, "strong", 7) == decide(state, seat, "strong", 7)


async def test_a_worker_killed_mid_decision_loses_nothing() -> None:
    """The heuristic decides instead, and the next decision gets a fresh pool."""
    import signal

    from domain import legal_actions
    from domain.autoplay import play_game

    _, log = play_game("cd" * 32, bots=("heuristic",) * 4)
    state = next(
        s
        for n in range(30, len(log))
        if (s := fold(log[:n])).phase == "playing" and s.to_act is not None
    )
    seat = state.to_act
    assert seat is not None
    thinker = Thinker(workers=1)
    try:
        loop = asyncio.get_running_loop()
        pid = await loop.run_in_executor(thinker._executor(), os.getpid)
        deciding = asyncio.create_task(thinker.decide(state, seat, "master"))
        await asyncio.sleep(0)  # submitted to the worker
        os.kill(pid, signal.SIGKILL)
        command = await deciding
        assert command in legal_actions(state, seat)
        assert thinker.fallbacks == 1
        again = await thinker.decide(state, seat, "strong")  # a new pool, a real search
        assert again in legal_actions(state, seat) and thinker.decisions == 1
    finally:
        thinker.close()


async def test_bot_workers_yield_the_cpu_to_requests() -> None:
    """A worker runs in the idle scheduling class (or, where that is refused, at the lowest
    nice priority), so a busy machine answers requests first and searches after."""
    thinker = Thinker(workers=1)
    try:
        loop = asyncio.get_running_loop()
        policy = await loop.run_in_executor(thinker._executor(), os.sched_getscheduler, 0)
        niceness = await loop.run_in_executor(thinker._executor(), os.nice, 0)
        assert policy == os.SCHED_IDLE or niceness == 19
        assert os.sched_getscheduler(0) != os.SCHED_IDLE  # the server itself keeps its class
    finally:
        thinker.close()


def _long_game_log() -> tuple[Event, ...]:
    """A whole game to 21 of four heuristic bots: hundreds of decisions, so that its analysis
    (a strong search for each) takes seconds."""
    from domain.autoplay import play_game

    _, log = play_game("ef" * 32, bots=("heuristic",) * 4, rules=Rules(target=21))
    return tuple(log)


async def test_a_search_asked_for_that_fails_is_refused_not_a_crash() -> None:
    """A hint or an analysis has no heuristic to fall back on: a worker too slow is 503
    ``bots_busy`` (retry), not a 500."""
    thinker = Thinker(workers=1, timeout_s=0.0)  # no search can answer in no time
    log = _long_game_log()
    state = next(s for n in range(30, len(log)) if (s := fold(log[:n])).to_act is not None)
    seat = state.to_act
    assert seat is not None
    try:
        with pytest.raises(BotsBusy):
            await thinker.hints(state, seat)
    finally:
        thinker.close()


async def test_the_thinker_is_ready_once_its_workers_are_up() -> None:
    """``warm`` starts the worker process; ``ready`` (what ``/readyz`` asks) is False until
    it has answered, and True for a thinker with nothing started."""
    assert Thinker(workers=0).ready
    thinker = Thinker(workers=1)
    try:
        assert thinker.ready  # nothing started: nothing to wait for
        thinker.warm()
        assert not thinker.ready  # a spawned process takes a while to start
        for _ in range(600):
            if thinker.ready:
                break
            await asyncio.sleep(0.05)
        assert thinker.ready, "the worker never came up"
    finally:
        thinker.close()


async def test_stopping_ends_the_searches_in_flight_at_once() -> None:
    """At shutdown an analysis in flight ends now (503 ``unavailable``), where it held the
    request, and the server with it, for seconds; decisions go on with the heuristic."""
    from domain import legal_actions

    thinker = Thinker(workers=1)
    log = _long_game_log()
    try:
        thinker.warm()
        analysing = asyncio.create_task(thinker.analyse(log))
        await asyncio.sleep(0.3)
        assert not analysing.done()  # (a game to 21 takes seconds to analyse)
        thinker.stop()
        with pytest.raises(ShuttingDown):
            await asyncio.wait_for(analysing, 1.0)
        state = next(s for n in range(30, len(log)) if (s := fold(log[:n])).to_act is not None)
        seat = state.to_act
        assert seat is not None
        assert await thinker.decide(state, seat, "master") in legal_actions(state, seat)
        assert thinker.fallbacks == 1 and thinker.decisions == 0
        with pytest.raises(ShuttingDown):
            await thinker.hints(state, seat)
    finally:
        thinker.close()


async def test_closing_with_searches_given_up_waiting_raises_nowhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Searches waiting for the one worker and given up (timed out, their tasks cancelled)
    are still the pool's when it is closed: its processes are then ended while the pool's own
    thread would mark those searches failed, which raised in that thread (Python 3.11's
    ``terminate_broken`` sets an exception on a cancelled future) and printed a traceback at
    every such shutdown. The close lets the pool drop them first."""
    import threading

    raised: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda hook: raised.append(hook.exc_value))
    thinker = Thinker(workers=1)
    log = _long_game_log()
    state = next(s for n in range(30, len(log)) if (s := fold(log[:n])).to_act is not None)
    seat = state.to_act
    assert seat is not None
    try:
        thinker.warm()
        running = asyncio.create_task(thinker.analyse(log))  # holds the worker for seconds
        waiting = [asyncio.create_task(thinker.hints(state, seat)) for _ in range(8)]
        await asyncio.sleep(0.5)
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        await asyncio.sleep(0.1)  # (the cancellations reach the pool's futures)
    finally:
        thinker.close()
    await asyncio.gather(running, return_exceptions=True)
    for thread in threading.enumerate():
        if type(thread).__name__ == "_ExecutorManagerThread":
            thread.join(5)
    assert raised == [], [repr(e) for e in raised]
