"""The search bots: determinized Monte Carlo over the deals a seat cannot tell apart (PIMC).

For a decision, the search deals the cards its seat has not seen in many ways consistent with
what it has seen (``worlds``), weighs each deal by how likely the other seats were to make the
decisions they made with those cards (their stand or beg, give one, and every card they played,
as the heuristic would have), keeps the likely deals in proportion to their weight, and in each
tries every legal action and plays the hand out with the heuristic (``policy``) for all four
seats. An action's worth is the mean chance of winning the game that its playouts leave
(``winprob``), not the points: the score matters as the game stands.

Everything is a function of the seat's ``BotView`` and the ``rng``, with a fixed number of
deals and playouts (``Budget``), never of the clock: the same view and rng state decide the
same, so games with search bots replay and tests repeat.
"""

from __future__ import annotations

import random
from typing import Final

from domain import cards as C
from domain.commands import PlayerCommand
from domain.decide import execute
from domain.legal import follow_cards, trick_winner
from domain.playout import playout
from domain.policy import gives_one, heuristic_action, play_card, stands
from domain.records import Record
from domain.sight import BotView
from domain.state import State, next_seat
from domain.worlds import Knowledge, sample_hands, world_state

# How the search models another seat's decisions (its stand or beg, give one, cards): as a
# mixture of two players it cannot tell apart from one hand's plays. A close follower of the
# heuristic (the ``heuristic`` bot, whose every decision a true deal explains) strays from it
# rarely; a loose one (a person, a random bot, another search) often. Weighing a deal by the
# mixture makes the inference sharp against a heuristic seat without being misled by a seat
# that plays otherwise: once no deal explains a seat's play by the heuristic, the loose model
# takes over and its deals weigh nearly alike. (One flat penalty per stray, as before, was
# either too soft for the first or too harsh for the second.)
CLOSE_STRAY: Final = 0.03
"""How often the close model strays from the heuristic's decision."""
LOOSE_STRAY: Final = 0.35
"""How often the loose model strays from it."""
CLOSE_PRIOR: Final = 0.7
"""The chance, before this hand's decisions are seen, that a seat is the close model."""


class Budget(Record):
    """How much a search level thinks: a count of deals and of playouts, not of time."""

    FIELDS = ("deals", "worlds", "playouts")
    __slots__ = FIELDS

    deals: Final[int]
    """Deals drawn and weighed by the other seats' decisions."""
    worlds: Final[int]
    """Deals kept (in proportion to their weight) and played out, at most."""
    playouts: Final[int]
    """Playouts per decision at most (deals kept x legal actions)."""

    def __init__(self, deals: int, worlds: int, playouts: int) -> None:
        self.deals = deals
        self.worlds = worlds
        self.playouts = playouts


def action_values(
    sight: BotView, rng: random.Random, budget: Budget
) -> list[tuple[PlayerCommand, float]]:
    """Each legal action of ``sight`` with its estimated chance of winning the game for the
    seat's team, in the order of the legal actions. Every action is played out in the same
    worlds, so the comparison between actions carries no sampling luck of its own."""
    return values_in(sight, sampled_worlds(sight, rng, budget))


def values_in(sight: BotView, worlds: list[tuple[State, int]]) -> list[tuple[PlayerCommand, float]]:
    """Each legal action of ``sight`` with its mean chance over ``worlds`` (each counted the
    times it was drawn), every action played out in every world."""
    actions = sight.legal_actions
    team = sight.viewer & 1
    totals = [0.0] * len(actions)
    kept = 0
    for world, times in worlds:
        for i, action in enumerate(actions):
            totals[i] += times * playout(execute(world, action)[0], team)
        kept += times
    return [(action, totals[i] / kept) for i, action in enumerate(actions)]


