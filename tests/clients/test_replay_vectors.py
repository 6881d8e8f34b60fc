"""The replay verification recipe's test vectors (``docs/replay-vectors.json``) against the code.

The committed file must be what the server computes and serves, and every value in it must be
what ``domain.seeds`` (and, for the words, a plain HMAC) gives: so the recipe, its vectors
and the dealing code cannot drift apart. To rewrite the file after a deliberate change:

    uv run python -c "import msgspec; from server.api.routes.verification import replay_vectors; \
print(msgspec.json.format(msgspec.json.encode(replay_vectors()), indent=1).decode())" \
> docs/replay-vectors.json
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from typing import Any

import httpx
import msgspec
import pytest
from client_support import SPEC, VECTORS

from domain import CODES, Dealt, Event, commit, derive_deck, derive_first_dealer, verify
from domain.seeds import below
from server.api.routes.verification import replay_vectors


@pytest.fixture(scope="module")
def vectors() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(VECTORS.read_text())
    return loaded


def test_committed_vectors_are_what_the_code_computes(vectors: dict[str, Any]) -> None:
    computed = json.loads(msgspec.json.encode(replay_vectors()))
    assert vectors == computed, (
        "docs/replay-vectors.json drifted from server.api.routes.verification: regenerate it "
        "(see this module's docstring) and review the diff"
    )


def _hmac_words(seed: str, label: str, count: int) -> list[int]:
    """The recipe's ``words(label)``, written out again from the doc."""
    words: list[int] = []
    counter = 0
    while len(words) < count:
        block = hmac.new(bytes.fromhex(seed), f"{label}:{counter}".encode(), "sha256").digest()
        words.extend(int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4))
        counter += 1
    return words[:count]


def _by_seat(cards: list[str], each: int, dealer: int) -> list[list[str]]:
    hands: list[list[str]] = [[], [], [], []]
    for k in range(4):
        hands[(dealer + 1 + k) % 4] = cards[each * k : each * (k + 1)]
    return hands


def test_seeds_match_domain_seeds(vectors: dict[str, Any]) -> None:
    assert vectors["card_order"] == list(CODES)
    assert len(vectors["seeds"]) >= 3
    assert len({v["first_dealer"] for v in vectors["seeds"]}) > 1, "seeds with one first dealer"
    for vector in vectors["seeds"]:
        seed = vector["seed"]
        assert vector["commitment"] == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
        assert vector["commitment"] == commit(seed)
        assert vector["dealer_words"] == _hmac_words(seed, "dealer", 8)
        assert vector["first_dealer"] == derive_first_dealer(seed)
        assert vector["first_dealer"] == vector["dealer_words"][0] % 4  # below(4) never rejects
        assert [(d["hand"], d["deal"]) for d in vector["deals"]] == [(1, 1), (2, 1), (3, 1), (1, 2)]
        for deal in vector["deals"]:
            hand, number, dealer = deal["hand"], deal["deal"], deal["dealer"]
            assert dealer == (vector["first_dealer"] + hand - 1) % 4
            assert deal["label"] == f"deck:{hand}:{number}"
            assert deal["words"] == _hmac_words(seed, deal["label"], 8)
            deck = list(derive_deck(seed, hand, number))
            assert deal["deck"] == deck
            shuffled = list(CODES)
            for i, j in zip(range(51, 0, -1), deal["draws"], strict=True):
                assert 0 <= j <= i
                shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
            assert shuffled == deck, "the draws do not shuffle the card order into the deck"
            dealt = Dealt(
                hand=hand, deal=number, dealer=dealer, hands=tuple(map(tuple, deal["hands"]))
            )
            assert list(dealt.pack_order()) == deck[:24], "hands not dealt from dealer's right"
            assert deal["kick"] == deck[24]
            assert [r["kick"] for r in deal["runs"]] == [deck[37], deck[50]]
            for run, start in zip(deal["runs"], (25, 38), strict=True):
                assert run["hands"] == _by_seat(deck[start : start + 12], 3, dealer)


def test_below_examples_read_exactly_their_words(vectors: dict[str, Any]) -> None:
    rejecting = 0
    for example in vectors["below_examples"]:
        words = iter(example["words"])
        assert below(words, example["n"]) == example["result"]
        assert next(words, None) is None, f"{example}: a word left unread"
        rejecting += len(example["words"]) > 1
    assert rejecting >= 2, "the examples must exercise the rejection"


def test_sample_replay_verifies_and_shows_every_step(vectors: dict[str, Any]) -> None:
    replay = vectors["replay"]
    events = [msgspec.convert(e["event"], Event) for e in replay["events"]]
    assert verify(events).ok, verify(events).problems
    assert [e["version"] for e in replay["events"]] == list(range(1, len(events) + 1))
    kinds = Counter(type(e).__name__ for e in events)
    for needed in ("Begged", "GaveOne", "PackRun", "Redealt", "HandScored", "GameEnded"):
        assert kinds[needed], f"the sample replay has no {needed}"
    assert replay["seed_commitment"] == commit(replay["seed"])


async def test_the_server_serves_the_vectors_and_the_spec_links_them(
    client: httpx.AsyncClient, vectors: dict[str, Any]
) -> None:
    response = await client.get("/v1/replay-verification")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == vectors
    spec = json.loads(SPEC.read_text())
    operation = spec["paths"]["/v1/replay-verification"]["get"]
    assert operation["operationId"] == "getReplayVerification"
    assert "docs/REPLAY_VERIFICATION.md" in operation["description"]


def test_each_case_settles_its_question_with_its_verdict(vectors: dict[str, Any]) -> None:
    """The recipe's edge cases (issue 25): the domain's verifier reaches each case's verdict,
    and each case shows what it says it shows."""
    cases = {case["name"]: case for case in vectors["cases"]}
    assert set(cases) == {
        "upper_case_seed",
        "redealt_at_p_51",
        "resigned_between_beg_and_choice",
        "zero_point_kick",
        "seed_revealed_twice",
    }
    logs = {
        name: [msgspec.convert(e["event"], Event) for e in case["replay"]["events"]]
        for name, case in cases.items()
    }
    for name, case in cases.items():
        assert verify(logs[name]).ok is case["fair"], (name, verify(logs[name]).problems)
    seed = cases["upper_case_seed"]["replay"]["seed"]
    assert seed == seed.upper() and seed != seed.lower()
    types = [type(e).__name__ for e in logs["redealt_at_p_51"]]
    assert types[types.index("Begged") + 1 :][:6] == [
        "PackRun",
        "Revealed",
        "PackRun",
        "Revealed",
        "Redealt",
        "Dealt",
    ]
    types = [type(e).__name__ for e in logs["resigned_between_beg_and_choice"]]
    assert types[-3:] == ["Begged", "GameEnded", "SeedRevealed"]
    kick = next(e for e in logs["zero_point_kick"] if type(e).__name__ == "Revealed")
    first_dealer = logs["zero_point_kick"][0].first_dealer  # type: ignore[union-attr]
    assert kick.points == 0 and kick.team == first_dealer % 2  # type: ignore[union-attr]
    assert verify(logs["seed_revealed_twice"]).problems == ("the seed is revealed more than once",)
