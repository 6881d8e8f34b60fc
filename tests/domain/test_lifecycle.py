"""The table lifecycle in the rules: the turn clock, timeouts and away, leave, resign, abort,
expiry, rematch reservations. Time is data: every command is given its instant, so nothing here
waits. Every game runs under the independent referee (``decks.Game``)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
from decks import SEED, Game, build_deck, of_type

from domain import (
    AWAY_AFTER_TIMEOUTS,
    DEFAULT_TURN_SECONDS,
    Abort,
    AbortTable,
    Begged,
    ComeBack,
    CreateGame,
    Deal,
    Event,
    Expire,
    GameAborted,
    GameCreated,
    GameEnded,
    Join,
    Leave,
    NoteRematch,
    PlayerReplaced,
    RematchCreated,
    Resign,
    RevealSeed,
    Rules,
    SeatAway,
    SeatBack,
    Stand,
    State,
    StepAway,
    Stood,
    TimeOut,
    TurnTimedOut,
    commit,
    decide,
    execute,
    fold,
    legal_actions,
    seat_actions,
    verify,
    view,
)
from domain.autoplay import owed_command

T0 = 1_800_000_000_000
"""An instant in ms (2027): the clock of these tests, moved by hand."""
CLOCK_MS = DEFAULT_TURN_SECONDS * 1000


def dealt_game(rules: Rules | None = None, **table: Any) -> Game:
    """Four people seated and the first hand dealt at ``T0`` (dealer 0: seat 1 begs/stands)."""
    game = Game(rules=rules, **table)
    game.do(Deal(deck=tuple(build_deck(0))), at=T0)
    return game


def bot_decides(game: Game, at: int) -> list[Event]:
    """What the service does after a timeout: the bot's decision for the seat, in the same step."""
    command = owed_command(game.state, SEED, _rng())
    assert command is not None
    return game.do(command, at=at)


def _rng() -> random.Random:
    return random.Random(7)


# --- the clock ------------------------------------------------------------------------------


def test_a_new_table_gets_the_default_clock_and_null_means_none():
    created = decide(State(), CreateGame(Rules(), commit(SEED), 0), at=T0)[0]
    assert isinstance(created, GameCreated)
    assert created.rules.turn_seconds == DEFAULT_TURN_SECONDS
    untimed = decide(State(), CreateGame(Rules(turn_seconds=None), commit(SEED), 0), at=T0)[0]
    assert isinstance(untimed, GameCreated)
    assert untimed.rules.turn_seconds is None


def test_a_log_from_before_the_clock_has_no_clock():
    old = msgspec.json.decode(b'{"type":"GameCreated","rules":{"target":14}}', type=Event)
    state = fold([old])
    assert state.rules.clock_ms is None
    assert "turn_seconds" not in msgspec.json.encode(old).decode()


def test_the_deadline_is_the_turn_start_plus_the_clock_and_comes_from_the_log_alone():
    game = dealt_game()
    assert game.state.to_act == 1
    assert game.state.deadline == T0 + CLOCK_MS
    assert view(game.state, 1).deadline == T0 + CLOCK_MS
    assert view(game.state, None).deadline == T0 + CLOCK_MS
    game.do(Stand(seat=1), at=T0 + 5_000)
    # The leader (seat 1) now has a fresh clock from the stand.
    assert game.state.deadline == T0 + 5_000 + CLOCK_MS
    assert fold(game.log).deadline == game.state.deadline


def test_no_clock_means_no_deadline():
    game = dealt_game(Rules(turn_seconds=None))
    assert game.state.deadline is None
    game.refuse(TimeOut(seat=1), "not_due", at=T0 + 10**9)


def test_bots_are_never_timed():
    state, _ = execute(State(), CreateGame(Rules(), commit(SEED), 0), T0)
    for seat in range(4):
        state, _ = execute(state, Join(seat, f"bot {seat}", "heuristic"), T0)
    state, _ = execute(state, owed_command(state, SEED, _rng()), T0)  # type: ignore[arg-type]
    assert state.to_act is not None
    assert state.deadline is None
    assert state.bot_to_act() == (state.to_act, "heuristic")


# --- timeouts and away ----------------------------------------------------------------------


