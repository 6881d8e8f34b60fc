"""Play: turn order, follow-or-trump, the undertrump option, trick winners, the end of a hand.

Most deals here: dealer 0, so seat 1 stands and leads; trump hearts (kick 2H) with every heart
not named kept in the stock.
"""

from __future__ import annotations

import pytest
from decks import Game, build_deck, event_types, of_type

from domain import HandScored, Play, Rules, TrickWon, legal_actions

FOLLOW_HANDS = {
    1: ["5C", "6C", "7C", "8C", "9C", "2S"],
    2: ["2C", "3H", "4D", "5D", "6D", "7D"],  # holds the led suit and a trump
    3: ["2D", "3D", "8D", "9D", "3S", "5S"],  # void in clubs
    0: ["4S", "6S", "7S", "8S", "9S", "3C"],
}


def hearts_game(hands, rules: Rules | None = None) -> Game:
    game = Game(rules=rules, first_dealer=0)
    game.deal(build_deck(0, hands, kick="2H", back="H"))
    game.stand()
    assert game.state.trump == 2  # hearts
    return game


def plays(game: Game, seat: int) -> set[str]:
    return {a.card for a in legal_actions(game.state, seat) if isinstance(a, Play)}


# --- turn order -------------------------------------------------------------------------------


def test_play_goes_counterclockwise_from_the_leader():
    game = hearts_game(FOLLOW_HANDS)
    assert game.state.to_act == 1
    for seat, card in [(1, "5C"), (2, "2C"), (3, "3S"), (0, "3C")]:
        for other in range(4):
            if other != seat:
                assert legal_actions(game.state, other) == []
                game.refuse(Play(seat=other, card=sorted(game.hand_of(other))[0]), "not_your_turn")
        game.do(Play(seat=seat, card=card))
    assert of_type(game.log, TrickWon)[-1].seat == 1


def test_the_leader_may_lead_any_card():
    game = hearts_game(FOLLOW_HANDS)
    assert plays(game, 1) == set(FOLLOW_HANDS[1])


# --- follow or trump --------------------------------------------------------------------------


def test_holding_the_led_suit_a_player_must_follow_or_trump():
    game = hearts_game(FOLLOW_HANDS)
    game.play("5C")
    assert plays(game, 2) == {"2C", "3H"}
    for card in ("4D", "5D", "6D", "7D"):
        game.refuse(Play(seat=2, card=card), "must_follow_suit")


@pytest.mark.parametrize("card", ["2C", "3H"])
def test_following_suit_or_trumping_is_accepted(card):
    game = hearts_game(FOLLOW_HANDS)
    game.play("5C")
    events = game.do(Play(seat=2, card=card))
    assert events[0].card == card
    assert card not in game.hand_of(2)


def test_a_player_void_in_the_led_suit_may_play_anything():
    game = hearts_game(FOLLOW_HANDS)
    game.play("5C", "2C")
    assert plays(game, 3) == set(FOLLOW_HANDS[3])
    game.do(Play(seat=3, card="3S"))


def test_when_trump_is_led_the_trump_holder_must_follow_it():
    hands = {**FOLLOW_HANDS, 1: ["9H", "6C", "7C", "8C", "9C", "2S"]}
    game = hearts_game(hands)
    game.play("9H")
    assert plays(game, 2) == {"3H"}
    game.refuse(Play(seat=2, card="2C"), "must_follow_suit")


# --- undertrump -------------------------------------------------------------------------------

UNDER = {
    1: ["5C", "6C", "7C", "8C", "9C", "2S"],
    2: ["QH", "2D", "3D", "4D", "5D", "6D"],  # void in clubs: trumps with the QH
    3: ["4H", "KH", "2C", "3S", "4S", "5S"],  # a lower and a higher trump, and a club
    0: ["3C", "4C", "7S", "8S", "9S", "6S"],
}


def test_undertrump_forbidden_refuses_a_lower_trump_when_another_card_is_legal():
    game = hearts_game(UNDER, Rules(undertrump="forbidden"))
    game.play("5C", "QH")
    assert plays(game, 3) == {"KH", "2C"}
    game.refuse(Play(seat=3, card="4H"), "undertrump_forbidden")
    game.do(Play(seat=3, card="KH"))


