"""The engine's shortcuts give exactly what the plain definitions give.

``bot_view`` is the lighter view bots get in self-play and from the service: it must show a
bot what ``view`` shows its seat, and nothing more. ``derive_deck`` computes a deck's words a
deck's worth at a time: it must still follow the documented derivation when words are skipped,
which real seeds almost never make happen, so the test makes the limit skip about half.
"""

from __future__ import annotations

import hashlib
import hmac
import random

import msgspec
import pytest
from botgames import Setup, Step, drive
from test_hidden_information import LeakChecks

from domain import Rules, derive_deck, heuristic_bot, random_bot, seeds, view
from domain import cards as C
from domain.bots import choice_index
from domain.sight import BotView, bot_view

READ_BY_BOTS = ("viewer", "legal_actions", "rules", "scores", "hand", "trump", "kicks", "trick")
SETUPS = [
    Setup(f"{i:064x}", bots, rules)
    for i, (bots, rules) in enumerate(
        [
            (("random",) * 4, Rules()),
            (("heuristic",) * 4, Rules(undertrump="forbidden", tobago_kick=True)),
            (("heuristic", "random", "heuristic", "random"), Rules(give_one_at_13="forbidden")),
        ]
    )
]


class BotViewChecks:
    """After every step, each seat's ``bot_view`` against its ``view`` and the leak check."""

    def __init__(self, setup: Setup) -> None:
        self.leaks = LeakChecks(setup.seed)
        self.decisions = 0

    def __call__(self, step: Step) -> None:
        self.leaks(step)
        state = step.after
        for seat in range(4):
            full = view(state, seat)
            light = bot_view(state, seat)
            for name in READ_BY_BOTS:
                assert getattr(light, name) == getattr(full, name), (name, state.version)
            fields = dict(zip(BotView.FIELDS, light.values(), strict=True))
            self.leaks.check(msgspec.json.encode(fields), seat, f"bot view v{state.version}")
            # Its cards are numbers: the leak check reads them as the codes they stand for.
            self.leaks.check(
                msgspec.json.encode(_cards_of(light)), seat, f"bot view v{state.version}"
            )
            if light.legal_actions:
                self.decisions += 1
                rng = random.Random(state.version)
                for bot in (random_bot, heuristic_bot):
                    assert bot(light, rng) == bot(full, random.Random(state.version))
                    rng = random.Random(state.version)


@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: "-".join(s.bots))
def test_a_bot_view_shows_what_the_seats_view_shows_and_leaks_nothing(setup):
    checks = BotViewChecks(setup)
    drive(setup, checks)
    assert checks.decisions > 100 and checks.leaks.seed_revealed


def _cards_of(sight: BotView) -> list[str]:
    """Every card a bot view holds, as codes: its sets, its kicks, trick and plays."""
    masks = [sight.hand_cards, sight.dealt_cards, *sight.won_cards]
    cards = [c for mask in masks for c in C.cards_in(mask)]
    cards += [*sight.kick_cards, *sight.trick_cards, *(entry & 63 for entry in sight.plays)]
    return [C.CODES[c] for c in cards]


def test_a_bot_view_holds_only_fields_of_its_seat():
    """Its fields: the seat's own cards and public facts; the leak check covers their values."""
    assert set(BotView.FIELDS) == {
        "viewer",
        "legal_actions",
        "rules",
        "scores",
        "hand_cards",
        "trump_suit",
        "kick_cards",
        "trick_cards",
        "trick_leader",
        "phase",
        "dealer",
        "dealt_cards",
        "played_tricks",
        "begged",
        "won_cards",
        "tricks_played",
    }


def _documented_deck(seed: str, hand: int, deal: int, limit_of) -> tuple[str, ...]:
    def words():
        counter = 0
        while True:
            key = bytes.fromhex(seed)
            digest = hmac.new(key, f"deck:{hand}:{deal}:{counter}".encode(), hashlib.sha256)
            block = digest.digest()
            for i in range(8):
                yield int.from_bytes(block[4 * i : 4 * i + 4], "big")
            counter += 1

    stream = words()
    deck = [r + s for s in "CDHS" for r in "23456789TJQKA"]
    for i in range(51, 0, -1):
        n = i + 1
        word = next(w for w in stream if w < limit_of(n))
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def test_a_deck_with_skipped_words_follows_the_documented_derivation():
    def half(n: int) -> int:
        return 2**31 - 2**31 % n

    # Limits half as high skip about half the words: every path of the skip is taken.
    halves = tuple(half(n) if n else 0 for n in range(53))
    for seed in [f"{i:064x}" for i in range(20)] + ["ab" * 80]:
        assert seeds.shuffled(seed, "deck:3:2", halves) == _documented_deck(seed, 3, 2, half)
    assert derive_deck("ab" * 80, 3, 2) == _documented_deck(
        "ab" * 80, 3, 2, lambda n: 2**32 - 2**32 % n
    )


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 8, 9, 13, 52, 53, 1000])
def test_the_random_bot_draws_exactly_what_choice_draws(n):
    items = list(range(n))
    ours, theirs = random.Random(n), random.Random(n)
    for _ in range(500):
        assert items[choice_index(ours, n)] == theirs.choice(items)
    assert ours.getstate() == theirs.getstate()


def test_a_draw_from_nothing_is_refused_as_choice_refuses_it():
    with pytest.raises(IndexError):
        choice_index(random.Random(0), 0)
    with pytest.raises(IndexError):
        random.Random(0).choice([])
