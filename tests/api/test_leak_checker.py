"""The leak checker of the end-to-end tests must catch leaks, not only pass: fed what a broken
server could send, it reports each kind of leak; fed the correct redaction, nothing."""

from __future__ import annotations

import json

import httpx
import msgspec
import pytest
from support import LeakChecker, create_game, redacted_json, replay_of

from domain import CardPlayed, Dealt, Event, SeedRevealed

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]


@pytest.fixture
async def full_log(client: httpx.AsyncClient) -> list[Event]:
    created = await create_game(client, ["random", "heuristic", "random", "heuristic"])
    _, events = await replay_of(client, created["game_id"])
    return events


def first(events: list[Event], kind: type) -> tuple[int, Event]:
    return next((i + 1, e) for i, e in enumerate(events) if isinstance(e, kind))


def test_correct_redaction_passes(full_log: list[Event]) -> None:
    leaks = LeakChecker()
    for version, event in enumerate(full_log, 1):
        for viewer in (None, 0, 1, 2, 3):
            leaks.record(viewer, version, json.dumps(redacted_json(event, viewer)), "stream")
    assert leaks.violations(full_log) == []


def test_another_seats_hand_is_a_leak(full_log: list[Event]) -> None:
    version, dealt = first(full_log, Dealt)
    assert isinstance(dealt, Dealt)
    leaks = LeakChecker()
    leaks.record(0, version, json.dumps(redacted_json(dealt, 1)), "stream")
    assert len(leaks.violations(full_log)) == 1
    leaks = LeakChecker()
    leaks.record(None, version, json.dumps(redacted_json(dealt, 2)), "stream")
    assert "cards" in leaks.violations(full_log)[0]


def test_a_card_before_it_is_played_is_a_leak(full_log: list[Event]) -> None:
    version, played = first(full_log, CardPlayed)
    assert isinstance(played, CardPlayed)
    leaks = LeakChecker()
    viewer = (played.seat + 1) % 4  # not the player: may see the card once it is played
    leaks.record(viewer, version, json.dumps({"card": played.card}), "view")
    assert leaks.violations(full_log) == []
    leaks.record(viewer, version - 1, json.dumps({"card": played.card}), "view")
    assert len(leaks.violations(full_log)) == 1


def test_the_stock_and_an_early_seed_are_leaks(full_log: list[Event]) -> None:
    version, dealt = first(full_log, Dealt)
    seed = full_log[-1]
    assert isinstance(seed, SeedRevealed)
    leaks = LeakChecker()
    leaks.record(0, version, msgspec.json.encode(dealt).decode(), "events")  # unredacted
    leaks.record(None, len(full_log) - 1, json.dumps({"seed": seed.seed}), "view")
    leaks.record(None, len(full_log), json.dumps({"seed": seed.seed}), "view")  # allowed
    found = leaks.violations(full_log)
    assert any("the stock" in f for f in found), found
    assert any("the seed before the end" in f for f in found), found
    assert len([f for f in found if "seed" in f]) == 1
