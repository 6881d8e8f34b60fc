"""Every illegal command is refused with its stable code and leaves the state as it was."""

from __future__ import annotations

import msgspec
import pytest
from decks import SEED, Game, build_deck, reach_begging_team_at

from domain import (
    CODES,
    VIOLATION_CODES,
    Abort,
    Beg,
    ComeBack,
    CreateGame,
    Deal,
    GiveOne,
    Join,
    Leave,
    NoteRematch,
    Play,
    Resign,
    RevealSeed,
    Rules,
    RuleViolation,
    RunPack,
    Stand,
    State,
    StepAway,
    TimeOut,
    commit,
    decide,
    execute,
    legal_actions,
)

CREATE = CreateGame(rules=Rules(), seed_commitment=commit(SEED), first_dealer=0)


def refuse_on(state: State, command, code: str) -> None:
    copy = state.replace()
    with pytest.raises(RuleViolation) as info:
        decide(state, command)
    assert info.value.code == code, repr(info.value)
    assert info.value.code in VIOLATION_CODES
    with pytest.raises(RuleViolation):
        execute(state, command)
    assert state == copy


@pytest.mark.parametrize(
    "command",
    [
        Join(seat=0, name="early"),
        Deal(deck=tuple(CODES)),
        Stand(seat=1),
        Beg(seat=1),
        GiveOne(seat=0),
        RunPack(seat=0),
        Play(seat=1, card="2C"),
    ],
)
def test_no_game(command):
    refuse_on(State(), command, "no_game")


def test_game_exists():
    state, _ = execute(State(), CREATE)
    refuse_on(state, CREATE, "game_exists")
    game = Game()
    game.refuse(CREATE, "game_exists")
    game.deal(build_deck(0))
    game.refuse(CREATE, "game_exists")


def test_seat_taken():
    state, _ = execute(State(), CREATE)
    state, _ = execute(state, Join(seat=2, name="first"))
    refuse_on(state, Join(seat=2, name="second"), "seat_taken")
    assert state.players[2].name == "first"


def test_rated_table_seats_only_players():
    state, _ = execute(State(), msgspec.structs.replace(CREATE, rated=True))
    refuse_on(state, Join(seat=0, name="anon"), "rated_table")
    refuse_on(state, Join(seat=0, name="strong bot", bot="strong", player="p1"), "rated_table")
    state, events = execute(state, Join(seat=0, name="ann", player="p1"))
    assert events[-1].player == "p1" and state.players[0].player == "p1"


def test_a_rated_seat_is_taken_over_only_by_its_player():
    game = Game(rated=True)
    game.deal(build_deck(0))
    game.do(Leave(seat=2), at=LIFECYCLE_AT)
    game.refuse(Join(seat=2, name="newcomer", player="p9"), "seat_taken", at=LIFECYCLE_AT + 1)
    game.do(Join(seat=2, name="back again", player="p2"), at=LIFECYCLE_AT + 2)
    assert game.state.players[2].player == "p2" and not game.state.players[2].left


def test_a_player_holds_one_seat_of_a_table():
    """A second seat would show one person two hands: refused whether open or left, and a
    seat the player left is theirs to take back (only that one)."""
    state, _ = execute(State(), CREATE)
    state, _ = execute(state, Join(seat=0, name="ann", player="p1"))
    refuse_on(state, Join(seat=1, name="ann again", player="p1"), "already_seated")
    state, _ = execute(state, Join(seat=1, name="anon"))  # anonymous seats are anyone's
    state, _ = execute(state, Join(seat=2, name="bea", player="p2"))
    game = Game(rated=True)
    game.deal(build_deck(0))
    game.do(Leave(seat=1), at=LIFECYCLE_AT)
    game.do(Leave(seat=2), at=LIFECYCLE_AT)
    game.refuse(Join(seat=1, name="two seats", player="p2"), "already_seated", at=LIFECYCLE_AT)
    game.do(Join(seat=2, name="back again", player="p2"), at=LIFECYCLE_AT + 1)


@pytest.mark.parametrize("seat", [-1, 4, 7])
def test_invalid_seat(seat):
    state, _ = execute(State(), CREATE)
    state, _ = execute(state, Join(seat=3, name="three"))
    refuse_on(state, Join(seat=seat, name="nobody"), "invalid_seat")
    refuse_on(
        State(),
        CreateGame(rules=Rules(), seed_commitment=commit(SEED), first_dealer=seat),
        "invalid_seat",
    )


