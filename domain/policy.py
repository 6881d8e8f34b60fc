"""The heuristic's choices on card numbers: one definition for the ``heuristic`` bot and for the
search's playouts and its model of the other seats.

It plays like a careful beginner: it stands on a strong trump hand, cashes High, protects its
Jack, feeds counting cards to a partner who is winning the trick and wins tricks as cheaply as
it can. The functions take plain numbers and card sets (``cards``), so a playout, which asks
them for every card of every imagined hand, converts nothing; ``heuristic_bot`` (``bots``)
converts a seat's view once per decision for ``heuristic_action``.
"""

from __future__ import annotations

from domain import cards as C
from domain.commands import Beg, GiveOne, Play, PlayerCommand, RunPack, Stand
from domain.legal import follow_mask, give_one_allowed, play_of
from domain.state import State


def stands(hand: C.CardSet, proposed: int) -> bool:
    """Whether the dealer's right stands on ``proposed`` (the kick's suit) with ``hand``:
    three trumps, or two with one of them Jack or better."""
    trumps = hand & C.SUIT_MASKS[proposed]
    count = trumps.bit_count()
    strong = trumps >> (proposed * 13 + C.JACK) != 0
    return count >= 3 or (count >= 2 and strong)


def gives_one(hand: C.CardSet, proposed: int, begging_score: int, target: int) -> bool:
    """Whether the dealer gives one (rather than run the pack): with two trumps of the kick's
    suit, unless the point would win the game for the beggars."""
    keeps = (hand & C.SUIT_MASKS[proposed]).bit_count() >= 2
    return keeps and begging_score + 1 < target


def _strength(card: int, led: int, trump: int) -> int:
    if card // 13 == trump:
        return 100 + card % 13
    return card % 13 if card // 13 == led else -1


def _beats(card: int, best: int, trump: int) -> bool:
    if card // 13 == best // 13:
        return card % 13 > best % 13
    return card // 13 == trump


def _cheapness(card: int, trump: int) -> tuple[int, bool, int]:
    """Lower is cheaper to throw away: no game count, not a trump, low rank."""
    return (C.GAME_COUNT[card], card // 13 == trump, card % 13)


def _cheapest(cards: list[int], trump: int) -> int:
    return min(cards, key=lambda c: _cheapness(c, trump))


def play_card(allowed: C.CardSet, me: int, trump: int, trick: tuple[int, ...], leader: int) -> int:
    """The card the heuristic plays from ``allowed`` (the legal cards) into ``trick`` (led by
    ``leader``). Ties go to the lowest card, as the legal actions are ordered."""
    cards = list(C.cards_in(allowed))
    jack = trump * 13 + C.JACK
    if not trick:
        high_trumps = [c for c in cards if c // 13 == trump and c % 13 >= C.KING]
        if high_trumps:  # cash High before it can be trumped away
            return max(high_trumps)
        plain = [c for c in cards if c // 13 != trump and C.GAME_COUNT[c] < 10] or cards
        return _cheapest(plain, trump)
    led = trick[0] // 13
    best_at = 0
    for i in range(1, len(trick)):
        if _strength(trick[i], led, trump) > _strength(trick[best_at], led, trump):
            best_at = i
    best = trick[best_at]
    partner_winning = (leader + best_at) & 3 == (me + 2) & 3
    last_to_play = len(trick) == 3
    if partner_winning and (last_to_play or (best // 13 == trump and best % 13 >= C.QUEEN)):
        # Feed the partner counting cards, but never a trump of our own needlessly.
        feed = [c for c in cards if c // 13 != trump] or [c for c in cards if c != jack]
        if feed:
            return max(feed, key=lambda c: (C.GAME_COUNT[c], -(c % 13)))
    winners = [c for c in cards if _beats(c, best, trump)]
    if jack in winners and last_to_play:
        return jack  # a safe Jack: nobody left to take it
    safe_winners = [c for c in winners if c != jack]
    if safe_winners and not partner_winning:
        return min(safe_winners, key=lambda c: (c // 13 == trump, c % 13))
    return _cheapest([c for c in cards if c != jack] or cards, trump)


def heuristic_action(
    actions: tuple[PlayerCommand, ...],
    me: int,
    hand: C.CardSet,
    trump: int | None,
    trick: tuple[int, ...],
    leader: int,
    proposed: int,
    begging_score: int,
    target: int,
) -> PlayerCommand:
    """The heuristic's choice among ``actions`` (the seat's legal actions, from its view), on
    card numbers: ``trick`` led by ``leader``, ``proposed`` the kick's suit, ``begging_score``
    the score of the dealer's right's team."""
    first = actions[0]
    if isinstance(first, Play):
        assert trump is not None
        allowed = C.cardset([C.parse(a.card) for a in actions if isinstance(a, Play)])
        return play_of(me, play_card(allowed, me, trump, trick, leader))
    if isinstance(first, Stand):
        return Stand(me) if stands(hand, proposed) else Beg(me)
    give = gives_one(hand, proposed, begging_score, target)
    return first if give and isinstance(first, GiveOne) else RunPack(me)


def proposed_suit(state: State) -> int:
    """The trump, or while it is being made the suit of the first kick."""
    trump = state.trump
    return state.kicks[0] // 13 if trump is None else trump


def heuristic_command(state: State, seat: int) -> PlayerCommand:
    """The heuristic's decision for ``seat`` (to act) in ``state``: for the search's imagined
    deals, where the whole state is the bot's own guess and nothing is hidden from it."""
    phase = state.phase
    if phase == "playing":
        allowed = follow_mask(state, seat)[0]
        trump = state.trump
        assert trump is not None
        return play_of(seat, play_card(allowed, seat, trump, state.trick, state.leader))
    proposed = proposed_suit(state)
    hand = state.hands[seat]
    if phase == "begging":
        return Stand(seat) if stands(hand, proposed) else Beg(seat)
    begging_score = state.scores[(seat + 1) & 1]
    give = give_one_allowed(state) and gives_one(hand, proposed, begging_score, state.rules.target)
    return GiveOne(seat) if give else RunPack(seat)
