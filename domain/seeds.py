"""What a game's secret seed gives: its commitment, every deck and the first dealer.

Before the first deal the service draws a secret 32-byte seed and records only its SHA-256
(the commitment) in ``GameCreated``. Every deck is derived from the seed and its (hand, deal)
numbers; the first dealer from the seed too. ``SeedRevealed``, the last event, publishes the
seed so anyone can re-derive every deal (``fairness.verify``) and check the server could not
have chosen them.

Derivation (simple enough to reimplement in any language):
  words(label) = the 32-bit big-endian words of HMAC-SHA256(seed, f"{label}:{i}") for i = 0, 1, …
  below(n)     = the next word w < 2**32 - 2**32 % n (others are skipped), taken modulo n
  deck(h, d)   = Fisher-Yates over the 52 codes in the order 2C 3C … AC 2D … AS: for i from 51
                 down to 1, swap positions i and below(i + 1), with label f"deck:{h}:{d}"
  first dealer = below(4) with label "dealer"

This module is compiled with the engine (``compiled``): a deck is derived for every deal.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence
from typing import Final

from domain import cards as C

_WORD: Final = 1 << 32
_IPAD: Final = bytes([x ^ 0x36 for x in range(256)])
_OPAD: Final = bytes([x ^ 0x5C for x in range(256)])
_BLOCK_WORDS: Final = 8
"""32-bit words in one HMAC-SHA256 block."""
_DECK_BLOCKS: Final = 7
"""Blocks a deck takes unless a word is skipped: 51 draws, one word each."""
LIMITS: Final = tuple(_WORD - _WORD % n if n else 0 for n in range(C.DECK_SIZE + 1))
"""``below(n)`` keeps a word under ``LIMITS[n]``."""


def commit(seed: str) -> str:
    """The commitment to a hex seed: SHA-256 of its bytes, hex."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def commitment_matches(seed: str, commitment: str) -> bool:
    try:
        return hmac.compare_digest(commit(seed), commitment)
    except ValueError:  # not hex
        return False


class _Hmac:
    """HMAC-SHA256 (RFC 2104) under one key, with the padded key absorbed once: each block then
    costs two short hashes. A deck takes seven blocks, and a full HMAC setup per block was most
    of the time of deriving it."""

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
        words: tuple[int, ...] = struct.unpack(f">{count * _BLOCK_WORDS}I", b"".join(blocks))
        return words


def words(seed: str, label: str) -> Iterator[int]:
    """Every word of ``label``, in order (endless)."""
    mac = _Hmac(seed)
    counter = 0
    while True:
        yield from mac.words(label, counter, 1)
        counter += 1


def below(stream: Iterator[int], n: int) -> int:
    """The next draw in 0..n-1 from a ``words`` stream, skipping the words that would bias it."""
    limit = LIMITS[n]
    while True:
        word = next(stream)
        if word < limit:
            return word % n


def derive_deck(seed: str, hand: int, deal: int) -> tuple[str, ...]:
    """The deck of deal ``deal`` of hand ``hand``, as card codes in the order they are dealt."""
    return shuffled(seed, f"deck:{hand}:{deal}", LIMITS)


def shuffled(seed: str, label: str, limits: Sequence[int]) -> tuple[str, ...]:
    """The deck derived above for ``label``, with ``below(n)`` keeping words under
    ``limits[n]`` (``LIMITS``; a test passes lower ones, to see the skipped words handled).

    The words are computed a deck's worth at a time: a word is skipped about once in two
    million decks, and then one more block is computed."""
    mac = _Hmac(seed)
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
            if word < limits[n]:
                break
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def derive_first_dealer(seed: str) -> int:
    return below(words(seed, "dealer"), 4)