def test_undertrump_forbidden_void_player_may_not_undertrump_while_holding_another_suit():
    hands = {**UNDER, 3: ["4H", "TS", "3S", "4S", "5S", "7D"]}
    game = hearts_game(hands, Rules(undertrump="forbidden"))
    game.play("5C", "QH")
    assert plays(game, 3) == {"TS", "3S", "4S", "5S", "7D"}
    game.refuse(Play(seat=3, card="4H"), "undertrump_forbidden")


def test_undertrump_forbidden_allows_a_lower_trump_when_nothing_else_is_legal():
    hands = {**UNDER, 3: ["3H", "4H", "5H", "6H", "7H", "8H"]}
    game = hearts_game(hands, Rules(undertrump="forbidden"))
    game.play("5C", "QH")
    assert plays(game, 3) == set(hands[3])
    game.do(Play(seat=3, card="4H"))


def test_undertrump_forbidden_does_not_apply_when_trump_was_led():
    hands = {
        **UNDER,
        1: ["QH", "6C", "7C", "8C", "9C", "2S"],
        2: ["3D", "2D", "4D", "5D", "6D", "7D"],
    }
    game = hearts_game(hands, Rules(undertrump="forbidden"))
    game.play("QH", "2D")
    assert plays(game, 3) == {"4H", "KH"}
    game.do(Play(seat=3, card="4H"))


@pytest.mark.parametrize("rules", [None, Rules(undertrump="allowed")])
def test_undertrump_is_allowed_by_default(rules):
    game = hearts_game(UNDER, rules)
    game.play("5C", "QH")
    assert plays(game, 3) == {"4H", "KH", "2C"}
    game.do(Play(seat=3, card="4H"))


# --- trick winners ----------------------------------------------------------------------------

WINNERS = {
    1: ["5C", "6C", "7C", "8C", "TD", "2S"],
    2: ["9C", "3H", "4D", "5D", "6D", "7D"],
    3: ["AS", "QH", "2D", "3D", "3S", "5S"],  # void in clubs: an off-suit Ace and a trump
    0: ["4C", "AC", "7S", "8S", "9S", "6S"],
}


def test_with_no_trump_the_highest_card_of_the_led_suit_wins_and_an_off_suit_ace_never_does():
    game = hearts_game(WINNERS)
    events = game.play("5C", "9C", "AS", "4C")
    won = of_type(events, TrickWon)[0]
    assert (won.seat, won.team, won.cards) == (2, 0, ("5C", "9C", "AS", "4C"))


def test_the_highest_trump_wins_the_trick():
    game = hearts_game(WINNERS)
    events = game.play("5C", "3H", "QH", "AC")
    won = of_type(events, TrickWon)[0]
    assert (won.seat, won.team) == (3, 1)


def test_a_lone_low_trump_beats_the_ace_of_the_led_suit():
    game = hearts_game(WINNERS)
    events = game.play("5C", "3H", "AS", "AC")
    assert of_type(events, TrickWon)[0].seat == 2


def test_the_winner_of_a_trick_leads_the_next():
    game = hearts_game(WINNERS)
    game.play("5C", "9C", "AS", "4C")
    assert game.state.to_act == 2
    game.refuse(Play(seat=1, card="6C"), "not_your_turn")
    assert plays(game, 2) == game.hand_of(2)
    game.do(Play(seat=2, card="4D"))
    game.play("2D", "AC")  # 3 follows diamonds, 0 is void and plays the AC
    events = game.play("TD")
    assert of_type(events, TrickWon)[0].seat == 1  # TD is the highest diamond
    assert game.state.to_act == 1


def test_captured_cards_go_to_the_winning_team():
    game = hearts_game(WINNERS)
    game.play("5C", "3H", "QH", "AC")
    assert game.state.won[1] != 0 and game.state.won[0] == 0


# --- the end of a hand ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("runs", "tricks"),
    [((), 6), ([({}, "3S")], 9), ([({}, "3H"), ({}, "4S")], 12)],
)
def test_the_hand_ends_when_every_card_is_played(runs, tricks):
    game = Game(first_dealer=3)
    game.deal(build_deck(3, kick="2H", runs=runs))
    if runs:
        game.beg_and_run()
    else:
        game.stand()
    events = game.play_out()
    assert len(of_type(events, TrickWon)) == tricks
    assert event_types(events)[-1] == "HandScored"
    assert event_types(events).count("HandScored") == 1
    assert events.index(of_type(events, HandScored)[0]) == len(events) - 1
    assert game.state.hands == (0, 0, 0, 0)
    assert game.state.phase == "dealing"
    assert game.state.hand_no == 2
