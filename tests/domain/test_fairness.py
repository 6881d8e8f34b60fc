"""The provably fair deck source: commitment, deterministic decks and first dealer, verify."""

from __future__ import annotations

import hashlib
import hmac
import random
from collections import Counter

import msgspec
import pytest
from botgames import Setup, drive
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import (
    CODES,
    Deal,
    Dealt,
    GameCreated,
    PackRun,
    Revealed,
    Rules,
    SeedRevealed,
    State,
    commit,
    derive_deck,
    derive_first_dealer,
    execute,
    heuristic_bot,
    verify,
    view,
)
from domain.autoplay import due_system_command, opening_commands
from domain.seeds import commitment_matches

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
SEEDS = [f"{i:064x}" for i in range(3)] + ["ff" * 32, "0123456789abcdef" * 4]


# --- an independent implementation of the derivation documented in domain/fairness.py ---------


def _words(seed: str, label: str):
    counter = 0
    while True:
        block = hmac.new(bytes.fromhex(seed), f"{label}:{counter}".encode(), hashlib.sha256)
        digest = block.digest()
        for i in range(8):
            yield int.from_bytes(digest[4 * i : 4 * i + 4], "big")
        counter += 1


def _below(words, n: int) -> int:
    limit = 2**32 - 2**32 % n
    for word in words:
        if word < limit:
            return word % n
    raise AssertionError


def documented_deck(seed: str, hand: int, deal: int) -> tuple[str, ...]:
    words = _words(seed, f"deck:{hand}:{deal}")
    ranks, suits = "23456789TJQKA", "CDHS"
    deck = [r + s for s in suits for r in ranks]
    for i in range(51, 0, -1):
        j = _below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


@pytest.mark.parametrize("seed", SEEDS)
def test_derive_deck_follows_the_documented_derivation(seed):
    for hand, deal in [(1, 1), (1, 2), (2, 1), (17, 3)]:
        assert derive_deck(seed, hand, deal) == documented_deck(seed, hand, deal)


@pytest.mark.parametrize("seed", SEEDS)
def test_derive_first_dealer_follows_the_documented_derivation(seed):
    assert derive_first_dealer(seed) == _below(_words(seed, "dealer"), 4)


# --- properties ------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(seed=seeds, hand=st.integers(1, 40), deal=st.integers(1, 5))
def test_derive_deck_is_a_deterministic_permutation_of_the_52_cards(seed, hand, deal):
    deck = derive_deck(seed, hand, deal)
    assert len(deck) == 52
    assert sorted(deck) == sorted(CODES)
    assert derive_deck(seed, hand, deal) == deck


@settings(max_examples=200, deadline=None)
@given(seed=seeds, hand=st.integers(1, 40), deal=st.integers(1, 5))
def test_every_hand_and_deal_gets_its_own_deck(seed, hand, deal):
    deck = derive_deck(seed, hand, deal)
    assert derive_deck(seed, hand + 1, deal) != deck
    assert derive_deck(seed, hand, deal + 1) != deck
    assert derive_deck(seed, deal, hand) != deck or hand == deal


@settings(max_examples=100, deadline=None)
@given(a=seeds, b=seeds)
def test_different_seeds_give_different_decks(a, b):
    if a != b:
        assert derive_deck(a, 1, 1) != derive_deck(b, 1, 1)
        assert commit(a) != commit(b)


@settings(max_examples=200, deadline=None)
@given(seed=seeds)
def test_first_dealer_is_a_seat_and_deterministic(seed):
    dealer = derive_first_dealer(seed)
    assert dealer in (0, 1, 2, 3)
    assert derive_first_dealer(seed) == dealer


