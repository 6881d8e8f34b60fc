"""The deal, the kick and its points, standing, begging, giving one and running the pack."""

from __future__ import annotations

import pytest
from decks import (
    Game,
    add_kick_points,
    build_deck,
    event_types,
    exhausting_deck,
    of_type,
    reach_begging_team_at,
    seat_order,
)

from domain import (
    Beg,
    Dealt,
    GiveOne,
    PackRun,
    Play,
    Redealt,
    Revealed,
    Rules,
    RunPack,
    Stand,
    TrumpSet,
    legal_actions,
    view,
)

# --- the deal ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", range(4))
def test_deal_gives_six_each_from_the_dealers_right_and_turns_up_the_25th_card(dealer):
    game = Game(first_dealer=dealer)
    deck = build_deck(dealer)
    events = game.deal(deck)
    assert event_types(events) == ["Dealt", "Revealed"]
    dealt = events[0]
    assert (dealt.hand, dealt.deal, dealt.dealer) == (1, 1, dealer)
    for k, seat in enumerate(seat_order(dealer)):
        assert dealt.hands[seat] == deck[6 * k : 6 * k + 6]
        assert game.hand_of(seat) == set(deck[6 * k : 6 * k + 6])
    assert events[1].card == deck[24]
    assert game.state.phase == "begging"
    assert game.state.to_act == (dealer + 1) % 4


# --- kick points ------------------------------------------------------------------------------

DEFAULT_KICK_POINTS = {"A": 1, "6": 2, "J": 3}


@pytest.mark.parametrize("rank", "23456789TJQKA")
@pytest.mark.parametrize("dealer", [0, 1])
def test_kick_points_go_to_the_dealers_team(rank, dealer):
    """A kicked Ace scores 1, a 6 scores 2, a Jack 3, to the dealer's team; nothing else scores."""
    game = Game(first_dealer=dealer)
    events = game.deal(build_deck(dealer, kick=rank + "D"))
    points = DEFAULT_KICK_POINTS.get(rank, 0)
    kick = of_type(events, Revealed)[0]
    assert (kick.card, kick.points, kick.team) == (rank + "D", points, dealer % 2)
    expected = [0, 0]
    expected[dealer % 2] = points
    assert game.scores == tuple(expected)


TOBAGO_KICK_POINTS = {"A": 1, "2": 2, "J": 3}


@pytest.mark.parametrize("rank", "23456789TJQKA")
def test_tobago_kick_scores_a_two_instead_of_a_six(rank):
    game = Game(rules=Rules(tobago_kick=True), first_dealer=3)
    game.deal(build_deck(3, kick=rank + "S"))
    assert game.scores == (0, TOBAGO_KICK_POINTS.get(rank, 0))


def test_kick_points_score_for_every_card_turned_up_while_running_the_pack():
    """First kick JH (3), run: 6H is the same suit (2, set aside), run again: AS (1) is trump."""
    game = Game(first_dealer=2)
    game.deal(build_deck(2, kick="JH", runs=[({}, "6H"), ({}, "AS")]))
    assert game.scores == (3, 0)
    events = game.beg_and_run()
    assert event_types(events) == [
        "Begged",
        "PackRun",
        "Revealed",
        "PackRun",
        "Revealed",
        "TrumpSet",
    ]
    kicks = of_type(events, Revealed)
    assert [(k.card, k.points, k.team) for k in kicks] == [("6H", 2, 0), ("AS", 1, 0)]
    assert game.scores == (6, 0)
    assert of_type(events, TrumpSet)[0].suit == "S"


def test_tobago_kick_applies_to_cards_turned_up_while_running_the_pack():
    game = Game(rules=Rules(tobago_kick=True), first_dealer=1)
    game.deal(build_deck(1, kick="3C", runs=[({}, "2D")]))
    game.beg_and_run()
    assert game.scores == (0, 2)


# --- standing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", range(4))
def test_stand_makes_the_kick_suit_trump_and_the_dealers_right_leads(dealer):
    game = Game(first_dealer=dealer)
    game.deal(build_deck(dealer, kick="4H"))
    right = (dealer + 1) % 4
    for seat in range(4):
        if seat != right:
            game.refuse(Stand(seat=seat), "not_your_turn")
    events = game.do(Stand(seat=right))
    assert event_types(events) == ["Stood", "TrumpSet"]
    assert events[1].suit == "H"
    assert game.state.phase == "playing"
    assert game.state.to_act == right
    card = sorted(game.hand_of(right))[0]
    game.do(Play(seat=right, card=card))
    assert game.scores == (0, 0)