def test_a_timeout_is_refused_before_its_deadline_and_accepted_at_it():
    game = dealt_game()
    game.refuse(TimeOut(seat=1), "not_due", at=T0 + CLOCK_MS - 1)
    game.refuse(TimeOut(seat=2), "not_due", at=T0 + CLOCK_MS)  # not seat 2's turn
    events = game.do(TimeOut(seat=1), at=T0 + CLOCK_MS)
    assert events == [TurnTimedOut(at=T0 + CLOCK_MS, seat=1, deadline=T0 + CLOCK_MS)]
    assert game.state.bot_to_act() == (1, "heuristic")
    assert game.state.deadline is None  # the bot decides now: nobody is on the clock
    decided = bot_decides(game, T0 + CLOCK_MS)
    assert decided and decided[0].seat == 1  # type: ignore[union-attr]
    assert game.state.bot_to_act() is None  # one decision only: the person is not away
    game.refuse(TimeOut(seat=1), "not_due", at=T0 + CLOCK_MS)  # fired once, never twice


def _time_out_current(game: Game, at: int) -> int:
    seat = game.state.to_act
    assert seat is not None
    game.do(TimeOut(seat=seat), at=at)
    bot_decides(game, at)
    return seat


def test_timeouts_in_a_row_mark_the_person_away_and_the_bot_plays_at_once():
    game = dealt_game(Rules(turn_seconds=10))
    at = T0 + 10_000
    game.do(TimeOut(seat=1), at=at)
    bot_decides(game, at)
    # Make seat 1 act again: play round to it with people deciding in time.
    while game.state.to_act != 1:
        at += 1_000
        seat = game.state.to_act
        assert seat is not None
        game.do(legal_actions(game.state, seat)[0], at=at)
    at = game.state.deadline  # type: ignore[assignment]
    events = game.do(TimeOut(seat=1), at=at)
    assert [type(e) for e in events] == [TurnTimedOut, SeatAway]
    assert events[1] == SeatAway(at=at, seat=1, reason="timed_out")
    assert AWAY_AFTER_TIMEOUTS == 2
    player = game.state.players[1]
    assert player is not None and player.away
    assert view(game.state, None).seats[1].away


def test_deciding_in_time_ends_a_run_of_timeouts():
    game = dealt_game(Rules(turn_seconds=10))
    at = T0 + 10_000
    game.do(TimeOut(seat=1), at=at)
    bot_decides(game, at)
    assert game.state.players[1].timeouts == 1  # type: ignore[union-attr]
    while game.state.to_act != 1:
        at += 1_000
        seat = game.state.to_act
        assert seat is not None
        game.do(legal_actions(game.state, seat)[0], at=at)
    game.do(legal_actions(game.state, 1)[0], at=at + 1)  # seat 1 plays in time itself
    assert game.state.players[1].timeouts == 0  # type: ignore[union-attr]


def test_step_away_and_come_back():
    game = dealt_game()
    game.do(StepAway(seat=2), at=T0 + 1)
    assert game.state.players[2].away  # type: ignore[union-attr]
    game.refuse(StepAway(seat=2), "already_away")
    game.refuse(ComeBack(seat=3), "not_away")
    assert ComeBack(seat=2) in seat_actions(game.state, 2)
    assert game.do(ComeBack(seat=2), at=T0 + 2) == [SeatBack(at=T0 + 2, seat=2)]
    assert not game.state.players[2].away  # type: ignore[union-attr]


def test_stepping_away_on_your_turn_hands_it_to_the_bot():
    game = dealt_game()
    game.do(StepAway(seat=1), at=T0 + 1)
    assert game.state.bot_to_act() == (1, "heuristic")
    assert game.state.deadline is None


def test_the_tables_stand_in_level_plays_for_an_away_person():
    """``GameCreated.stand_in``: the level that decides for an away, gone or timed-out seat
    (``heuristic`` in logs written before a table chose one, as above)."""
    game = dealt_game(stand_in="master")
    game.do(StepAway(seat=1), at=T0 + 1)
    assert game.state.bot_to_act() == (1, "master")


# --- leave, replace, resign, abort ----------------------------------------------------------


def seating() -> State:
    state, _ = execute(State(), CreateGame(Rules(), commit(SEED), 0, expires_at=T0 + 60_000), T0)
    state, _ = execute(state, Join(0, "ann"), T0)
    return state


def test_leaving_before_the_start_opens_the_seat():
    state = seating()
    state, _ = execute(state, Leave(seat=0), T0 + 1)
    assert state.players[0] is None
    state, _ = execute(state, Join(0, "bob"), T0 + 2)
    assert state.players[0].name == "bob"  # type: ignore[union-attr]


