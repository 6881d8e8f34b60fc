"""The worked cases of the issue, each driven through commands from a new game."""

from __future__ import annotations

from decks import (
    Game,
    add_kick_points,
    build_deck,
    event_types,
    last_scored,
    of_type,
    sweep_hand,
)

from domain import Beg, Dealt, GameEnded, GiveOne, HandScored, Redealt, Revealed, Rules

# The last deal of the 13-13 case: dealer 0, seat 1 stands on the 2D, trump diamonds.
# AD (seat 2, team A = 0) is High; 3D (seat 1, team B = 1) is Low; B's JD is taken by B;
# B wins the Game count 49 to 4.
FINAL_HANDS = {
    1: ["3D", "JD", "AS", "KS", "QS", "TS"],
    2: ["AD", "2C", "5C", "7C", "8C", "9C"],
    3: ["2H", "TC", "AH", "KH", "QH", "TH"],
    0: ["2S", "3S", "4S", "5S", "3C", "4C"],
}
FINAL_TRICKS = [
    ["3D", "AD", "2H", "2S"],  # seat 2 takes the trick with the AD
    ["2C", "TC", "3C", "JD"],  # seat 1 trumps with the Jack: B keeps it
    ["AS", "5C", "AH", "3S"],
    ["KS", "7C", "KH", "4S"],
    ["QS", "8C", "QH", "5S"],
    ["TS", "9C", "TH", "4C"],
]


def play_final_deal(game: Game) -> list:
    events = game.deal(build_deck(0, FINAL_HANDS, kick="2D"))
    events += game.stand()
    for trick in FINAL_TRICKS:
        events += game.play(*trick)
    return events


def test_the_final_deal_gives_high_to_a_and_low_jack_and_game_to_b():
    """The same deal from 0-0: B would score three points to A's one."""
    game = Game(first_dealer=0)
    scored = last_scored(play_final_deal(game))
    assert [(a.kind, a.team, a.card) for a in scored.awards] == [
        ("high", 0, "AD"),
        ("low", 1, "3D"),
        ("jack", 1, "JD"),
        ("game", 1, None),
    ]
    assert tuple(scored.game_counts) == (4, 49)
    assert game.scores == (1, 3)


def test_both_teams_at_13_high_for_a_wins_though_b_takes_low_jack_and_game():
    game = Game(first_dealer=3)
    # Hand 1, dealt by seat 3 (team B): three exhausted deals of kick points, then A sweeps.
    add_kick_points(game, ("JH", "AH", "6H"))
    add_kick_points(game, ("JS", "AS", "6S"))
    add_kick_points(game, ("AC", "2C", "3C"))
    assert game.scores == (0, 13)
    sweep_hand(game, team=0, suit="H")
    assert game.scores == (4, 13)
    # Hand 2, dealt by seat 0 (team A): kick points take A to 13.
    assert game.state.dealer == 0
    add_kick_points(game, ("JH", "AH", "6H"))
    add_kick_points(game, ("6S", "2S", "3S"))
    add_kick_points(game, ("AC", "2C", "3C"))
    assert game.scores == (13, 13)
    events = play_final_deal(game)
    scored = last_scored(events)
    assert [(a.kind, a.team, a.points, a.card, a.seat) for a in scored.awards] == [
        ("high", 0, 1, "AD", 2)
    ]
    assert scored.scores == (14, 13)
    assert event_types(events)[-2:] == ["HandScored", "GameEnded"]
    ended = of_type(events, GameEnded)[0]
    assert (ended.winner, ended.scores) == (0, (14, 13))
    assert game.state.phase == "ended"
    assert game.state.winner == 0


def test_a_lone_trump_in_play_scores_high_and_low_for_its_holder():
    game = Game(first_dealer=1)
    game.deal(build_deck(1, {0: ["7S", "2C", "3C", "4D", "5D", "6D"]}, kick="4S", back="S"))
    game.stand()
    scored = last_scored(game.play_out())
    lone = [(a.kind, a.team, a.card, a.seat) for a in scored.awards if a.kind in ("high", "low")]
    assert lone == [("high", 0, "7S", 0), ("low", 0, "7S", 0)]


