"""Deals a seat cannot tell from the true one: what the search imagines behind its view.

``Knowledge`` is what a seat knows of the hidden cards, from its ``BotView`` alone: which cards
it has not seen, how many each other seat holds, and which cards a seat cannot hold because it
showed a void (it did not follow suit) or, where undertrumping is forbidden, played a lower
trump. ``sample_hands`` deals the unseen cards consistently with all of that, without
rejection, and ``world_state`` makes the state of the game in such a deal, to be played out.
"""

from __future__ import annotations

import random
from typing import Final

from domain import cards as C
from domain.records import Record
from domain.sight import BotView
from domain.state import State

_ALL: Final = (1 << C.DECK_SIZE) - 1
_STOCK: Final = 4
"""The destination of unseen cards that nobody holds: the rest of the pack."""


class Knowledge(Record):
    FIELDS = ("me", "unseen", "held", "excluded", "played_by", "plays", "trump")
    __slots__ = FIELDS

    me: Final[int]
    unseen: Final[C.CardSet]
    """Cards the seat has not seen: in another hand or in the rest of the pack."""
    held: Final[tuple[int, ...]]
    """How many cards each seat holds now."""
    excluded: Final[tuple[C.CardSet, ...]]
    """Per seat, the unseen cards it cannot hold (its voids); 0 for the seat itself."""
    played_by: Final[tuple[C.CardSet, ...]]
    """Per seat, the cards it has played this hand."""
    plays: Final[tuple[int, ...]]
    """The sight's ``plays``, made once for every deal weighed (the sight makes them anew at
    each reading)."""
    trump: Final[int | None]

    def __init__(self, sight: BotView) -> None:
        me = sight.viewer
        trump = sight.trump_suit
        played = [0, 0, 0, 0]
        excluded = [0, 0, 0, 0]
        plays = sight.plays
        for start in range(0, len(plays), 4):
            trick = plays[start : start + 4]
            led = (trick[0] & 63) // 13
            top_trump = -1
            for entry in trick:
                seat, card = entry >> 6, entry & 63
                played[seat] |= 1 << card
                suit = card // 13
                if suit == trump and led != trump:
                    if card < top_trump and sight.rules.undertrump == "forbidden":
                        # An undertrump is allowed only to a hand of nothing but lower trumps.
                        excluded[seat] |= _ALL & ~(C.SUIT_MASKS[suit] & ((1 << top_trump) - 1))
                    top_trump = max(top_trump, card)
                elif suit != led:
                    excluded[seat] |= C.SUIT_MASKS[led]
        dealt_each = sight.dealt_cards.bit_count()
        seen = sight.dealt_cards | played[0] | played[1] | played[2] | played[3]
        for kick in sight.kick_cards:
            seen |= 1 << kick
        self.me = me
        self.unseen = _ALL & ~seen
        self.held = tuple([dealt_each - played[seat].bit_count() for seat in range(4)])
        self.excluded = tuple([0 if s == me else excluded[s] & self.unseen for s in range(4)])
        self.played_by = tuple(played)
        self.plays = plays
        self.trump = trump


def sample_hands(knowledge: Knowledge, own: C.CardSet, rng: random.Random) -> list[int]:
    """The hands of all four seats (``own`` for the seat itself) and, last, the rest of the
    pack: one deal consistent with ``knowledge``, drawn with ``rng``.

    Cards that some seat cannot hold are placed first, each to a seat that may hold it (or the
    pack) with a chance in proportion to the room left there, and only where the cards still
    to place can all find room (Hall's condition over the destinations); the others fill the
    room left at random. With no void shown this is a plain random deal of the unseen cards."""
    me = knowledge.me
    room = [0, 0, 0, 0, 0]
    for seat in range(4):
        if seat != me:
            room[seat] = knowledge.held[seat]
    unseen = knowledge.unseen
    room[_STOCK] = unseen.bit_count() - sum(room)
    hands = [0, 0, 0, 0, 0]
    hands[me] = own
    constrained = 0
    for seat in range(4):
        constrained |= knowledge.excluded[seat]
    if constrained:
        _place_constrained(knowledge, constrained, room, hands, rng)
    rest = list(C.cards_in(unseen & ~constrained))
    rng.shuffle(rest)
    at = 0
    for place in range(5):
        for card in rest[at : at + room[place]]:
            hands[place] |= 1 << card
        at += room[place]
    return hands


def _place_constrained(
    knowledge: Knowledge,
    constrained: C.CardSet,
    room: list[int],
    hands: list[int],
    rng: random.Random,
) -> None:
    me = knowledge.me
    cards = list(C.cards_in(constrained))
    rng.shuffle(cards)
    # Each card's destinations as a mask of 5 bits (bit 4: the pack).
    allowed: list[int] = []
    for card in cards:
        mask = 1 << _STOCK
        for seat in range(4):
            if seat != me and not knowledge.excluded[seat] >> card & 1:
                mask |= 1 << seat
        allowed.append(mask)
    # Cards that may go anywhere take the room left over: only the others are counted.
    waiting = [0] * 32
    for mask in allowed:
        waiting[mask] += 1
    for i in range(len(cards)):
        mask = allowed[i]
        waiting[mask] -= 1
        options: list[int] = []
        total = 0
        for place in range(5):
            if mask >> place & 1 and room[place] > 0:
                room[place] -= 1
                if _fits(waiting, room):
                    options.append(place)
                    total += room[place] + 1
                room[place] += 1
        pick = rng.random() * total
        chosen = options[-1]
        for place in options:
            pick -= room[place]
            if pick < 0:
                chosen = place
                break
        room[chosen] -= 1
        hands[chosen] |= 1 << cards[i]


def _fits(waiting: list[int], room: list[int]) -> bool:
    """Whether the cards still waiting (counted by their destination masks) can all be placed
    in ``room``: for every set of destinations, the cards that may go only there fit in it."""
    active = [mask for mask in range(1, 32) if waiting[mask]]
    if not active:
        return True
    space = [0] * 32
    for places in range(1, 32):
        lowest = places & -places
        space[places] = space[places ^ lowest] + room[lowest.bit_length() - 1]
    for places in range(1, 32):
        need = 0
        for mask in active:
            if mask & ~places == 0:
                need += waiting[mask]
        if need > space[places]:
            return False
    return True


def world_state(sight: BotView, knowledge: Knowledge, hands: list[int], stock: list[int]) -> State:
    """The state of the game if the seats held ``hands`` now and the rest of the pack came
    off in the order ``stock``: the seat's view (and what ``knowledge`` made of it) with the
    hidden cards filled in."""
    played = knowledge.played_by
    dealt = tuple([hands[s] | played[s] for s in range(4)])
    kicks = sight.kick_cards
    next_card = 12 + 13 * len(kicks)
    # Only the cards still to come off the pack are read from a deck (running the pack).
    deck = (0,) * next_card + tuple(stock)
    return State(
        phase=sight.phase,
        rules=sight.rules,
        dealer=sight.dealer,
        hand_no=1,
        deal_no=1,
        deck=deck,
        next_card=next_card,
        hands=(hands[0], hands[1], hands[2], hands[3]),
        dealt=dealt,
        kicks=kicks,
        trump=sight.trump_suit,
        leader=sight.trick_leader,
        trick=sight.trick_cards,
        tricks_played=sight.tricks_played,
        won=sight.won_cards,
        scores=sight.scores,
        played_tricks=sight.played_tricks,
        begged=sight.begged,
    )
