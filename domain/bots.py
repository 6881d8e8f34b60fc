"""Bots: pure functions of one seat's view (never the full state), so they cannot cheat.

``random_bot`` plays a uniformly random legal action. ``heuristic_bot`` plays like a careful
beginner: it stands on a strong trump hand, cashes High, protects its Jack, feeds counting
cards to a partner who is winning the trick and wins tricks as cheaply as it can.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final, Protocol

from domain import cards as C
from domain.commands import Beg, GiveOne, Play, PlayerCommand, RunPack, Stand
from domain.rules import Rules
from domain.visibility import PlayedCard, Viewer


class SeatSight(Protocol):
    """What bots read of a seat's view: a ``View``, or the lighter ``BotView`` that self-play and
    the service give them (``sight.bot_view``: the same facts of the same seat)."""

    @property
    def viewer(self) -> Viewer: ...
    @property
    def legal_actions(self) -> tuple[PlayerCommand, ...]: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def scores(self) -> tuple[int, int]: ...
    @property
    def hand(self) -> tuple[str, ...] | None: ...
    @property
    def trump(self) -> str | None: ...
    @property
    def kicks(self) -> tuple[str, ...]: ...
    @property
    def trick(self) -> tuple[PlayedCard, ...]: ...


Bot = Callable[[SeatSight, random.Random], PlayerCommand]


def random_bot(view: SeatSight, rng: random.Random) -> PlayerCommand:
    """A uniformly random legal action: the one ``rng.choice`` would pick."""
    actions = view.legal_actions
    return actions[choice_index(rng, len(actions))]


def choice_index(rng: random.Random, n: int) -> int:
    """The index in 0..n-1 that ``rng.choice`` of ``n`` items draws, drawn as it draws it
    (``Random._randbelow_with_getrandbits``): compiled code calls ``getrandbits`` directly,
    where ``choice`` ran two interpreted frames for every decision of a self-played game. A
    test holds the two together, and the self-play fixture pins every game's choices."""
    if n <= 0:
        raise IndexError("Cannot choose from an empty sequence")
    bits = n.bit_length()
    index = rng.getrandbits(bits)
    while index >= n:
        index = rng.getrandbits(bits)
    return index


def heuristic_bot(view: SeatSight, rng: random.Random) -> PlayerCommand:
    """A sensible legal action; ``rng`` only breaks ties."""
    actions = view.legal_actions
    kinds = {type(a) for a in actions}
    if Stand in kinds:
        return _stand_or_beg(view, actions)
    if RunPack in kinds:
        return _give_or_run(view, actions)
    plays = [a for a in actions if isinstance(a, Play)]
    return _choose_play(view, plays)


def _trump_suit(view: SeatSight) -> int:
    letter = view.trump if view.trump is not None else view.kicks[0][1]
    return C.SUITS.index(letter)


def _hand(view: SeatSight) -> list[int]:
    return [C.parse(c) for c in view.hand or ()]


def _stand_or_beg(view: SeatSight, actions: tuple[PlayerCommand, ...]) -> PlayerCommand:
    trump = _trump_suit(view)
    trumps = [c for c in _hand(view) if c // 13 == trump]
    strong = any(c % 13 >= C.JACK for c in trumps)
    want = Stand if len(trumps) >= 3 or (len(trumps) >= 2 and strong) else Beg
    return next(a for a in actions if isinstance(a, want))


def _give_or_run(view: SeatSight, actions: tuple[PlayerCommand, ...]) -> PlayerCommand:
    me = view.viewer
    assert me is not None
    trump = _trump_suit(view)
    trumps = [c for c in _hand(view) if c // 13 == trump]
    begging_team = (me + 1) & 1
    giving_loses = view.scores[begging_team] + 1 >= view.rules.target
    keep = len(trumps) >= 2 and not giving_loses
    want = GiveOne if keep else RunPack
    return next((a for a in actions if isinstance(a, want)), actions[-1])


def _winning(trick: tuple[PlayedCard, ...], trump: int) -> PlayedCard | None:
    if not trick:
        return None
    led = C.parse(trick[0].card) // 13

    def strength(p: PlayedCard) -> int:
        card = C.parse(p.card)
        if card // 13 == trump:
            return 100 + card % 13
        return card % 13 if card // 13 == led else -1

    return max(trick, key=strength)


def _beats(card: int, best: int, led: int, trump: int) -> bool:
    if card // 13 == best // 13:
        return card % 13 > best % 13
    return card // 13 == trump


def _cheapness(card: int, trump: int) -> tuple[int, int, int]:
    """Lower is cheaper to throw away: no game count, not a trump, low rank."""
    return (C.GAME_COUNT[card], card // 13 == trump, card % 13)


def _choose_play(view: SeatSight, plays: list[Play]) -> Play:
    me = view.viewer
    assert me is not None
    trump = _trump_suit(view)
    jack = trump * 13 + C.JACK
    cards = {C.parse(p.card): p for p in plays}
    trick = view.trick
    if not trick:
        high_trumps = [c for c in cards if c // 13 == trump and c % 13 >= C.KING]
        if high_trumps:  # cash High before it can be trumped away
            return cards[max(high_trumps)]
        plain = [c for c in cards if c // 13 != trump and C.GAME_COUNT[c] < 10] or list(cards)
        return cards[min(plain, key=lambda c: _cheapness(c, trump))]
    winning = _winning(trick, trump)
    assert winning is not None
    best = C.parse(winning.card)
    led = C.parse(trick[0].card) // 13
    partner_winning = winning.seat == (me + 2) & 3
    last_to_play = len(trick) == 3
    if partner_winning and (last_to_play or (best // 13 == trump and best % 13 >= C.QUEEN)):
        # Feed the partner counting cards, but never a trump of our own needlessly.
        feed = [c for c in cards if c // 13 != trump] or [c for c in cards if c != jack]
        if feed:
            return cards[max(feed, key=lambda c: (C.GAME_COUNT[c], -(c % 13)))]
    winners = [c for c in cards if _beats(c, best, led, trump)]
    if jack in cards and jack in winners and last_to_play:
        return cards[jack]  # a safe Jack: nobody left to take it
    safe_winners = [c for c in winners if c != jack]
    if safe_winners and not partner_winning:
        return cards[min(safe_winners, key=lambda c: (c // 13 == trump, c % 13))]
    losers = [c for c in cards if c != jack] or list(cards)
    return cards[min(losers, key=lambda c: _cheapness(c, trump))]


BOTS: Final[dict[str, Bot]] = {"random": random_bot, "heuristic": heuristic_bot}
"""Bot kinds by the name a seat records in ``PlayerJoined.bot``."""
