"""``verify``: check a finished game's log against its seed (see ``seeds`` for how every deck
and the first dealer derive from it)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

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
from domain.seeds import commitment_matches, derive_deck, derive_first_dealer


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
    if sum(isinstance(event, SeedRevealed) for event in events) > 1:
        return Verification(False, ("the seed is revealed more than once",))
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