@settings(max_examples=200, deadline=None)
@given(seed=seeds)
def test_the_commitment_is_the_sha256_of_the_seed_bytes(seed):
    assert commit(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert len(commit(seed)) == 64
    assert commitment_matches(seed, commit(seed))
    assert commitment_matches(seed.upper(), commit(seed))
    assert not commitment_matches(seed, commit(seed[:-2] + ("00" if seed[-2:] != "00" else "01")))
    assert not commitment_matches("zz" + seed[2:], commit(seed))
    assert not commitment_matches(seed[:-1], commit(seed))


def test_the_commitment_does_not_reveal_the_seed():
    seed = "ab" * 32
    assert seed not in commit(seed)


def test_a_statistical_sanity_check_of_decks_and_dealers():
    """Over 2000 seeds every first dealer and, for one card, every deck position turns up
    about as often as it should (loose bounds; the seeds are fixed, so this cannot flake)."""
    seeds_ = [f"{i:064x}" for i in range(2000)]
    dealers = Counter(derive_first_dealer(s) for s in seeds_)
    assert set(dealers) == {0, 1, 2, 3}
    assert all(400 <= n <= 600 for n in dealers.values()), dealers
    positions = Counter(derive_deck(s, 1, 1).index("AS") // 13 for s in seeds_)
    assert all(400 <= n <= 600 for n in positions.values()), positions
    kicks = Counter(derive_deck(s, 1, 1)[24][1] for s in seeds_)
    assert all(400 <= n <= 600 for n in kicks.values()), kicks


# --- verify ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished_log():
    """The first of a fixed series of games in which the pack was run."""
    for i in range(100):
        setup = Setup(f"{i:064x}", ("random", "heuristic", "random", "heuristic"), Rules())
        _, log = drive(setup)
        if any(isinstance(e, PackRun) for e in log):
            return log
    raise AssertionError("no game ran the pack")


def test_verify_accepts_a_finished_log(finished_log):
    result = verify(finished_log)
    assert result.ok and result.problems == ()


def test_verify_rejects_a_log_without_its_seed(finished_log):
    assert not verify(finished_log[:-1]).ok
    assert not verify([]).ok
    assert not verify(finished_log[1:]).ok


def test_verify_rejects_a_wrong_seed(finished_log):
    forged = [*finished_log[:-1], SeedRevealed(seed="ab" * 32)]
    assert forged[-1] != finished_log[-1]
    assert not verify(forged).ok


def test_verify_rejects_a_seed_matching_a_forged_commitment(finished_log):
    """Commit to another seed from the start: the decks no longer derive from it."""
    other = "11" * 32
    created = finished_log[0]
    forged = [
        msgspec.structs.replace(created, seed_commitment=commit(other)),
        *finished_log[1:-1],
        SeedRevealed(seed=other),
    ]
    assert isinstance(created, GameCreated)
    result = verify(forged)
    assert not result.ok
    assert any("not fair" in p for p in result.problems)


def test_verify_rejects_two_cards_swapped_between_hands(finished_log):
    index = next(i for i, e in enumerate(finished_log) if isinstance(e, Dealt))
    dealt = finished_log[index]
    hands = [list(h) for h in dealt.hands]
    hands[0][0], hands[1][5] = hands[1][5], hands[0][0]
    tampered = msgspec.structs.replace(dealt, hands=tuple(tuple(h) for h in hands))
    log = [*finished_log[:index], tampered, *finished_log[index + 1 :]]
    assert not verify(log).ok


def test_verify_rejects_a_changed_kick(finished_log):
    index = next(i for i, e in enumerate(finished_log) if isinstance(e, Revealed))
    kick = finished_log[index]
    other = next(c for c in CODES if c != kick.card)
    log = [
        *finished_log[:index],
        msgspec.structs.replace(kick, card=other),
        *finished_log[index + 1 :],
    ]
    assert not verify(log).ok


def test_verify_rejects_changed_cards_from_running_the_pack(finished_log):
    index = next(i for i, e in enumerate(finished_log) if isinstance(e, PackRun))
    run = finished_log[index]
    hands = [list(h) for h in run.hands]
    hands[0][0], hands[2][2] = hands[2][2], hands[0][0]
    tampered = msgspec.structs.replace(run, hands=tuple(tuple(h) for h in hands))
    log = [*finished_log[:index], tampered, *finished_log[index + 1 :]]
    assert not verify(log).ok


def test_verify_rejects_a_changed_first_dealer(finished_log):
    created = finished_log[0]
    forged = msgspec.structs.replace(created, first_dealer=(created.first_dealer + 1) % 4)
    assert not verify([forged, *finished_log[1:]]).ok


def forged_game(seed: str, deal_number: int) -> list:
    """A whole game whose every deck is the seed's deck of deal ``deal_number`` (not 1), with
    each Dealt event claiming that deal number: a server grinding deal numbers for decks it
    likes would produce exactly this, consistent in every other event."""
    rules = Rules(target=3)
    rng = random.Random(seed)
    pending = opening_commands(seed, rules, ["a", "b", "c", "d"], ["heuristic"] * 4)
    state, log = State(), []
    while state.seed is None:
        command = pending.pop(0) if pending else due_system_command(state, seed)
        if isinstance(command, Deal):
            shift = deal_number - 1
            command = Deal(derive_deck(seed, state.hand_no, state.deal_no + shift))
        elif command is None:
            command = heuristic_bot(view(state, state.to_act), rng)
        state, events = execute(state, command)
        for event in events:
            if isinstance(event, Dealt):
                event = msgspec.structs.replace(event, deal=event.deal + deal_number - 1)
            log.append(event)
    return log


def test_verify_rejects_decks_from_ground_deal_numbers():
    seed = "5a" * 32
    honest = forged_game(seed, 1)
    assert verify(honest).ok
    assert not verify(forged_game(seed, 7)).ok


def test_verify_rejects_a_deal_claimed_by_another_dealer(finished_log):
    """Moving the dealer of one Dealt (the deck order unchanged) hands each seat another
    player's cards."""
    index = next(i for i, e in enumerate(finished_log) if isinstance(e, Dealt))
    dealt = finished_log[index]
    order = [dealt.hands[(dealt.dealer + 1 + k) % 4] for k in range(4)]
    moved = (dealt.dealer + 1) % 4
    hands = [None] * 4
    for k in range(4):
        hands[(moved + 1 + k) % 4] = order[k]
    forged = msgspec.structs.replace(dealt, dealer=moved, hands=tuple(hands))
    log = [*finished_log[:index], forged, *finished_log[index + 1 :]]
    assert not verify(log).ok