def test_join_when_every_seat_is_taken():
    game = Game()
    for seat in range(4):
        game.refuse(Join(seat=seat, name="fifth"), "seat_taken")
    game.deal(build_deck(0))
    game.refuse(Join(seat=2, name="late"), "seat_taken")


def test_wrong_phase_while_seating():
    state, _ = execute(State(), CREATE)
    for command in (Deal(deck=tuple(CODES)), Stand(seat=1), Play(seat=1, card="2C")):
        refuse_on(state, command, "wrong_phase")


def test_wrong_phase_while_waiting_for_the_deal():
    game = Game(first_dealer=0)
    for command in (
        Stand(seat=1),
        Beg(seat=1),
        GiveOne(seat=0),
        RunPack(seat=0),
        Play(seat=1, card="2C"),
        RevealSeed(seed=SEED),
    ):
        game.refuse(command, "wrong_phase")


def test_wrong_phase_while_begging():
    game = Game(first_dealer=0)
    game.deal(build_deck(0, kick="3H"))
    card = sorted(game.hand_of(1))[0]
    for command in (
        Deal(deck=build_deck(0)),
        GiveOne(seat=0),
        RunPack(seat=0),
        Play(seat=1, card=card),
    ):
        game.refuse(command, "wrong_phase")


def test_wrong_phase_while_the_dealer_chooses():
    game = Game(first_dealer=0)
    game.deal(build_deck(0, kick="3H"))
    game.do(Beg(seat=1))
    card = sorted(game.hand_of(1))[0]
    for command in (Stand(seat=1), Beg(seat=1), Play(seat=1, card=card), Deal(deck=build_deck(0))):
        game.refuse(command, "wrong_phase")


def test_wrong_phase_while_playing():
    game = Game(first_dealer=0)
    game.deal(build_deck(0, kick="3H"))
    game.stand()
    for command in (Stand(seat=1), Beg(seat=1), GiveOne(seat=0), RunPack(seat=0)):
        game.refuse(command, "wrong_phase")
    game.refuse(Deal(deck=build_deck(0)), "wrong_phase")


def test_not_your_turn():
    game = Game(first_dealer=2)
    game.deal(build_deck(2, kick="3H"))
    for seat in (0, 1, 2):
        game.refuse(Stand(seat=seat), "not_your_turn")
        game.refuse(Beg(seat=seat), "not_your_turn")
    game.do(Beg(seat=3))
    for seat in (0, 1, 3):
        game.refuse(GiveOne(seat=seat), "not_your_turn")
        game.refuse(RunPack(seat=seat), "not_your_turn")
    game.do(GiveOne(seat=2))
    for seat in (0, 1, 2):
        for card in sorted(game.hand_of(seat)):
            game.refuse(Play(seat=seat, card=card), "not_your_turn")


@pytest.mark.parametrize("card", ["XX", "1H", "10H", "", "AH ", "A", "ZZZ"])
def test_unknown_card(card):
    game = Game(first_dealer=0)
    game.deal(build_deck(0, kick="3H"))
    game.stand()
    game.refuse(Play(seat=1, card=card), "unknown_card")


def test_card_not_in_hand():
    game = Game(first_dealer=0)
    deck = build_deck(0, kick="3H")
    game.deal(deck)
    game.stand()
    mine = game.hand_of(1)
    for card in CODES:
        if card not in mine:
            game.refuse(Play(seat=1, card=card), "card_not_in_hand")
    played = sorted(mine)[0]
    game.play(played)
    game.play_out()  # the hand is over; the next one is not dealt yet
    game.deal(build_deck(1, {2: ["2C", "3C", "4C", "5C", "6C", "7C"]}, kick="3H"))
    game.stand()
    game.refuse(Play(seat=2, card="8C"), "card_not_in_hand")


def test_a_played_card_is_no_longer_in_hand():
    game = Game(first_dealer=0)
    game.deal(build_deck(0, {1: ["2C", "3C", "4C", "5C", "6C", "7C"]}, kick="3H"))
    game.stand()
    game.play("2C")
    while game.state.to_act != 1:
        game.play(sorted(p.card for p in legal_plays(game))[0])
    game.refuse(Play(seat=1, card="2C"), "card_not_in_hand")


