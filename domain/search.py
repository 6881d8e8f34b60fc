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
from domain.policy import gives_one, play_card, stands
from domain.records import Record
from domain.sight import BotView
from domain.state import next_seat
from domain.worlds import Knowledge, sample_hands, world_state

MISPLAY: Final = 0.15
"""How likely a seat is taken to be to play a card the heuristic would not have played there:
a deal in which a seat's play was not the heuristic's weighs this much less. Not 0: people,
random bots and the search itself do not play the heuristic."""
MISBID: Final = 0.1
"""The same for a stand, beg or give one the heuristic would not have made with that hand."""


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
    seat's team, in the order of the legal actions."""
    actions = sight.legal_actions
    knowledge = Knowledge(sight)
    deals: list[list[int]] = []
    weights: list[float] = []
    for _ in range(budget.deals):
        hands = sample_hands(knowledge, sight.hand_cards, rng)
        deals.append(hands)
        weights.append(likelihood(sight, knowledge, hands))
    keep = max(1, min(budget.worlds, budget.playouts // len(actions)))
    team = sight.viewer & 1
    totals = [0.0] * len(actions)
    kept = 0
    for index, times in _resample(weights, keep, rng):
        hands = deals[index]
        stock = list(C.cards_in(hands[4]))
        rng.shuffle(stock)
        world = world_state(sight, hands, stock)
        for i, action in enumerate(actions):
            totals[i] += times * playout(execute(world, action)[0], team)
        kept += times
    return [(action, totals[i] / kept) for i, action in enumerate(actions)]


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


def likelihood(sight: BotView, knowledge: Knowledge, hands: list[int]) -> float:
    """How likely the other seats were, holding ``hands``, to decide what they did this hand
    (up to a constant): ``MISBID`` or ``MISPLAY`` for each decision the heuristic would not
    have made."""
    me = knowledge.me
    played = knowledge.played_by
    dealt = [hands[s] | played[s] for s in range(4)]
    kicks = sight.kick_cards
    proposed = kicks[0] // 13
    weight = 1.0
    begger = next_seat(sight.dealer)
    made = sight.phase != "begging"
    # With one kick the hands are as first dealt: six cards each, the ones the bid was made on.
    if (
        made
        and len(kicks) == 1
        and begger != me
        and stands(dealt[begger], proposed) == sight.begged
    ):
        weight *= MISBID
    dealer = sight.dealer
    if sight.begged and sight.trump_suit is not None and len(kicks) == 1 and dealer != me:
        begging_score = sight.scores[begger & 1] - 1  # before the point it was given
        if not gives_one(dealt[dealer], proposed, begging_score, sight.rules.target):
            weight *= MISBID
    if sight.plays:
        weight *= _plays_likelihood(sight, me, dealt)
    return weight


def _plays_likelihood(sight: BotView, me: int, dealt: list[int]) -> float:
    """Replay the hand's cards from its first lead in the deal, asking the heuristic at each
    card another seat played what it would have played there."""
    trump = sight.trump_suit
    assert trump is not None
    forbidden = sight.rules.undertrump == "forbidden"
    hands = list(dealt)
    trick: tuple[int, ...] = ()
    leader = next_seat(sight.dealer)
    weight = 1.0
    for entry in sight.plays:
        seat, card = entry >> 6, entry & 63
        if seat != me:
            allowed = follow_cards(hands[seat], trick, trump, forbidden)[0]
            if play_card(allowed, seat, trump, trick, leader) != card:
                weight *= MISPLAY
        hands[seat] &= ~(1 << card)
        trick = (*trick, card)
        if len(trick) == 4:
            leader = trick_winner(trick, leader, trump)
            trick = ()
    return weight


def best_action(sight: BotView, rng: random.Random, budget: Budget) -> PlayerCommand:
    """The legal action of highest estimated chance (the first of equals); a forced move is
    made at once."""
    actions = sight.legal_actions
    if len(actions) == 1:
        return actions[0]
    values = action_values(sight, rng, budget)
    best = 0
    for i in range(1, len(values)):
        if values[i][1] > values[best][1]:
            best = i
    return values[best][0]


def ranked(values: list[tuple[PlayerCommand, float]]) -> tuple[tuple[PlayerCommand, float], ...]:
    """Actions with their chances, the best first (equals in the order of the legal actions)."""
    order = sorted(range(len(values)), key=lambda i: -values[i][1])
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
    return ranked(action_values(sight, rng, LEVELS[level]))