def sampled_worlds(sight: BotView, rng: random.Random, budget: Budget) -> list[tuple[State, int]]:
    """The worlds ``action_values`` plays out for ``sight`` with ``rng`` (in this rng state),
    each with the number of times it was drawn: deals of the cards the seat has not seen,
    drawn and weighed by the other seats' decisions, kept in proportion to their weight. Made
    from the seat's view and the rng alone; the referee test checks each against the seat's
    information."""
    knowledge = Knowledge(sight)
    deals: list[list[int]] = []
    weights: list[float] = []
    for _ in range(budget.deals):
        hands = sample_hands(knowledge, sight.hand_cards, rng)
        deals.append(hands)
        weights.append(likelihood(sight, knowledge, hands, rng))
    keep = max(1, min(budget.worlds, budget.playouts // len(sight.legal_actions)))
    worlds: list[tuple[State, int]] = []
    for index, times in _resample(weights, keep, rng):
        hands = deals[index]
        stock = list(C.cards_in(hands[4]))
        rng.shuffle(stock)
        worlds.append((world_state(sight, knowledge, hands, stock), times))
    return worlds


def _resample(weights: list[float], keep: int, rng: random.Random) -> list[tuple[int, int]]:
    """``keep`` draws of deal indexes in proportion to ``weights`` (systematic resampling: one
    random offset, evenly spaced), as (index, times drawn) for the indexes drawn."""
    total = sum(weights)
    step = total / keep
    point = rng.random() * step
    drawn: list[tuple[int, int]] = []
    reached = 0.0
    count = 0
    for index, weight in enumerate(weights):
        reached += weight
        times = 0
        while point < reached and count < keep:
            times += 1
            count += 1
            point += step
        if times:
            drawn.append((index, times))
    return drawn


def likelihood(sight: BotView, knowledge: Knowledge, hands: list[int], rng: random.Random) -> float:
    """How likely the other seats were, holding ``hands``, to decide what they did this hand
    (up to a constant): each seat's decisions that the heuristic would (not) have made with
    those cards, under the mixture of a close and a loose follower of it."""
    me = knowledge.me
    played = knowledge.played_by
    dealt = [hands[s] | played[s] for s in range(4)]
    kicks = sight.kick_cards
    proposed = kicks[0] // 13
    decided = [0, 0, 0, 0]
    strayed = [0, 0, 0, 0]
    begger = next_seat(sight.dealer)
    dealer = sight.dealer
    ran = len(kicks) > 1
    if sight.phase != "begging" and begger != me:
        decided[begger] += 1
        strayed[begger] += stands(_first_dealt(dealt[begger], ran, rng), proposed) == sight.begged
    if sight.begged and dealer != me and (sight.trump_suit is not None or ran):
        # The dealer gave one (one kick, trump made) or ran the pack (more kicks), where
        # giving one was allowed. Before a point was given or a card more dealt.
        begging_score = sight.scores[begger & 1] - (not ran)
        target = sight.rules.target
        if not ran or sight.rules.give_one_at_13 == "allowed" or begging_score != target - 1:
            gave = gives_one(_first_dealt(dealt[dealer], ran, rng), proposed, begging_score, target)
            decided[dealer] += 1
            strayed[dealer] += gave == ran
    if knowledge.plays:
        _count_plays(sight, knowledge.plays, me, dealt, decided, strayed)
    weight = 1.0
    for seat in range(4):
        if decided[seat]:
            d, m = strayed[seat], decided[seat] - strayed[seat]
            close = CLOSE_PRIOR * CLOSE_STRAY**d * (1 - CLOSE_STRAY) ** m
            loose = (1 - CLOSE_PRIOR) * LOOSE_STRAY**d * (1 - LOOSE_STRAY) ** m
            weight *= close + loose
    return weight


def _first_dealt(dealt: int, ran: bool, rng: random.Random) -> int:
    """The six cards a seat bid on: all it was dealt with one kick; after a run of the pack,
    which six of its cards came first is unknown, so six of them at random (over the draws,
    the weight is the mean over the first six it may have had)."""
    if not ran:
        return dealt
    first = 0
    for card in rng.sample(list(C.cards_in(dealt)), 6):
        first |= 1 << card
    return first


def _count_plays(
    sight: BotView,
    plays: tuple[int, ...],
    me: int,
    dealt: list[int],
    decided: list[int],
    strayed: list[int],
) -> None:
    """Replay the hand's cards from its first lead in the deal, asking the heuristic at each
    card another seat chose (a forced card says nothing) what it would have played there."""
    trump = sight.trump_suit
    assert trump is not None
    forbidden = sight.rules.undertrump == "forbidden"
    hands = list(dealt)
    trick: tuple[int, ...] = ()
    leader = next_seat(sight.dealer)
    for entry in plays:
        seat, card = entry >> 6, entry & 63
        if seat != me:
            allowed = follow_cards(hands[seat], trick, trump, forbidden)[0]
            if allowed & (allowed - 1):
                decided[seat] += 1
                strayed[seat] += play_card(allowed, seat, trump, trick, leader) != card
        hands[seat] &= ~(1 << card)
        trick = (*trick, card)
        if len(trick) == 4:
            leader = trick_winner(trick, leader, trump)
            trick = ()


def best_action(sight: BotView, rng: random.Random, budget: Budget) -> PlayerCommand:
    """The legal action of highest estimated chance (``ranked``); a forced move is made at
    once."""
    actions = sight.legal_actions
    if len(actions) == 1:
        return actions[0]
    return ranked(sight, action_values(sight, rng, budget))[0][0]


def ranked(
    sight: BotView, values: list[tuple[PlayerCommand, float]]
) -> tuple[tuple[PlayerCommand, float], ...]:
    """Actions with their chances, the best first. Among equals, the heuristic's choice comes
    first, then the order of the legal actions: where every world plays out alike (a discard
    late in the hand, say), the heuristic's card is as good as any, and it is the card the
    partner's inference expects (``likelihood`` models every other seat as the heuristic).
    (Against the first of equals, on the bench's 400 deals: ``strong`` 69.25% against
    67.75% of the heuristic's games, ``master`` 70.75% against 70.3%: within the noise.)"""
    usual = heuristic_action(
        sight.legal_actions,
        sight.viewer,
        sight.hand_cards,
        sight.trump_suit,
        sight.trick_cards,
        sight.trick_leader,
        sight.kick_cards[0] // 13,
        sight.scores[(sight.viewer + 1) & 1],
        sight.rules.target,
    )
    order = sorted(range(len(values)), key=lambda i: (-values[i][1], values[i][0] != usual, i))
    return tuple([values[i] for i in order])


LEVELS: Final[dict[str, Budget]] = {
    "strong": Budget(deals=340, worlds=36, playouts=240),
    "master": Budget(deals=1000, worlds=64, playouts=640),
}
"""The search levels a seat can be played at, by the name ``PlayerJoined.bot`` records.
Weighing deals is what pays most (the search on the true deal wins nearly every game), so
the budgets go to deals first; ``strong`` keeps its p99 near 25 ms of CPU per decision,
``master`` near 100 ms (``tests/bench/bots.py``)."""


def strong_bot(sight: BotView, rng: random.Random) -> PlayerCommand:
    """The ``strong`` level: a quick search (``LEVELS``)."""
    return best_action(sight, rng, LEVELS["strong"])


def master_bot(sight: BotView, rng: random.Random) -> PlayerCommand:
    """The ``master`` level: the search with the most deals (``LEVELS``)."""
    return best_action(sight, rng, LEVELS["master"])


def hints(
    sight: BotView, rng: random.Random, *, level: str = "master"
) -> tuple[tuple[PlayerCommand, float], ...]:
    """Every legal action of the seat with its estimated chance of winning the game, the best
    first, as the search of ``level`` sees it (a forced move is searched too, for its chance);
    empty when the seat has nothing to decide."""
    if not sight.legal_actions:
        return ()
    return ranked(sight, action_values(sight, rng, LEVELS[level]))