def legal_plays(game: Game) -> list[Play]:
    seat = game.state.to_act
    return [a for a in legal_actions(game.state, seat) if isinstance(a, Play)]


def test_must_follow_suit():
    game = Game(first_dealer=0)
    game.deal(
        build_deck(
            0,
            {1: ["5C", "6C", "7C", "8C", "9C", "2S"], 2: ["2C", "3H", "4D", "5D", "6D", "7D"]},
            kick="2H",
            back="H",
        )
    )
    game.stand()
    game.play("5C")
    game.refuse(Play(seat=2, card="4D"), "must_follow_suit")


def test_undertrump_forbidden():
    game = Game(rules=Rules(undertrump="forbidden"), first_dealer=0)
    game.deal(
        build_deck(
            0,
            {
                1: ["5C", "6C", "7C", "8C", "9C", "2S"],
                2: ["QH", "2D", "3D", "4D", "5D", "6D"],
                3: ["4H", "KH", "2C", "3S", "4S", "5S"],
            },
            kick="2H",
            back="H",
        )
    )
    game.stand()
    game.play("5C", "QH")
    game.refuse(Play(seat=3, card="4H"), "undertrump_forbidden")


def test_give_one_forbidden():
    game = reach_begging_team_at(6, Rules(target=7, give_one_at_13="forbidden"))
    game.refuse(GiveOne(seat=1), "give_one_forbidden")


@pytest.mark.parametrize(
    "deck",
    [
        (),
        tuple(CODES[:51]),
        (*CODES, "2C"),
        (*CODES[:51], "2C"),
        (*CODES[:51], "XX"),
        (*CODES[:51], "1S"),
        (*CODES[:26], *CODES[:26]),
    ],
    ids=["empty", "51", "53", "duplicate", "unknown", "bad code", "52 with duplicates"],
)
def test_invalid_deck(deck):
    game = Game()
    game.refuse(Deal(deck=deck), "invalid_deck")


def test_game_over():
    game = Game(rules=Rules(target=1), first_dealer=0)
    game.deal(build_deck(0, kick="AC"))
    assert game.state.phase == "ended"
    game.refuse(Stand(seat=1), "game_over")
    game.refuse(Deal(deck=build_deck(1)), "game_over")
    game.refuse(Join(seat=1, name="late"), "game_over")


def test_seed_mismatch():
    game = Game(rules=Rules(target=1), first_dealer=0)
    game.deal(build_deck(0, kick="AC"))
    game.refuse(RevealSeed(seed="ab" * 32), "seed_mismatch")


LIFECYCLE_AT = 1_800_000_000_000


def test_lifecycle_refusals_leave_the_state_as_it_was():
    """One refusal per lifecycle code (their rules are tested in test_lifecycle.py)."""
    game = Game()
    game.do(Deal(deck=tuple(build_deck(0))), at=LIFECYCLE_AT)
    game.refuse(TimeOut(seat=1), "not_due", at=LIFECYCLE_AT + 1)
    game.refuse(ComeBack(seat=1), "not_away")
    game.do(StepAway(seat=0), at=LIFECYCLE_AT + 1)
    game.refuse(StepAway(seat=0), "already_away")
    game.do(Leave(seat=2), at=LIFECYCLE_AT + 2)
    game.refuse(Resign(seat=2), "not_a_person")
    game.do(Stand(seat=1), at=LIFECYCLE_AT + 3)
    game.do(legal_actions(game.state, 1)[0], at=LIFECYCLE_AT + 4)
    game.refuse(Abort(seat=3), "too_late_to_abort")
    game.do(Resign(seat=3), RevealSeed(seed=SEED), NoteRematch(game_id="g2"))
    game.refuse(NoteRematch(game_id="g3"), "rematch_exists")
    reserved, _ = execute(
        State(),
        CreateGame(Rules(), commit(SEED), 0, reserved=(1,), reserved_until=LIFECYCLE_AT),
        LIFECYCLE_AT - 1,
    )
    refuse_on(reserved, Join(seat=1, name="stranger"), "seat_reserved")


def test_every_violation_code_is_covered_by_a_test_here():
    import inspect
    import sys

    source = inspect.getsource(sys.modules[__name__])
    missing = [c for c in VIOLATION_CODES if f'"{c}"' not in source]
    assert missing == []
