"""Hidden information: no seat or spectator ever receives a card it may not know, a stock card,
or the seed before the end, through any event (``redact``) or snapshot (``view``).

What a viewer may legitimately know is tracked here from the unredacted events, independently
of ``domain.visibility``: its own cards of the current deal, every played card, every turned-up
card. Every other card code found in what it receives is a leak.
"""

from __future__ import annotations

import re

import msgspec
from botgames import Setup, Step, drive, setups
from decks import SEED, Game, build_deck
from hypothesis import HealthCheck, given, settings

from domain import (
    CardPlayed,
    Dealt,
    PackRun,
    Redealt,
    Revealed,
    SeedRevealed,
    redact,
    view,
)

VIEWERS = (0, 1, 2, 3, None)
CARD_TOKEN = re.compile(rb"(?<![0-9A-Za-z])([2-9TJQKA][CDHS])(?![0-9A-Za-z])")


def card_codes(payload: bytes) -> set[str]:
    return {m.decode() for m in CARD_TOKEN.findall(payload)}


class Knowledge:
    """What each viewer may know right now, from the full events as they happen."""

    def __init__(self) -> None:
        self.own: dict[int | None, set[str]] = {v: set() for v in VIEWERS}
        self.public: set[str] = set()

    def learn(self, event) -> None:
        if isinstance(event, Dealt):
            self.public = set()
            for seat in range(4):
                self.own[seat] = set(event.hands[seat] or ())
        elif isinstance(event, PackRun):
            for seat in range(4):
                self.own[seat] |= set(event.hands[seat] or ())
        elif isinstance(event, (Revealed, CardPlayed)):
            self.public.add(event.card)
        elif isinstance(event, Redealt):
            self.public = set()
            for seat in range(4):
                self.own[seat] = set()

    def known(self, viewer: int | None) -> set[str]:
        return self.own[viewer] | self.public


class LeakChecks:
    def __init__(self, seed: str) -> None:
        self.seed = seed.encode()
        self.knowledge = Knowledge()
        self.seed_revealed = False
        self.events = 0

    def check(self, payload: bytes, viewer: int | None, what: str) -> None:
        leaked = card_codes(payload) - self.knowledge.known(viewer)
        assert not leaked, f"{what} shows viewer {viewer} {sorted(leaked)}"
        if not self.seed_revealed:
            assert self.seed not in payload, f"{what} shows the seed before the end"

    def __call__(self, step: Step) -> None:
        for event in step.events:
            self.events += 1
            self.knowledge.learn(event)
            if isinstance(event, SeedRevealed):
                self.seed_revealed = True
            for viewer in VIEWERS:
                seen = redact(event, viewer)
                self.check(msgspec.json.encode(seen), viewer, type(event).__name__)
                # and redaction keeps what the viewer may see: its own cards
                if isinstance(event, (Dealt, PackRun)):
                    assert seen.hands == tuple(
                        h if seat == viewer else None for seat, h in enumerate(event.hands)
                    )
                    if isinstance(seen, Dealt):
                        assert seen.stock is None
        for viewer in VIEWERS:
            snapshot = view(step.after, viewer)
            self.check(msgspec.json.encode(snapshot), viewer, f"view v{step.after.version}")
            if viewer is not None and step.after.deck:
                assert set(snapshot.hand or ()) <= self.knowledge.own[viewer]
                assert len(snapshot.hand or ()) == step.after.hands[viewer].bit_count()
            if viewer is None:
                assert snapshot.hand is None


@settings(deadline=None, max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(setup=setups)
def test_no_event_or_view_leaks_hidden_cards_or_the_seed(setup: Setup):
    checks = LeakChecks(setup.seed)
    drive(setup, checks)
    assert checks.seed_revealed and checks.events > 0


def test_the_leak_check_catches_a_leak():
    """The checker itself: an unredacted Dealt shows another seat's cards and the stock."""
    game = Game(first_dealer=0)
    events = game.deal(build_deck(0, kick="3H"))
    checks = LeakChecks(SEED)
    for event in events:
        checks.knowledge.learn(event)
    raw = msgspec.json.encode(events[0])
    for viewer in VIEWERS:
        try:
            checks.check(raw, viewer, "raw Dealt")
        except AssertionError:
            continue
        raise AssertionError(f"the unredacted deal did not count as a leak for {viewer}")
    checks.check(msgspec.json.encode(redact(events[0], 2)), 2, "redacted Dealt")


def test_a_seat_sees_its_own_hand_and_the_kick_but_no_other_hand_or_the_stock():
    game = Game(first_dealer=0)
    deck = build_deck(0, kick="3H")
    events = game.deal(deck)
    dealt = events[0]
    for seat in range(4):
        mine = redact(dealt, seat)
        assert mine.hands[seat] == dealt.hands[seat]
        assert [h for s, h in enumerate(mine.hands) if s != seat] == [None, None, None]
        assert mine.stock is None
        seen = view(game.state, seat)
        assert set(seen.hand) == set(dealt.hands[seat])
        assert seen.kicks == ("3H",)
        assert [s.cards_held for s in seen.seats] == [6, 6, 6, 6]
    spectator = redact(dealt, None)
    assert spectator.hands == (None, None, None, None) and spectator.stock is None
    assert view(game.state, None).hand is None
    assert view(game.state, None).legal_actions == ()