def test_stand_is_allowed_without_a_trump_in_hand():
    game = Game(first_dealer=0)
    game.deal(build_deck(0, hands={1: ["2C", "3C", "4C", "5C", "7C", "8C"]}, kick="9S", back="S"))
    assert not any(c.endswith("S") for c in game.hand_of(1))
    game.do(Stand(seat=1))
    assert game.state.phase == "playing"


# --- begging ----------------------------------------------------------------------------------


def test_beg_passes_the_choice_to_the_dealer():
    game = Game(first_dealer=3)
    game.deal(build_deck(3, kick="4H"))
    for seat in (1, 2, 3):
        game.refuse(Beg(seat=seat), "not_your_turn")
    assert event_types(game.do(Beg(seat=0))) == ["Begged"]
    assert game.state.phase == "dealer_choice"
    assert game.state.to_act == 3
    assert legal_actions(game.state, 3) == [GiveOne(seat=3), RunPack(seat=3)]
    assert all(legal_actions(game.state, s) == [] for s in (0, 1, 2))
    for seat in (0, 1, 2):
        game.refuse(GiveOne(seat=seat), "not_your_turn")
        game.refuse(RunPack(seat=seat), "not_your_turn")
    game.refuse(Beg(seat=0), "wrong_phase")
    game.refuse(Stand(seat=0), "wrong_phase")


@pytest.mark.parametrize("dealer", range(4))
def test_give_one_scores_one_for_the_begging_team_and_the_kick_suit_stays_trump(dealer):
    game = Game(first_dealer=dealer)
    game.deal(build_deck(dealer, kick="8C"))
    events = game.do(Beg(seat=(dealer + 1) % 4), GiveOne(seat=dealer))
    assert event_types(events) == ["Begged", "GaveOne", "TrumpSet"]
    begging_team = (dealer + 1) % 2
    assert (events[1].team, events[1].points) == (begging_team, 1)
    expected = [0, 0]
    expected[begging_team] = 1
    assert game.scores == tuple(expected)
    assert events[2].suit == "C"
    assert game.state.to_act == (dealer + 1) % 4
    assert all(len(game.hand_of(s)) == 6 for s in range(4))


def test_give_one_at_13_forbidden_makes_the_dealer_run_when_the_begging_team_needs_one():
    game = reach_begging_team_at(6, Rules(target=7, give_one_at_13="forbidden"))
    assert legal_actions(game.state, 1) == [RunPack(seat=1)]
    game.refuse(GiveOne(seat=1), "give_one_forbidden")
    events = game.do(RunPack(seat=1))
    assert event_types(events)[-1] == "TrumpSet"
    assert game.state.trump == 3  # spades
    assert game.scores == (6, 4)


def test_give_one_at_13_forbidden_still_allows_give_one_below_target_minus_one():
    game = reach_begging_team_at(5, Rules(target=7, give_one_at_13="forbidden"))
    assert legal_actions(game.state, 1) == [GiveOne(seat=1), RunPack(seat=1)]
    game.do(GiveOne(seat=1))
    assert game.scores == (6, 4)
    assert game.state.phase == "playing"


def test_give_one_at_13_forbidden_looks_at_the_begging_team_not_the_dealers():
    rules = Rules(target=7, give_one_at_13="forbidden")
    game = Game(rules=rules, first_dealer=0)
    add_kick_points(game, ("JH", "AH", "6H"))  # the dealer's own team reaches target - 1
    assert game.scores == (6, 0)
    game.deal(build_deck(0, kick="3D"))
    game.do(Beg(seat=1))
    game.do(GiveOne(seat=0))
    assert game.scores == (6, 1)


def test_give_one_at_target_minus_one_is_allowed_by_default():
    game = reach_begging_team_at(6, Rules(target=7))
    assert legal_actions(game.state, 1) == [GiveOne(seat=1), RunPack(seat=1)]
    events = game.do(GiveOne(seat=1))
    assert event_types(events) == ["GaveOne", "GameEnded"]
    assert game.state.winner == 0


