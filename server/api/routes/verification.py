"""Test vectors for replay viewers: ``GET /v1/replay-verification``.

A viewer written in any language checks a finished game with the recipe in
``docs/REPLAY_VERIFICATION.md``. These vectors let it test each step on its own (the
commitment, the HMAC words, the rejection draw, every swap of the shuffle, where each card of a
deal goes) and then a whole replay. They are computed here from ``domain.seeds`` and the
engine, never written by hand, so they cannot drift from the code; ``docs/replay-vectors.json``
is this route's answer, committed (a test keeps the two equal).
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Annotated, Literal

import msgspec
from litestar import Controller, get
from litestar.datastructures import CacheControlHeader

from domain import CODES, Rules, commit, derive_deck, derive_first_dealer, seeds
from domain.autoplay import play_game
from domain.wire import CardCode, Hex64, SeedHex
from server.api.contract.openapi import DocumentedOperation, problems
from server.replay.cases import ReplayCase, replay_cases
from server.replay.format import Replay, replay_of_log

VECTORS_FORMAT: Literal["allfours-replay-vectors"] = "allfours-replay-vectors"
RECIPE = "docs/REPLAY_VERIFICATION.md"

_SEEDS = (
    "00" * 32,
    "ff" * 32,
    hashlib.sha256(b"allfours replay vector 1").hexdigest(),
)
_DEALS = ((1, 1), (2, 1), (3, 1), (1, 2))
"""Hands 1..3 (deal 1 each, a new dealer each) and the redeal of hand 1."""
_SAMPLE_SEED = hashlib.sha256(b"allfours replay vector 306").hexdigest()
_SAMPLE_RULES = Rules(target=4, turn_seconds=None)
"""A short game of heuristic bots that begs, gives one, runs the pack and redeals."""
_SHOWN_WORDS = 8
_WORD = 1 << 32

Deck = Annotated[tuple[CardCode, ...], msgspec.Meta(min_length=52, max_length=52)]
"""The 52 cards in an order, each once."""
BySeat = Annotated[tuple[tuple[CardCode, ...], ...], msgspec.Meta(min_length=4, max_length=4)]
"""Cards for each seat, indexed by seat 0..3."""


class BelowExample(msgspec.Struct, frozen=True):
    """``below(n)`` over a given sequence of words: the words it read and the result."""

    n: int
    """The bound: ``below(n)`` draws a number in 0..n-1."""
    words: tuple[int, ...]
    """32-bit words in the order they are read; all but the last are rejected."""
    result: int
    """What ``below(n)`` returns for these words."""


class Run(msgspec.Struct, frozen=True):
    """One run of the pack (if the game gets there): three more cards each, then a kick."""

    hands: BySeat
    """By seat 0..3: the three cards the run gives each seat."""
    kick: CardCode
    """The card turned up after this run."""


class DealVector(msgspec.Struct, frozen=True):
    """One deck of a seed, and where its cards go when dealt."""

    hand: int
    """The hand number, from 1."""
    deal: int
    """The deal number within the hand, from 1 (above 1 after a redeal)."""
    dealer: int
    """The dealer of this hand: the first dealer, then the next seat each hand."""
    label: str
    """The HMAC message prefix: ``deck:<hand>:<deal>``."""
    words: tuple[int, ...]
    """The first words of ``words(label)``."""
    draws: Annotated[tuple[int, ...], msgspec.Meta(min_length=51, max_length=51)]
    """The 51 positions ``j`` the shuffle swaps with, for i = 51 down to 1."""
    deck: Deck
    """The 52 cards in the order they are dealt."""
    hands: BySeat
    """By seat 0..3: the six cards dealt to each seat."""
    kick: CardCode
    """The card the dealer turns up."""
    runs: tuple[Run, ...]
    """The first and second run of the pack, were the dealer to run it and the kick's suit to
    stay the same (after the second the pack is exhausted and the hand is redealt)."""


class SeedVector(msgspec.Struct, frozen=True):
    seed: SeedHex
    """64 hex digits: the 32 bytes of the seed."""
    commitment: Hex64
    """SHA-256 of the seed's bytes, hex: ``GameCreated.seed_commitment``."""
    dealer_words: tuple[int, ...]
    """The first words of ``words("dealer")``."""
    first_dealer: int
    """The seat that deals the first hand: ``below(4)`` of ``words("dealer")``."""
    deals: tuple[DealVector, ...]
    """Decks of this seed and where their cards go."""


class ReplayVectors(msgspec.Struct, frozen=True):
    """Test vectors of the replay verification recipe (``docs/REPLAY_VERIFICATION.md``)."""

    format: Literal["allfours-replay-vectors"]
    """Always ``allfours-replay-vectors``."""
    format_version: int
    """1: grows only by new fields."""
    recipe: str
    """Where the recipe these vectors test is written."""
    card_order: Deck
    """The 52 codes in the order the shuffle starts from."""
    below_examples: tuple[BelowExample, ...]
    """Worked examples of ``below(n)``, rejected words included."""
    seeds: tuple[SeedVector, ...]
    """Seeds with their commitments, first dealers and decks."""
    replay: Replay
    """A complete replay of a short game played by the engine's bots, as
    ``GET /v1/games/{game_id}/replay`` serves one."""
    cases: tuple[ReplayCase, ...] = ()
    """Replays that settle the recipe's edge cases (a seed in upper case, a redeal after the
    second run's kick, a resignation between a beg and the dealer's choice, a kick worth no
    point, a seed revealed twice), each with the verdict a verifier must reach."""