def test_leaving_a_game_hands_the_seat_to_the_bot_until_someone_takes_it_over():
    game = dealt_game()
    game.do(Leave(seat=3), at=T0 + 1)
    player = game.state.players[3]
    assert player is not None and player.left
    assert view(game.state, None).seats[3].left
    game.refuse(StepAway(seat=3), "not_a_person")
    game.refuse(Join(seat=3, name="bot", bot="random"), "seat_taken")
    game.refuse(Join(seat=2, name="thief"), "seat_taken")  # a present person's seat
    events = game.do(Join(seat=3, name="dee"), at=T0 + 2)
    assert events == [PlayerReplaced(at=T0 + 2, seat=3, name="dee")]
    assert game.state.players[3].name == "dee"  # type: ignore[union-attr]
    assert not game.state.players[3].left  # type: ignore[union-attr]


def test_an_away_seat_may_be_taken_over():
    game = dealt_game()
    game.do(StepAway(seat=0), at=T0 + 1)
    assert of_type(game.do(Join(seat=0, name="new"), at=T0 + 2), PlayerReplaced)


def test_an_away_seat_is_its_persons_for_the_grace_and_they_may_come_back():
    grace = 60_000
    game = Game(takeover_grace_ms=grace)
    game.do(Deal(deck=tuple(build_deck(0))), at=T0)
    game.do(StepAway(seat=0), at=T0 + 1)
    assert view(game.state, None).seats[0].takeover_at == T0 + 1 + grace
    assert view(game.state, None).seats[1].takeover_at is None  # a person playing it
    game.refuse(Join(seat=0, name="watcher"), "seat_taken", at=T0 + grace)
    game.do(ComeBack(seat=0), at=T0 + grace)  # in time: the seat is still theirs
    assert view(game.state, None).seats[0].takeover_at is None
    game.do(StepAway(seat=0), at=T0 + grace + 1)
    game.refuse(Join(seat=0, name="watcher"), "seat_taken", at=T0 + 2 * grace)
    assert of_type(game.do(Join(seat=0, name="watcher"), at=T0 + 2 * grace + 1), PlayerReplaced)


def test_a_left_seat_may_be_taken_over_at_once_whatever_the_grace():
    game = Game(takeover_grace_ms=60_000)
    game.do(Deal(deck=tuple(build_deck(0))), at=T0)
    game.do(Leave(seat=2), at=T0 + 1)
    assert view(game.state, None).seats[2].takeover_at == 0
    assert of_type(game.do(Join(seat=2, name="dee"), at=T0 + 2), PlayerReplaced)


def test_the_creator_closes_a_table_before_the_first_card_only():
    created = decide(State(), CreateGame(Rules(), commit(SEED), 0), at=T0)
    waiting = fold(created)  # nobody seated yet: the creator may close it all the same
    assert decide(waiting, AbortTable(), at=T0 + 1) == [GameAborted(at=T0 + 1, reason="aborted")]
    game = dealt_game()
    assert game.do(AbortTable(), at=T0 + 1) == [GameAborted(at=T0 + 1, reason="aborted")]
    game.refuse(AbortTable(), "game_over")
    game = dealt_game()
    game.do(Stand(seat=1), at=T0 + 1)
    game.do(legal_actions(game.state, 1)[0], at=T0 + 2)
    game.refuse(AbortTable(), "too_late_to_abort")


def test_resigning_ends_the_game_for_the_other_team_and_the_seed_follows():
    game = dealt_game()
    events = game.do(Resign(seat=2), at=T0 + 1)
    assert events == [
        GameEnded(at=T0 + 1, winner=1, scores=game.state.scores, reason="resigned", seat=2)
    ]
    assert game.state.end_reason == "resigned"
    game.do(RevealSeed(seed=SEED), at=T0 + 1)
    assert game.state.seed == SEED


def test_resigning_before_the_start_is_refused():
    state = seating()
    with pytest.raises(Exception) as info:
        decide(state, Resign(seat=0))
    assert getattr(info.value, "code", None) == "wrong_phase"


def test_abort_before_the_first_card_only():
    game = dealt_game()
    game.do(Stand(seat=1), at=T0 + 1)
    assert Abort(seat=0) in seat_actions(game.state, 0)
    playing = game.state
    game.do(legal_actions(playing, 1)[0], at=T0 + 2)
    game.refuse(Abort(seat=0), "too_late_to_abort")
    assert Abort(seat=0) not in seat_actions(game.state, 0)
    fresh = dealt_game()
    events = fresh.do(Abort(seat=0), at=T0 + 3)
    assert events == [GameAborted(at=T0 + 3, reason="aborted", seat=0)]
    assert fresh.state.phase == "ended" and fresh.state.winner is None
    fresh.do(RevealSeed(seed=SEED), at=T0 + 3)
    assert fresh.state.seed == SEED


