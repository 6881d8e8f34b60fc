"""Scoring a hand: High, Low, Jack (and hang jack), Game, and the deal passing to the right.

Unless said otherwise: dealer 0, so seat 1 stands and leads; trump hearts, with every heart not
named kept in the stock (``back="H"``) so the test knows exactly which trumps are in play.
"""

from __future__ import annotations

import pytest
from decks import (
    Game,
    awards_by_kind,
    build_deck,
    count_of,
    last_scored,
    of_type,
)

from domain import Beg, Dealt, Stand, TrickWon, legal_actions


def hearts_hand(hands, kick: str = "2H", dealer: int = 0) -> Game:
    game = Game(first_dealer=dealer)
    game.deal(build_deck(dealer, hands, kick=kick, back="H"))
    game.stand()
    return game


def summary(scored) -> list[tuple]:
    return [(a.kind, a.team, a.points, a.card, a.seat) for a in scored.awards]


# --- High and Low -----------------------------------------------------------------------------


def test_low_goes_to_the_player_dealt_it_not_to_the_team_that_captures_it():
    game = hearts_hand(
        {
            1: ["3H", "5C", "6C", "7C", "8C", "9C"],
            2: ["KH", "2C", "3C", "4D", "5D", "6D"],
        }
    )
    events = game.play("3H", "KH")  # seat 2 must follow trump with its only heart
    events += game.play_out()
    first = of_type(events, TrickWon)[0]
    assert "3H" in first.cards and first.team == 0
    awards = awards_by_kind(last_scored(events))
    assert (awards["high"].card, awards["high"].seat, awards["high"].team) == ("KH", 2, 0)
    assert (awards["low"].card, awards["low"].seat, awards["low"].team) == ("3H", 1, 1)


def test_high_and_low_count_cards_dealt_while_running_the_pack():
    game = Game(first_dealer=0)
    deck = build_deck(
        0,
        {1: ["3D", "5C", "6C", "7C", "8C", "9C"]},
        kick="5S",
        runs=[({3: ["AD", "2C", "3C"], 0: ["2D", "4C", "TC"]}, "5D")],
        back="D",
    )
    game.deal(deck)
    game.beg_and_run()
    assert game.state.trump == 1  # diamonds
    awards = awards_by_kind(last_scored(game.play_out()))
    assert (awards["high"].card, awards["high"].seat, awards["high"].team) == ("AD", 3, 1)
    assert (awards["low"].card, awards["low"].seat, awards["low"].team) == ("2D", 0, 0)


def test_a_turned_up_ace_is_not_in_play_so_high_goes_to_the_king():
    game = hearts_hand(
        {2: ["KH", "2C", "3C", "4D", "5D", "6D"], 3: ["4H", "5C", "6C", "7C", "8C", "9C"]},
        kick="AH",
    )
    assert game.scores == (1, 0)  # the kicked Ace scored for the dealer's team
    awards = awards_by_kind(last_scored(game.play_out()))
    assert (awards["high"].card, awards["high"].seat) == ("KH", 2)
    assert (awards["low"].card, awards["low"].seat) == ("4H", 3)


def test_a_turned_up_two_is_not_in_play_so_low_goes_to_the_three():
    game = Game(first_dealer=0)
    deck = build_deck(
        0,
        {1: ["3D", "5C", "6C", "7C", "8C", "9C"], 0: ["KD", "2C", "3C", "4C", "2S", "3S"]},
        kick="4H",
        runs=[({}, "2D")],
        back="D",
    )
    game.deal(deck)
    game.beg_and_run()
    awards = awards_by_kind(last_scored(game.play_out()))
    assert (awards["high"].card, awards["high"].seat) == ("KD", 0)
    assert (awards["low"].card, awards["low"].seat) == ("3D", 1)


def test_a_lone_trump_in_play_scores_both_high_and_low_for_its_holder():
    game = hearts_hand({2: ["9H", "2C", "3C", "4D", "5D", "6D"]}, kick="5H")
    scored = last_scored(game.play_out())
    awards = awards_by_kind(scored)
    assert summary(scored)[:2] == [("high", 0, 1, "9H", 2), ("low", 0, 1, "9H", 2)]
    assert "jack" not in awards and "hang_jack" not in awards


def test_with_no_trump_in_play_nobody_scores_high_or_low():
    game = hearts_hand({}, kick="5H")
    assert not any("H" in c for s in range(4) for c in game.hand_of(s))
    scored = last_scored(game.play_out())
    assert {a.kind for a in scored.awards} <= {"game"}


# --- Jack -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seat3", "winner"),
    [
        (["AH", "2C", "3C", "4C", "5C", "6C"], 3),  # the partner takes the Jack
        (["2C", "3C", "4C", "5C", "6C", "7C"], 1),  # the holder wins with it
    ],
)
def test_jack_scores_one_for_its_holders_team_when_that_team_wins_it(seat3, winner):
    game = hearts_hand({1: ["JH", "8C", "9C", "2D", "3D", "4D"], 3: seat3})
    events = game.play("JH")
    events += game.play_out()
    first = of_type(events, TrickWon)[0]
    assert first.seat == winner and "JH" in first.cards
    awards = awards_by_kind(last_scored(events))
    assert "hang_jack" not in awards
    jack = awards["jack"]
    assert (jack.team, jack.points, jack.card, jack.seat) == (1, 1, "JH", 1)