def _first_words(seed: str, label: str) -> tuple[int, ...]:
    words = seeds.words(seed, label)
    return tuple(next(words) for _ in range(_SHOWN_WORDS))


def _draws(seed: str, label: str) -> tuple[int, ...]:
    words = seeds.words(seed, label)
    return tuple(seeds.below(words, i + 1) for i in range(51, 0, -1))


def _by_seat(cards: tuple[str, ...], each: int, dealer: int) -> tuple[tuple[str, ...], ...]:
    """``each`` cards to every seat from the dealer's right round to the dealer, by seat."""
    hands: list[tuple[str, ...]] = [(), (), (), ()]
    for k in range(4):
        hands[(dealer + 1 + k) % 4] = cards[each * k : each * (k + 1)]
    return tuple(hands)


def _deal_vector(seed: str, hand: int, deal: int, dealer: int) -> DealVector:
    label = f"deck:{hand}:{deal}"
    deck = derive_deck(seed, hand, deal)
    runs = tuple(
        Run(_by_seat(deck[start : start + 12], 3, dealer), deck[start + 12]) for start in (25, 38)
    )
    return DealVector(
        hand=hand,
        deal=deal,
        dealer=dealer,
        label=label,
        words=_first_words(seed, label),
        draws=_draws(seed, label),
        deck=deck,
        hands=_by_seat(deck[:24], 6, dealer),
        kick=deck[24],
        runs=runs,
    )


def _seed_vector(seed: str) -> SeedVector:
    first = derive_first_dealer(seed)
    return SeedVector(
        seed=seed,
        commitment=commit(seed),
        dealer_words=_first_words(seed, "dealer"),
        first_dealer=first,
        deals=tuple(_deal_vector(seed, h, d, (first + h - 1) % 4) for h, d in _DEALS),
    )


def sample_replay() -> Replay:
    """A whole game of four heuristic bots, in the replay format (times are 0: no clock)."""
    _, log = play_game(_SAMPLE_SEED, bots=("heuristic",) * 4, rules=_SAMPLE_RULES)
    return replay_of_log("sample", _SAMPLE_SEED, commit(_SAMPLE_SEED), enumerate(log, start=1))


def _below_example(n: int, *words: int) -> BelowExample:
    return BelowExample(n=n, words=words, result=seeds.below(iter(words), n))


def _below_examples() -> tuple[BelowExample, ...]:
    top = _WORD - 1  # at or above every limit that rejects anything
    limit_52 = _WORD - _WORD % 52
    return (
        _below_example(52, 7),
        _below_example(52, top, 1000),
        _below_example(52, limit_52, limit_52 + 1, limit_52 - 1),
        _below_example(3, top, top - 1),
        _below_example(4, top),
    )


@cache
def replay_vectors() -> ReplayVectors:
    return ReplayVectors(
        format=VECTORS_FORMAT,
        format_version=1,
        recipe=RECIPE,
        card_order=CODES,
        below_examples=_below_examples(),
        seeds=tuple(_seed_vector(seed) for seed in _SEEDS),
        replay=sample_replay(),
        cases=replay_cases(),
    )


class VerificationController(Controller):
    path = "/v1/replay-verification"
    tags = ("replays",)

    @get(
        operation_class=DocumentedOperation,
        operation_id="getReplayVerification",
        summary="Test vectors of the replay verification recipe",
        description="Seeds with their commitments, first dealers and decks (hands 1 to 3 and "
        "a redeal), every intermediate value of the shuffle, where each card of a deal goes, "
        "and one complete replay: what a replay viewer in any language tests its "
        f"implementation of ``{RECIPE}`` against. The recipe in short: the seed's SHA-256 is "
        "``GameCreated.seed_commitment``; ``words(label)`` are the 32-bit big-endian words of "
        "HMAC-SHA256(seed bytes, ``<label>:<i>``) for i = 0, 1, …; ``below(n)`` takes the next "
        "word under 2^32 - (2^32 mod n), modulo n; the first dealer is ``below(4)`` of "
        "``dealer``; the deck of hand h, deal d is a Fisher-Yates shuffle of 2C 3C … AC 2D … "
        "AS (i from 51 down to 1, swap i and ``below(i+1)``) with label ``deck:<h>:<d>``; six "
        "cards each from the dealer's right (seat dealer+1 mod 4) round to the dealer, the "
        "next card is the kick, each run of the pack deals three each the same way and turns "
        "up the next card.",
        responses=problems(),
        cache_control=CacheControlHeader(max_age=3600, public=True),
    )
    async def get_replay_verification(self) -> ReplayVectors:
        return replay_vectors()