def test_a_kicked_jack_scores_three_and_then_nobody_scores_the_jack_point():
    game = Game(first_dealer=1)
    events = game.deal(build_deck(1, kick="JC"))
    kick = of_type(events, Revealed)[0]
    assert (kick.card, kick.points, kick.team) == ("JC", 3, 1)
    assert game.scores == (0, 3)
    game.stand()
    events = game.play_out()
    scored = last_scored(events)
    assert not [a for a in scored.awards if a.kind in ("jack", "hang_jack")]
    assert scored.awards, "High and Low still score"
    assert game.scores == (
        sum(a.points for a in scored.awards if a.team == 0),
        3 + sum(a.points for a in scored.awards if a.team == 1),
    )


def test_three_same_suit_kicks_exhaust_the_pack_and_the_same_dealer_redeals_keeping_kick_points():
    game = Game(first_dealer=1)
    game.deal(build_deck(1, kick="JD", runs=[({}, "AD"), ({}, "6D")]))
    assert game.scores == (0, 3)
    events = game.beg_and_run()
    assert event_types(events) == [
        "Begged",
        "PackRun",
        "Revealed",
        "PackRun",
        "Revealed",
        "Redealt",
    ]
    assert [k.points for k in of_type(events, Revealed)] == [1, 2]
    assert of_type(events, Redealt)[0].dealer == 1
    assert game.scores == (0, 6)
    assert (game.state.phase, game.state.dealer, game.state.hand_no, game.state.deal_no) == (
        "dealing",
        1,
        1,
        2,
    )
    events = game.deal(build_deck(1, kick="3C"))
    dealt = of_type(events, Dealt)[0]
    assert (dealt.hand, dealt.deal, dealt.dealer) == (1, 2, 1)
    assert game.scores == (0, 6)
    assert game.state.to_act == 2


def test_kick_points_reaching_14_before_the_beg_end_the_game():
    game = Game(first_dealer=0)
    add_kick_points(game, ("JH", "AH", "6H"))
    add_kick_points(game, ("JS", "AS", "6S"))
    assert game.scores == (12, 0)
    events = game.deal(build_deck(0, kick="6C"))
    assert event_types(events) == ["Dealt", "Revealed", "GameEnded"]
    assert game.scores == (14, 0)
    assert game.state.winner == 0
    game.refuse(Beg(seat=1), "game_over")


def test_give_one_reaching_14_ends_the_game():
    game = Game(first_dealer=0)
    add_kick_points(game, ("JH", "AH", "6H"))
    add_kick_points(game, ("JS", "AS", "6S"))
    add_kick_points(game, ("AC", "2C", "3C"))
    sweep_hand(game, team=1, suit="D")
    assert game.scores == (13, 4)
    assert game.state.dealer == 1
    game.deal(build_deck(1, kick="3H"))
    events = game.do(Beg(seat=2), GiveOne(seat=1))
    assert event_types(events) == ["Begged", "GaveOne", "GameEnded"]
    assert game.scores == (14, 4)
    assert game.state.winner == 0
    assert game.state.trump is None


def test_give_one_at_13_forbidden_in_the_same_position():
    game = Game(rules=Rules(give_one_at_13="forbidden"), first_dealer=0)
    add_kick_points(game, ("JH", "AH", "6H"))
    add_kick_points(game, ("JS", "AS", "6S"))
    add_kick_points(game, ("AC", "2C", "3C"))
    sweep_hand(game, team=1, suit="D")
    game.deal(build_deck(1, kick="3H"))
    game.do(Beg(seat=2))
    game.refuse(GiveOne(seat=1), "give_one_forbidden")


def test_a_zero_zero_game_count_scores_for_nobody():
    """No counting card is dealt (all tens and court cards are in the stock or kicked)."""
    zero = [r + s for s in "CDHS" for r in "2345679"]  # 28 cards without game count
    hands = {seat: zero[6 * seat : 6 * seat + 6] for seat in range(4)}
    game = Game(first_dealer=2)
    game.deal(build_deck(2, hands, kick="8H"))
    game.stand()
    events = game.play_out()
    scored = last_scored(events)
    assert tuple(scored.game_counts) == (0, 0)
    assert "game" not in [a.kind for a in scored.awards]
    assert [a.kind for a in scored.awards] == ["high", "low"]
    assert of_type(events, HandScored)[0].scores == game.scores