def test_a_table_waiting_past_its_expiry_is_closed():
    state = seating()
    assert state.wakeup_at == T0 + 60_000
    with pytest.raises(Exception) as info:
        decide(state, Expire(), at=T0 + 59_999)
    assert getattr(info.value, "code", None) == "not_due"
    state, events = execute(state, Expire(), T0 + 60_000)
    assert events == [GameAborted(at=T0 + 60_000, reason="expired")]
    assert state.end_reason == "expired"
    assert owed_command(state, SEED, _rng()) == RevealSeed(SEED)


# --- rematch ----------------------------------------------------------------------------------


def test_reserved_seats_take_a_claim_until_the_reservation_ends():
    create = CreateGame(
        Rules(), commit(SEED), 0, rematch_of="old", reserved=(0, 2), reserved_until=T0 + 1000
    )
    state, _ = execute(State(), create, T0)
    with pytest.raises(Exception) as info:
        decide(state, Join(0, "stranger"), at=T0 + 999)
    assert getattr(info.value, "code", None) == "seat_reserved"
    assert decide(state, Join(0, "ann", claim=True), at=T0 + 999)
    assert decide(state, Join(1, "anyone"), at=T0 + 1)  # not reserved
    assert decide(state, Join(0, "stranger"), at=T0 + 1000)  # the hold is over
    assert view(state, None).reserved == (0, 2)


def test_a_finished_game_records_its_rematch_once():
    game = dealt_game()
    game.refuse(NoteRematch(game_id="next"), "wrong_phase")
    game.do(Resign(seat=1), RevealSeed(seed=SEED), at=T0 + 1)
    assert game.do(NoteRematch(game_id="next"), at=T0 + 2) == [
        RematchCreated(at=T0 + 2, game_id="next")
    ]
    assert view(game.state, 0).rematch == "next"
    game.refuse(NoteRematch(game_id="other"), "rematch_exists")


# --- seat actions are exactly what decide accepts -------------------------------------------


def test_seat_actions_are_exactly_the_lifecycle_commands_accepted():
    states = [seating(), dealt_game().state]
    away = dealt_game()
    away.do(StepAway(seat=0), at=T0 + 1)
    states.append(away.state)
    for state in states:
        for seat in range(4):
            offered = seat_actions(state, seat)
            for command in (StepAway(seat), ComeBack(seat), Leave(seat), Resign(seat), Abort(seat)):
                try:
                    decide(state, command, at=T0 + 5)
                    accepted = True
                except Exception:
                    accepted = False
                assert accepted == (command in offered), (state.phase, command)


# --- logs written before the lifecycle ------------------------------------------------------

FIXTURES = Path(__file__).parent / "fixtures" / "logs_v1.jsonl"


def test_logs_written_before_the_lifecycle_still_fold_and_verify():
    lines = FIXTURES.read_bytes().splitlines()
    assert len(lines) == 8
    for line in lines:
        record = json.loads(line)
        events = msgspec.json.decode(json.dumps(record["events"]).encode(), type=list[Event])
        state = fold(events)
        assert state.winner == record["winner"]
        assert list(state.scores) == record["scores"]
        assert state.seed == record["seed"]
        assert state.deadline is None and state.rules.clock_ms is None
        assert verify(events).ok
        # Re-encoding changes nothing: the schemas only grew.
        assert msgspec.json.encode(events) == msgspec.json.encode(
            msgspec.json.decode(msgspec.json.encode(events), type=list[Event])
        )


def test_a_rematched_game_still_verifies() -> None:
    from domain.autoplay import play_game

    state, log = play_game("ab" * 32, ("random",) * 4)
    noted, events = execute(state, NoteRematch(game_id="next"), T0)
    assert noted.rematch == "next"
    assert verify([*log, *events]).ok
    assert not verify([*log[:-1], *events]).ok  # the seed must still come before the note


# --- pausing when nobody is there, an away seat's pace, idle tables --------------------------

PACE = 1_500
IDLE = 600_000


def owed_until_a_person(game: Game, at: int) -> list[Event]:
    """What the service stores after a command at ``at``: everything owed, until a person
    must act (or the game waits: paused, or an away seat's pace not yet come)."""
    produced: list[Event] = []
    while (command := owed_command(game.state, SEED, _rng(), at)) is not None:
        produced.extend(game.do(command, at=at))
    return produced


def lone_person_table(**table: object) -> Game:
    """One person (seat 1, to stand or beg first: dealer 0) and three heuristic bots."""
    game = Game(
        rules=Rules(turn_seconds=30),
        bots=("heuristic", None, "heuristic", "heuristic"),
        pause_when_absent=True,
        away_pace_ms=PACE,
        idle_expiry_ms=IDLE,
        **table,
    )
    game.do(Deal(deck=tuple(build_deck(0))), at=T0)
    return game