# --- running the pack -------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", range(4))
def test_run_the_pack_deals_three_more_each_and_a_new_suit_becomes_trump(dealer):
    game = Game(first_dealer=dealer)
    deck = build_deck(dealer, kick="5H", runs=[({}, "7D")])
    game.deal(deck)
    events = game.beg_and_run()
    assert event_types(events) == ["Begged", "PackRun", "Revealed", "TrumpSet"]
    run = of_type(events, PackRun)[0]
    for k, seat in enumerate(seat_order(dealer)):
        extra = deck[25 + 3 * k : 28 + 3 * k]
        assert run.hands[seat] == extra
        first = deck[6 * k : 6 * k + 6]
        assert game.hand_of(seat) == set(first) | set(extra)
    assert of_type(events, Revealed)[0].card == "7D" == deck[37]
    assert of_type(events, TrumpSet)[0].suit == "D"
    assert game.state.phase == "playing"
    assert game.state.to_act == (dealer + 1) % 4


def test_running_the_pack_repeats_while_the_same_suit_turns_up():
    game = Game(first_dealer=0)
    deck = build_deck(0, kick="5H", runs=[({}, "9H"), ({}, "2C")])
    game.deal(deck)
    events = game.beg_and_run()
    assert event_types(events) == [
        "Begged",
        "PackRun",
        "Revealed",
        "PackRun",
        "Revealed",
        "TrumpSet",
    ]
    assert [k.card for k in of_type(events, Revealed)] == ["9H", "2C"]
    assert of_type(events, TrumpSet)[0].suit == "C"
    assert all(len(game.hand_of(s)) == 12 for s in range(4))
    # the set-aside 9H and both kicks are out of play: nobody holds them
    assert not any(c in game.hand_of(s) for s in range(4) for c in ("5H", "9H", "2C"))
    assert view(game.state, None).kicks == ("5H", "9H", "2C")


def test_the_new_suit_is_compared_with_the_first_kick():
    """Only the first kick's suit is refused: 3S after 5H stops the running at once."""
    game = Game(first_dealer=1)
    game.deal(build_deck(1, kick="5H", runs=[({}, "3S"), ({}, "4S")]))
    events = game.beg_and_run()
    assert [k.card for k in of_type(events, Revealed)] == ["3S"]
    assert of_type(events, TrumpSet)[0].suit == "S"


def test_third_same_suit_kick_exhausts_the_pack_and_the_same_dealer_redeals():
    game = Game(first_dealer=2)
    game.deal(exhausting_deck(2, ("6H", "AH", "3H")))
    assert game.scores == (2, 0)
    events = game.beg_and_run()
    assert event_types(events) == [
        "Begged",
        "PackRun",
        "Revealed",
        "PackRun",
        "Revealed",
        "Redealt",
    ]
    assert of_type(events, Redealt)[0].dealer == 2
    assert game.scores == (3, 0)  # kick points stand
    assert game.state.phase == "dealing"
    assert (game.state.hand_no, game.state.deal_no, game.state.dealer) == (1, 2, 2)
    events = game.deal(build_deck(2, kick="2D"))
    dealt = of_type(events, Dealt)[0]
    assert (dealt.hand, dealt.deal, dealt.dealer) == (1, 2, 2)
    assert game.state.to_act == 3
    # a fresh deal: the dealer's right may stand or beg again
    assert legal_actions(game.state, 3) == [Stand(seat=3), Beg(seat=3)]


def test_nobody_may_beg_again_after_running_the_pack():
    game = Game(first_dealer=0)
    game.deal(build_deck(0, kick="5H", runs=[({}, "7D")]))
    game.beg_and_run()
    assert game.state.phase == "playing"
    for seat in range(4):
        game.refuse(Beg(seat=seat), "wrong_phase")
        game.refuse(Stand(seat=seat), "wrong_phase")
        game.refuse(GiveOne(seat=seat), "wrong_phase")
        game.refuse(RunPack(seat=seat), "wrong_phase")
    assert all(not isinstance(a, (Beg, Stand)) for a in legal_actions(game.state, 1))
