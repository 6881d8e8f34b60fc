"""The chance of winning the game from a score: how the search values the end of a hand.

A search plays a hand out, not the game, so it needs the worth of the score a hand leaves:
a point matters more at 12-13 than at 0-0, and a hand that wins the game is worth the game,
however few points it took. The chance comes from a model of the points a hand gives (the
dealer's kick first, then each award in the rules' order, to either team alike), and the race
to the target that follows from it, exactly as the game ends: the moment a team reaches the
target. Who deals matters near the end: a kicked ace, six or jack scores for the dealer's
team before a card is played, so at 13-13 the dealing team wins outright nearly one hand in
four; the deal passes to the other team each hand.
"""

from __future__ import annotations

from functools import lru_cache

# The dealer's kick: (points to the dealer's team, probability): an ace 1, a six 2, a jack 3
# (a two instead of a six under the Tobago kick: the same chance), each one card in 13.
_KICK = ((0, 10 / 13), (1, 1 / 13), (2, 1 / 13), (3, 1 / 13))
# A hand's awards in the rules' order, each a list of (points to us, points to them,
# probability). The chances are rough counts of Trinidad hands: two trumps or more are nearly
# always in play, the Jack in a little over half the hands and hanged in a quarter of those,
# and the Game point tied now and then; given points are left out.
_HIGH = ((1, 0, 0.5), (0, 1, 0.5))
_LOW = ((1, 0, 0.48), (0, 1, 0.48), (0, 0, 0.04))
_JACK = ((0, 0, 0.45), (1, 0, 0.2), (0, 1, 0.2), (3, 0, 0.075), (0, 3, 0.075))
_GAME = ((1, 0, 0.48), (0, 1, 0.48), (0, 0, 0.04))
_AWARDS = (_HIGH, _LOW, _JACK, _GAME)

Table = tuple[tuple[tuple[float, float], ...], ...]


@lru_cache(maxsize=8)
def _table(target: int) -> Table:
    """``table[a][b][dealing]``: the chance that the team needing ``a`` more points wins
    against one needing ``b`` (both 1..target), before the next hand's kick, ``dealing`` 1 if
    that team deals it."""
    table = [[[0.0, 0.0] for _ in range(target + 1)] for _ in range(target + 1)]
    # Every hand gives at least High, so a hand leads to states with fewer points needed:
    # fill them in the order of the points both teams still need.
    for total in range(2, 2 * target + 1):
        for a in range(max(1, total - target), min(target, total - 1) + 1):
            for dealing in (0, 1):
                table[a][total - a][dealing] = _dealt(table, a, total - a, dealing)
    return tuple(tuple((pair[0], pair[1]) for pair in row) for row in table)


def _dealt(table: list[list[list[float]]], a: int, b: int, dealing: int) -> float:
    """The chance from the kick on, the team needing ``a`` dealing if ``dealing``."""
    chance = 0.0
    for points, p in _KICK:
        us, them = (points, 0) if dealing else (0, points)
        if a - us <= 0:
            chance += p
        elif b - them > 0:
            chance += p * _hand(table, a - us, b - them, 0, dealing)
    return chance


def _hand(table: list[list[list[float]]], a: int, b: int, award: int, dealing: int) -> float:
    """The chance for the team needing ``a`` (the other ``b``) from award ``award`` on; the
    next hand is dealt by the other team."""
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    if award == len(_AWARDS):
        return table[a][b][1 - dealing]
    return sum(
        p * _hand(table, a - us, b - them, award + 1, dealing) for us, them, p in _AWARDS[award]
    )


def win_probability(scores: tuple[int, int], team: int, target: int, dealer: int) -> float:
    """The chance that ``team`` wins from ``scores`` (team 0 first) before the hand that
    ``dealer`` (a seat) deals next."""
    need_us = target - scores[team]
    need_them = target - scores[1 - team]
    if need_us <= 0:
        return 1.0
    if need_them <= 0:
        return 0.0
    return _table(target)[need_us][need_them][int(dealer & 1 == team)]
