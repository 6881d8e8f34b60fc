"""The table lifecycle on real Redis, with the clock injected (nothing here sleeps): deadlines
in the due-index, sweepers firing them (racing each other and last-moment moves), expiry,
leaving, lost seating answers, rematches."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest

from domain import (
    Event,
    GameAborted,
    Leave,
    RematchCreated,
    Rules,
    RuleViolation,
    SeatAway,
    StepAway,
    TurnTimedOut,
    fold,
    legal_actions,
    verify,
)
from server.codec import decode_event
from server.deadlines import DeadlineSweeper
from server.errors import Unauthorized
from server.lobby import Lobby
from server.rematch import open_rematch
from server.service import GameService
from server.store import RedisEventStore, connect_store
from server.store.keys import due_key

sys.path.insert(0, str(Path(__file__).parents[1] / "domain"))
from referee import Referee

pytestmark = pytest.mark.backends  # on a Redis server and on a Redis Cluster

T0 = 1_800_000_000_000
CLOCK_S = 10


class Clock:
    """A clock the test moves by hand (ms since the epoch)."""

    def __init__(self, now: int = T0) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def make_service(store: RedisEventStore, clock: Clock) -> GameService:
    return GameService(
        store, Lobby(store), clock=clock, table_expiry_ms=60_000, rematch_hold_ms=30_000
    )


@pytest.fixture
async def service(store: RedisEventStore, clock: Clock) -> GameService:
    # The due-index is shared by every game in this Redis: start each test with it empty, so
    # that a sweep fires only this test's deadlines.
    for game, _ in await store.due_games(2**62, 100_000):
        await store.redis.zrem(due_key(game, cluster=store.cluster), game)
    return make_service(store, clock)


@pytest.fixture
async def others(redis_url: str, clock: Clock) -> AsyncIterator[list[GameService]]:
    """Two more instances: own connections, own caches, the same Redis and clock."""
    stores = [connect_store(redis_url), connect_store(redis_url)]
    yield [make_service(s, clock) for s in stores]
    for s in stores:
        await s.aclose()


async def log_of(service: GameService, game_id: str) -> list[Event]:
    return [decode_event(e.data) for e in await service.read_events(game_id)]


def refereed(log: list[Event]) -> None:
    referee = Referee()
    referee.see_all(log)


async def due_score(store: RedisEventStore, game_id: str) -> int | None:
    score = await store.redis.zscore(due_key(game_id, cluster=store.cluster), game_id)
    return None if score is None else int(score)


async def table_with_one_person(service: GameService, *, seconds: int = CLOCK_S) -> str:
    """A game to 5 where the seated person (seat 0) has a decision, so a deadline, pending.
    Now and then kicks alone (a Jack is 3) take the bots' team to 5 before the person ever
    decides; such a deal proves nothing here, so a fresh table is set."""
    for _ in range(20):
        created = await service.create_game(
            Rules(target=5, turn_seconds=seconds), [None, "heuristic", "heuristic", "heuristic"]
        )
        await service.take_seat(created.game_id, 0, "ann")
        if (await service.state(created.game_id)).deadline is not None:
            return created.game_id
    raise AssertionError("20 tables in a row without a clocked decision for the person")


async def test_the_due_index_follows_every_command(service: GameService, clock: Clock) -> None:
    game = await table_with_one_person(service)
    state = await service.state(game)
    assert state.phase != "seating" and state.to_act == 0
    assert state.deadline == state.turn_at + CLOCK_S * 1000
    assert await due_score(service.store, game) == state.deadline  # type: ignore[arg-type]
    clock.now += 1_000
    await service.play(game, legal_actions(state, 0)[0])
    state = await service.state(game)
    expected = state.wakeup_at
    assert await due_score(service.store, game) == expected  # type: ignore[arg-type]
    assert fold(await log_of(service, game)) == state


async def test_an_abandoned_seat_pauses_the_game_until_it_is_closed_as_idle(
    service: GameService, clock: Clock
) -> None:
    """The lone person's two timeouts make them away: the game pauses (no bot plays their
    seat, no timeout fires) instead of finishing without them, and is closed as idle once
    nobody has played for the idle limit."""
    game = await table_with_one_person(service)
    sweeper = DeadlineSweeper(service, service.store, clock=clock)
    fired = 0
    for _ in range(50):
        if (await service.state(game)).paused:
            break
        assert await sweeper.sweep_once() == 0  # nothing is due before the deadline
        clock.now += CLOCK_S * 1000
        fired += await sweeper.sweep_once()
    paused = await service.state(game)
    assert paused.paused and paused.phase != "ended" and fired == 2
    log = await log_of(service, game)
    timeouts = [e for e in log if isinstance(e, TurnTimedOut)]
    assert [e for e in log if isinstance(e, SeatAway)] == [
        SeatAway(at=timeouts[1].at, seat=0, reason="timed_out")
    ]
    idle_at = paused.idle_expires_at
    assert idle_at is not None and await due_score(service.store, game) == idle_at
    clock.now = idle_at - 1
    assert await sweeper.sweep_once() == 0 and (await service.state(game)).version == paused.version
    clock.now = idle_at
    assert await sweeper.sweep_once() == 1
    state = await service.state(game)
    assert state.phase == "ended" and state.end_reason == "idle" and state.seed is not None
    log = await log_of(service, game)
    refereed(log)
    assert fold(log) == state
    assert verify(log).ok
    assert await due_score(service.store, game) is None


async def test_an_away_seat_among_people_is_played_at_the_tables_pace(
    service: GameService, clock: Clock
) -> None:
    """Ann steps away while Bob plays on: her seat's bot plays each of her turns 1.5 s after
    it came (fired by the sweeper), never at once and never all her moves in one step."""
    created = await service.create_game(
        Rules(target=5, turn_seconds=CLOCK_S), [None, None, "heuristic", "heuristic"]
    )
    game = created.game_id
    await service.take_seat(game, 0, "ann")
    await service.take_seat(game, 1, "bob")
    await service.play(game, StepAway(0))
    sweeper = DeadlineSweeper(service, service.store, clock=clock)
    paced = 0
    for _ in range(400):
        state = await service.state(game)
        if state.phase == "ended":
            break
        assert not state.paused  # Bob is there
        if state.to_act == 1:
            clock.now += 100
            await service.play(game, legal_actions(state, 1)[0])
            continue
        due = state.away_due_at
        assert due is not None, state.to_act
        clock.now = due - 1
        assert await sweeper.sweep_once() == 0
        clock.now = due
        assert await sweeper.sweep_once() == 1
        paced += 1
    log = await log_of(service, game)
    refereed(log)  # the referee checks every away move came at its pace, not before
    assert paced >= 3 and (await service.state(game)).phase == "ended"


async def test_racing_sweepers_fire_each_timeout_once(
    service: GameService, others: list[GameService], clock: Clock
) -> None:
    games = [await table_with_one_person(service) for _ in range(6)]
    sweepers = [DeadlineSweeper(s, s.store, clock=clock) for s in (service, *others)]
    clock.now += CLOCK_S * 1000
    fired = await asyncio.gather(*(s.sweep_once() for s in sweepers))
    assert sum(fired) == len(games)
    for game in games:
        log = await log_of(service, game)
        assert sum(isinstance(e, TurnTimedOut) for e in log) == 1
        refereed(log)


async def test_a_move_at_the_last_moment_and_the_timeout_race_and_one_wins(
    service: GameService, others: list[GameService], clock: Clock
) -> None:
    for _ in range(4):
        game = await table_with_one_person(service)
        state = await service.state(game)
        assert state.deadline is not None
        clock.now = state.deadline
        sweeper = DeadlineSweeper(others[0], others[0].store, clock=clock)
        move = legal_actions(state, 0)[0]
        results = await asyncio.gather(
            service.play(game, move, expected_version=state.version),
            sweeper.sweep_once(),
            return_exceptions=True,
        )
        log = await log_of(service, game)
        after = log[state.version :]
        timed_out = any(isinstance(e, TurnTimedOut) for e in after)
        played = not isinstance(results[0], BaseException)
        assert timed_out != played, results  # exactly one of the two was stored
        refereed(log)


async def test_an_instance_gone_with_deadlines_pending_loses_none(
    redis_url: str, service: GameService, clock: Clock
) -> None:
    gone = connect_store(redis_url)
    first = make_service(gone, clock)
    games = [await table_with_one_person(first) for _ in range(3)]
    await gone.aclose()  # the instance that created them is gone
    clock.now += CLOCK_S * 1000
    await DeadlineSweeper(service, service.store, clock=clock).sweep_once()
    for game in games:
        log = await log_of(service, game)
        state = fold(log)
        assert any(isinstance(e, TurnTimedOut) for e in log), (
            state.phase,
            state.to_act,
            state.deadline,
            clock.now,
            await due_score(service.store, game),
            [type(e).__name__ for e in log[-4:]],
        )


async def test_a_table_nobody_joins_is_listed_then_expires(
    service: GameService, clock: Clock
) -> None:
    created = await service.create_game(Rules(), [None, None, None, None])
    game = created.game_id
    listed = await service.list_games("open", None, 100)
    assert game in [g.game_id for g in listed.games]
    assert next(g for g in listed.games if g.game_id == game).open_seats == (0, 1, 2, 3)
    sweeper = DeadlineSweeper(service, service.store, clock=clock)
    clock.now += 59_999
    assert await sweeper.sweep_once() == 0
    clock.now += 1
    assert await sweeper.sweep_once() == 1
    log = await log_of(service, game)
    assert GameAborted(at=clock.now, reason="expired") in log
    state = await service.state(game)
    assert state.seed is not None  # revealed as at every end
    assert game not in [g.game_id for g in (await service.list_games("open", None, 100)).games]
    finished = await service.list_games("finished", None, 100)
    assert [g.end_reason for g in finished.games if g.game_id == game] == ["expired"]


async def test_a_lost_seating_answer_is_recovered_with_the_same_key(
    service: GameService, store: RedisEventStore
) -> None:
    created = await service.create_game(Rules(), [None, None, "random", "random"])
    game = created.game_id
    first = await service.take_seat(game, 0, "ann", idempotency_key="k-0123456789abcdef")
    again = await service.take_seat(game, 0, "ann", idempotency_key="k-0123456789abcdef")
    assert again.token == first.token and again.duplicate and not first.duplicate
    with pytest.raises(RuleViolation) as taken:
        await service.take_seat(game, 0, "eve", idempotency_key="k-eve-0123456789abc")
    assert taken.value.code == "seat_taken"
    with pytest.raises(RuleViolation):
        await service.take_seat(game, 0, "eve")
    # Only the token's hash is stored, and nothing of it is in the log.
    stored = await store.redis.hgetall(f"allfours:{{{game}}}:seats")
    assert first.token.encode() not in b"".join([*stored.keys(), *stored.values()])
    assert (
        first.token.split(".")[2] not in msgspec.json.encode(await log_of(service, game)).decode()
    )


async def test_a_left_seat_is_taken_over_and_the_old_token_is_refused(
    service: GameService, clock: Clock
) -> None:
    created = await service.create_game(Rules(), [None, "random", None, "random"])
    game = created.game_id
    ann = await service.take_seat(game, 0, "ann")
    await service.take_seat(game, 2, "cal")
    clock.now += 1
    await service.play(game, Leave(2))
    state = await service.state(game)
    assert state.players[2].left  # type: ignore[union-attr]
    with pytest.raises(RuleViolation) as gone:
        await service.play(game, Leave(2))
    assert gone.value.code == "not_a_person"
    await service.take_seat(game, 2, "dee")
    assert (await service.state(game)).players[2].name == "dee"  # type: ignore[union-attr]
    # ann's seat changes hands too: her old token no longer acts for it.
    await service.play(game, Leave(0), token=ann.token)
    bob = await service.take_seat(game, 0, "bob")
    state = await service.state(game)
    if state.to_act == 0:
        with pytest.raises(Unauthorized):
            await service.play(game, legal_actions(state, 0)[0], token=ann.token)
        await service.play(game, legal_actions(state, 0)[0], token=bob.token)


async def test_a_rematch_keeps_the_seats_for_their_people(
    service: GameService, clock: Clock
) -> None:
    # To 10: kicks alone never end it before the resignation (to 3 a Jack may).
    created = await service.create_game(Rules(target=10), [None, "heuristic", None, "random"])
    game = created.game_id
    await service.take_seat(game, 0, "ann")
    await service.take_seat(game, 2, "cal")
    from domain import Resign

    await service.play(game, Resign(0))
    rematch = await open_rematch(service, game)
    assert (await open_rematch(service, game)).game_id == rematch.game_id  # one for all
    old_log = await log_of(service, game)
    assert [e for e in old_log if isinstance(e, RematchCreated)] == [
        RematchCreated(at=clock.now, game_id=rematch.game_id)
    ]
    new = await service.state(rematch.game_id)
    assert new.rematch_of == game and new.reserved == (0, 2)
    assert new.rules == (await service.state(game)).rules
    assert [p and p.bot for p in new.players] == [None, "heuristic", None, "random"]
    with pytest.raises(RuleViolation) as reserved:
        await service.take_seat(rematch.game_id, 0, "stranger")
    assert reserved.value.code == "seat_reserved"
    await service.take_seat(rematch.game_id, 0, "ann", claim=True)
    clock.now += 30_000  # the hold is over: the seat is anyone's
    await service.take_seat(rematch.game_id, 2, "stranger")
    assert (await service.state(rematch.game_id)).phase != "seating"