def test_a_lone_person_stepping_away_pauses_the_game_until_they_come_back():
    game = lone_person_table()
    assert game.state.to_act == 1
    game.do(StepAway(seat=1), at=T0 + 1)
    assert game.state.paused and view(game.state, None).paused
    assert owed_until_a_person(game, T0 + 10 * CLOCK_MS) == []  # nothing moves, however late
    assert game.state.deadline is None
    assert view(game.state, 1).idle_at == T0 + 1 + IDLE == game.state.wakeup_at
    game.refuse(TimeOut(seat=1), "not_due", at=T0 + 10 * CLOCK_MS)
    game.do(ComeBack(seat=1), at=T0 + 60_000)
    assert not game.state.paused and view(game.state, None).idle_at is None
    # The turn is the person's again, on a fresh clock: the one from before the pause had
    # passed, and timed them out as they came back (an outside trial).
    assert game.state.deadline == T0 + 60_000 + CLOCK_MS == view(game.state, 1).deadline
    game.refuse(TimeOut(seat=1), "not_due", at=T0 + 60_000 + CLOCK_MS - 1)
    assert owed_until_a_person(game, T0 + 60_001) == []


def test_two_timeouts_of_a_lone_person_pause_the_game_instead_of_finishing_it():
    game = lone_person_table()
    at = T0 + CLOCK_MS
    game.do(TimeOut(seat=1), at=at)
    owed_until_a_person(game, at)
    while game.state.to_act != 1 or game.state.deadline is None:
        assert game.state.phase != "ended"
        owed_until_a_person(game, at)
    at = game.state.deadline
    game.do(TimeOut(seat=1), at=at)
    assert game.state.players[1].away  # type: ignore[union-attr]
    before = len(game.log)
    assert owed_until_a_person(game, at + 3_600_000) == []
    assert game.state.paused and game.state.phase != "ended" and len(game.log) == before


def test_a_paused_table_left_alone_is_closed_as_idle():
    game = lone_person_table()
    game.do(StepAway(seat=1), at=T0 + 1)
    game.refuse(Expire(), "not_due", at=T0 + IDLE)
    events = game.do(Expire(), at=T0 + 1 + IDLE)
    assert events == [GameAborted(at=T0 + 1 + IDLE, reason="idle")]
    assert game.state.end_reason == "idle" and game.state.winner is None


def test_a_newcomer_taking_the_seat_over_ends_the_pause():
    game = lone_person_table(takeover_grace_ms=60_000)
    game.do(StepAway(seat=1), at=T0 + 1)
    game.do(Join(seat=1, name="newcomer"), at=T0 + 60_001)
    assert not game.state.paused and game.state.deadline == T0 + 60_001 + CLOCK_MS


def test_with_people_present_an_away_seat_plays_at_the_tables_pace():
    game = Game(
        rules=Rules(turn_seconds=30),
        bots=(None, None, "heuristic", "heuristic"),
        pause_when_absent=True,
        away_pace_ms=PACE,
        idle_expiry_ms=IDLE,
    )
    game.do(Deal(deck=tuple(build_deck(0))), at=T0)
    assert game.state.to_act == 1
    game.do(StepAway(seat=1), at=T0 + 1)
    assert not game.state.paused  # seat 0's person is still there
    assert game.state.away_due_at == T0 + PACE == game.state.wakeup_at
    assert owed_until_a_person(game, T0 + PACE - 1) == []  # not at once
    decided = owed_until_a_person(game, T0 + PACE)
    assert decided and decided[0].at == T0 + PACE
    assert isinstance(decided[0], Begged | Stood)


def test_an_untimed_table_nobody_plays_is_closed_as_idle():
    game = Game(rules=Rules(turn_seconds=None), idle_expiry_ms=IDLE)
    game.do(Deal(deck=tuple(build_deck(0))), at=T0)
    assert view(game.state, None).idle_at == T0 + IDLE
    game.refuse(Expire(), "not_due", at=T0 + IDLE - 1)
    assert game.do(Expire(), at=T0 + IDLE) == [GameAborted(at=T0 + IDLE, reason="idle")]


def test_without_the_table_options_nothing_pauses_as_in_old_logs():
    game = dealt_game()
    game.do(*[StepAway(seat=s) for s in range(4)], at=T0 + 1)
    assert not game.state.paused and game.state.idle_expires_at is None
    assert owed_command(game.state, SEED, _rng(), T0 + 1) is not None  # the bot plays at once
