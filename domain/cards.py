"""Cards as small integers and hands as bitmasks.

A card is ``suit * 13 + rank`` with rank 0 for the 2 up to 12 for the Ace, so a set of cards fits
in one Python int (bit ``card`` set). Following suit, finding the highest trump or removing a
played card are then single bit operations, which keeps the engine fast without any copying.
Outside the engine cards travel as short codes such as ``"TC"`` (ten of clubs) or ``"AS"``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final, TypeVar

T = TypeVar("T")

SUITS: Final = "CDHS"
RANKS: Final = "23456789TJQKA"

Card = int
"""A card index in 0..51: ``suit * 13 + rank``."""
CardSet = int
"""A set of cards as a bitmask: bit ``card`` is set when the card is in the set."""

DECK_SIZE: Final = 52

TWO: Final = 0
SIX: Final = 4
TEN: Final = 8
JACK: Final = 9
QUEEN: Final = 10
KING: Final = 11
ACE: Final = 12

CODES: Final[tuple[str, ...]] = tuple(r + s for s in SUITS for r in RANKS)
INDEX: Final[dict[str, Card]] = {code: i for i, code in enumerate(CODES)}
INDEX.update({code.lower(): i for code, i in list(INDEX.items())})

SUIT_MASKS: Final[tuple[CardSet, ...]] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))

GAME_COUNT_BY_RANK: Final = (0, 0, 0, 0, 0, 0, 0, 0, 10, 1, 2, 3, 4)
"""Points each rank adds to a team's count for the Game point: 10=10, J=1, Q=2, K=3, A=4."""
GAME_COUNT: Final[tuple[int, ...]] = tuple(GAME_COUNT_BY_RANK[c % 13] for c in range(DECK_SIZE))


def code(card: Card) -> str:
    """The short code of a card, e.g. ``code(0) == "2C"``."""
    return CODES[card]


def parse(card_code: str) -> Card:
    """The card for a short code; raises ``KeyError`` for anything that is not a card code."""
    return INDEX[card_code]


def parse_all(codes: Iterable[str]) -> list[Card]:
    """The cards for short codes, in order; raises ``KeyError`` as ``parse`` does."""
    return [INDEX[card_code] for card_code in codes]


def cardset(cards: Iterable[Card]) -> CardSet:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _by_suit_bits(
    make: Callable[[int, int], tuple[T, ...]],
) -> tuple[tuple[tuple[T, ...], ...], ...]:
    """A table per suit indexed by the 13 bits of that suit: ``table[suit][bits]``."""
    return tuple(tuple(make(suit, bits) for bits in range(1 << 13)) for suit in range(4))


# Converting a set to a list of cards is the engine's most frequent job (views, legal moves),
# so it is a lookup per suit instead of a loop per card.
_CARDS_BY_SUIT_BITS: Final = _by_suit_bits(
    lambda suit, bits: tuple(suit * 13 + r for r in range(13) if bits >> r & 1)
)
_CODES_BY_SUIT_BITS: Final = _by_suit_bits(
    lambda suit, bits: tuple(CODES[suit * 13 + r] for r in range(13) if bits >> r & 1)
)
_COUNT_BY_BITS: Final = tuple(
    sum(GAME_COUNT_BY_RANK[r] for r in range(13) if bits >> r & 1) for bits in range(1 << 13)
)


def cards_in(mask: CardSet) -> tuple[Card, ...]:
    """The cards of a set, lowest index first."""
    t = _CARDS_BY_SUIT_BITS
    return t[0][mask & 8191] + t[1][mask >> 13 & 8191] + t[2][mask >> 26 & 8191] + t[3][mask >> 39]


def codes_in(mask: CardSet) -> tuple[str, ...]:
    """The codes of a set's cards, lowest index first (clubs, diamonds, hearts, spades)."""
    t = _CODES_BY_SUIT_BITS
    return t[0][mask & 8191] + t[1][mask >> 13 & 8191] + t[2][mask >> 26 & 8191] + t[3][mask >> 39]


def game_count(mask: CardSet) -> int:
    """The total game count of a set of cards."""
    t = _COUNT_BY_BITS
    return t[mask & 8191] + t[mask >> 13 & 8191] + t[mask >> 26 & 8191] + t[mask >> 39]


def highest(mask: CardSet) -> Card:
    """The highest-indexed card of a non-empty set (within one suit: the highest rank)."""
    return mask.bit_length() - 1


def lowest(mask: CardSet) -> Card:
    """The lowest-indexed card of a non-empty set (within one suit: the lowest rank)."""
    return (mask & -mask).bit_length() - 1
