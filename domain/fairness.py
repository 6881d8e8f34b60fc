"""The provably fair deck source, and ``verify`` to check a finished game against it.

Before the first deal the service draws a secret 32-byte seed and records only its SHA-256
(the commitment) in ``GameCreated``. Every deck is derived from the seed and its (hand, deal)
numbers; the first dealer from the seed too. ``SeedRevealed``, the last event, publishes the
seed so anyone can re-derive every deal and check the server could not have chosen them.

Derivation (simple enough to reimplement in any language):
  words(label) = the 32-bit big-endian words of HMAC-SHA256(seed, f"{label}:{i}") for i = 0, 1, …
  below(n)     = the next word w < 2**32 - 2**32 % n (others are skipped), taken modulo n
  deck(h, d)   = Fisher-Yates over the 52 codes in the order 2C 3C … AC 2D … AS: for i from 51
                 down to 1, swap positions i and below(i + 1), with label f"deck:{h}:{d}"
  first dealer = below(4) with label "dealer"
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence

import msgspec

from domain import cards as C
from domain.events import (
    Dealt,
    Event,
    GameCreated,
    HandScored,
    PackRun,
    Redealt,
    RematchCreated,
    Revealed,
    SeedRevealed,
)

_WORD = 1 << 32


def commit(seed: str) -> str:
    """The commitment to a hex seed: SHA-256 of its bytes, hex."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def commitment_matches(seed: str, commitment: str) -> bool:
    try:
        return hmac.compare_digest(commit(seed), commitment)
    except ValueError:  # not hex
        return False


_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))
_BLOCK_WORDS = 8
"""32-bit words in one HMAC-SHA256 block."""
_DECK_BLOCKS = 7
"""Blocks a deck takes unless a word is skipped: 51 draws, one word each."""
_LIMITS = tuple(_WORD - _WORD % n if n else 0 for n in range(C.DECK_SIZE + 1))
"""``below(n)`` keeps a word under ``_LIMITS[n]``."""


class _Hmac:
    """HMAC-SHA256 (RFC 2104) under one key, with the padded key absorbed once: each block then
    costs two short hashes. A deck takes seven blocks, and a full HMAC setup per block was most
    of the time of deriving it."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, seed: str) -> None:
        key = bytes.fromhex(seed)
        if len(key) > 64:
            key = hashlib.sha256(key).digest()
        key = key.ljust(64, b"\0")
        self._inner = hashlib.sha256(key.translate(_IPAD))
        self._outer = hashlib.sha256(key.translate(_OPAD))

    def words(self, label: str, first: int, count: int) -> tuple[int, ...]:
        """The words of blocks ``first`` to ``first + count - 1`` of ``label``, in order."""
        blocks = []
        for counter in range(first, first + count):
            inner = self._inner.copy()
            inner.update(f"{label}:{counter}".encode())
            outer = self._outer.copy()
            outer.update(inner.digest())
            blocks.append(outer.digest())
        return struct.unpack(f">{count * _BLOCK_WORDS}I", b"".join(blocks))


def _words(seed: str, label: str) -> Iterator[int]:
    mac = _Hmac(seed)
    counter = 0
    while True:
        yield from mac.words(label, counter, 1)
        counter += 1


def _below(words: Iterator[int], n: int) -> int:
    limit = _LIMITS[n]
    while True:
        word = next(words)
        if word < limit:
            return word % n


def derive_deck(seed: str, hand: int, deal: int) -> tuple[str, ...]:
    """The deck of deal ``deal`` of hand ``hand``, as card codes in the order they are dealt.

    The derivation described above, with its words computed a deck's worth at a time: a word
    is skipped about once in two million decks, and then one more block is computed."""
    mac = _Hmac(seed)
    label = f"deck:{hand}:{deal}"
    words = mac.words(label, 0, _DECK_BLOCKS)
    used = 0
    deck = list(C.CODES)
    for i in range(C.DECK_SIZE - 1, 0, -1):
        n = i + 1
        while True:
            if used == len(words):
                words += mac.words(label, used // _BLOCK_WORDS, 1)
            word = words[used]
            used += 1
            if word < _LIMITS[n]:
                break
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def derive_first_dealer(seed: str) -> int:
    return _below(_words(seed, "dealer"), 4)


class Verification(msgspec.Struct, frozen=True):
    ok: bool
    problems: tuple[str, ...] = ()


def verify(events: Sequence[Event]) -> Verification:
    """Check a finished game's full log: the seed matches its commitment, the first dealer and
    every deck are the ones the seed gives (for the hand and deal numbers and the dealer the
    game was at), and every card turned up or dealt while running the pack came off that deck
    in order."""
    problems: list[str] = []
    if not events or not isinstance(events[0], GameCreated):
        return Verification(False, ("the log does not start with GameCreated",))
    # The seed is revealed at the end; only the note of a rematch (no cards) may follow it.
    ends = events[:-1] if isinstance(events[-1], RematchCreated) else events
    last = ends[-1] if ends else None
    if not isinstance(last, SeedRevealed):
        return Verification(False, ("the log does not end with SeedRevealed",))
    created, seed = events[0], last.seed
    if not commitment_matches(seed, created.seed_commitment):
        return Verification(False, ("the seed does not match the commitment",))
    if derive_first_dealer(seed) != created.first_dealer:
        problems.append("the first dealer is not the one the seed gives")
    deck: tuple[str, ...] = ()
    position = 0
    # The deal numbers and dealers the game itself implies: a log may not pick another deck
    # of the seed (say of deal 7) or another dealer (so other seats get the cards).
    hand, deal, dealer = 1, 1, created.first_dealer
    for index, event in enumerate(events):
        if isinstance(event, HandScored):
            hand, deal, dealer = hand + 1, 1, (dealer + 1) % 4
        elif isinstance(event, Redealt):
            deal += 1
        if isinstance(event, Dealt):
            if (event.hand, event.deal, event.dealer) != (hand, deal, dealer):
                problems.append(
                    f"event {index + 1}: deal {event.hand}.{event.deal} by seat {event.dealer}"
                    f" where the game was at deal {hand}.{deal} by seat {dealer}"
                )
            deck = event.pack_order()
            position = 24
            if deck != derive_deck(seed, event.hand, event.deal):
                problems.append(f"event {index + 1}: deal {event.hand}.{event.deal} is not fair")
        elif isinstance(event, Revealed):
            if position >= len(deck) or deck[position] != event.card:
                problems.append(f"event {index + 1}: turned-up card is not the next one")
            position += 1
        elif isinstance(event, PackRun):
            if event.seat != dealer:
                problems.append(f"event {index + 1}: the pack was run by another seat")
            for k in range(4):
                expected = deck[position + 3 * k : position + 3 * k + 3]
                if tuple(event.hands[(dealer + 1 + k) & 3] or ()) != expected:
                    problems.append(f"event {index + 1}: cards dealt running the pack differ")
                    break
            position += 12
    return Verification(not problems, tuple(problems))