def test_hang_jack_scores_three_for_the_team_that_captures_the_jack():
    game = hearts_hand(
        {1: ["JH", "8C", "9C", "2D", "3D", "4D"], 2: ["QH", "2C", "3C", "4C", "5C", "6C"]}
    )
    events = game.play("JH", "QH")
    events += game.play_out()
    assert of_type(events, TrickWon)[0].team == 0
    scored = last_scored(events)
    awards = awards_by_kind(scored)
    assert "jack" not in awards
    hang = awards["hang_jack"]
    assert (hang.team, hang.points, hang.card, hang.seat) == (0, 3, "JH", 1)
    # QH is High (team 0), JH Low (team 1); the only counting cards are the JH and QH (3),
    # both taken by team 0, which so also scores Game.
    assert summary(scored) == [
        ("high", 0, 1, "QH", 2),
        ("low", 1, 1, "JH", 1),
        ("hang_jack", 0, 3, "JH", 1),
        ("game", 0, 1, None, None),
    ]
    assert tuple(scored.game_counts) == (3, 0)
    assert game.scores == (5, 1)


def test_a_turned_up_jack_scores_three_and_then_nobody_scores_the_jack_point():
    game = hearts_hand({2: ["9H", "2C", "3C", "4D", "5D", "6D"]}, kick="JH")
    assert game.scores == (3, 0)
    scored = last_scored(game.play_out())
    kinds = {a.kind for a in scored.awards}
    assert "jack" not in kinds and "hang_jack" not in kinds
    assert {"high", "low"} <= kinds


def test_an_undealt_jack_is_not_in_play_and_nobody_scores_it():
    game = hearts_hand({2: ["9H", "2C", "3C", "4D", "5D", "6D"]}, kick="5H")
    stock = of_type(game.log, Dealt)[0].stock
    assert "JH" in stock[1:]
    scored = last_scored(game.play_out())
    kinds = {a.kind for a in scored.awards}
    assert "jack" not in kinds and "hang_jack" not in kinds


# --- Game -------------------------------------------------------------------------------------

COUNT_HANDS = {
    1: ["TC", "2S", "5D", "6D", "7D", "8D"],
    2: ["2C", "AS", "KS", "QS", "2D", "3D"],
    3: ["3C", "3S", "5S", "6S", "4D", "9D"],
    0: ["4C", "4S", "7S", "8S", "9S", "5C"],
}
COUNT_TRICKS = [
    ["TC", "2C", "3C", "4C"],  # seat 1 wins the ten: 10 for team 1
    ["2S", "AS", "3S", "4S"],  # seat 2 wins the ace: 4 for team 0
    ["KS", "5S", "7S", "5D"],  # seat 2: king, 3
    ["QS", "6S", "8S", "6D"],  # seat 2: queen, 2
    ["2D", "4D", "9S", "7D"],  # seat 1: nothing counts
    ["8D", "3D", "9D", "5C"],  # seat 3: nothing counts
]


def play_count_hand(hands) -> list:
    game = hearts_hand(hands)
    events = []
    for trick in COUNT_TRICKS:
        events += game.play(*trick)
    return events


def test_game_counts_a4_k3_q2_j1_and_ten_10():
    """Team 0 wins A, K and Q (9), team 1 a lone ten (10): the ten wins the Game point."""
    events = play_count_hand(COUNT_HANDS)
    won = of_type(events, TrickWon)
    counts = [count_of(c for t in won if t.team == team for c in t.cards) for team in (0, 1)]
    assert counts == [9, 10]
    scored = last_scored(events)
    assert tuple(scored.game_counts) == (9, 10)
    assert summary(scored) == [("game", 1, 1, None, None)]  # no trump in play, no Jack


def test_a_game_count_tie_scores_for_nobody():
    """Add the Jack of spades to team 0's captures: 10 each, and nobody scores Game."""
    hands = {**COUNT_HANDS, 3: ["3C", "3S", "5S", "JS", "4D", "9D"]}
    tricks = [list(t) for t in COUNT_TRICKS]
    tricks[3][1] = "JS"
    game = hearts_hand(hands)
    events = []
    for trick in tricks:
        events += game.play(*trick)
    scored = last_scored(events)
    assert tuple(scored.game_counts) == (10, 10)
    assert scored.awards == ()
    assert game.scores == (0, 0)


# --- the deal passes to the right -------------------------------------------------------------


@pytest.mark.parametrize("dealer", range(4))
def test_the_next_hand_is_dealt_by_the_seat_on_the_dealers_right(dealer):
    game = Game(first_dealer=dealer)
    game.deal(build_deck(dealer, kick="3H"))
    game.stand()
    game.play_out()
    following = (dealer + 1) % 4
    assert game.state.dealer == following
    assert (game.state.hand_no, game.state.deal_no) == (2, 1)
    events = game.deal(build_deck(following, kick="3D"))
    assert of_type(events, Dealt)[0].dealer == following
    right = (following + 1) % 4
    assert legal_actions(game.state, right) == [Stand(seat=right), Beg(seat=right)]
    game.refuse(Stand(seat=(dealer + 1) % 4), "not_your_turn")
