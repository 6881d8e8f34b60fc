"""Playing an imagined hand out with the heuristic, fast: the inner loop of the search.

Until trump is made the game's own ``execute`` plays (the kicks, running the pack, a redeal
are rare and many-sided). From the first card on, a hand is only cards following cards, so
the playout keeps four card sets and the trick in local variables, and asks the rules' own
functions (``legal.follow_cards``, ``legal.trick_winner``, ``decide.hand_awards``) instead of
making an event and a state for every card: several times the playouts per millisecond.
"""

from __future__ import annotations

from domain import cards as C
from domain.decide import execute, hand_awards
from domain.legal import follow_cards, trick_winner
from domain.policy import heuristic_command, play_card
from domain.state import State, next_seat
from domain.winprob import win_probability


def playout(state: State, team: int) -> float:
    """``team``'s chance of winning the game once the heuristic has played the hand out."""
    while True:
        phase = state.phase
        if phase == "ended":
            return 1.0 if state.winner == team else 0.0
        if phase == "dealing":
            # A hand scored: ``dealer`` has passed to the next hand's already.
            return win_probability(state.scores, team, state.rules.target, state.dealer)
        if phase == "playing":
            return _cards_out(state, team)
        seat = state.to_act
        assert seat is not None
        state = execute(state, heuristic_command(state, seat))[0]


def _cards_out(state: State, team: int) -> float:
    trump = state.trump
    assert trump is not None
    forbidden = state.rules.undertrump == "forbidden"
    hands = list(state.hands)
    won = [state.won[0], state.won[1]]
    trick = state.trick
    leader = state.leader
    while hands[0] | hands[1] | hands[2] | hands[3]:
        seat = (leader + len(trick)) & 3
        allowed = follow_cards(hands[seat], trick, trump, forbidden)[0]
        card = play_card(allowed, seat, trump, trick, leader)
        hands[seat] &= ~(1 << card)
        trick = (*trick, card)
        if len(trick) == 4:
            leader = trick_winner(trick, leader, trump)
            won[leader & 1] |= C.cardset(trick)
            trick = ()
    return _scored(state.replace(hands=(0, 0, 0, 0), won=(won[0], won[1])), team)


def _scored(state: State, team: int) -> float:
    """``team``'s chance once the played-out hand is scored: the awards in order, the game
    over at the first that reaches the target (as ``decide`` scores a hand)."""
    target = state.rules.target
    scores = [state.scores[0], state.scores[1]]
    for award in hand_awards(state)[0]:
        scores[award.team] += award.points
        if scores[award.team] >= target:
            return 1.0 if award.team == team else 0.0
    return win_probability((scores[0], scores[1]), team, target, next_seat(state.dealer))
