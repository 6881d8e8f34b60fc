"""Events: the facts a game is made of. The log of events is the game; state is their fold.

Schemas only ever grow: a new field gets a default, so logs written today stay readable.
Every event has ``at`` (server time, ms since the epoch), stamped by the service when it is
stored; the domain itself never reads the clock. Events that hold cards a viewer may not see
(``Dealt``, ``PackRun``) keep them in per-seat slots that ``redact`` blanks out (``None``).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.rules import Rules


class _Event(msgspec.Struct, frozen=True, tag_field="type", omit_defaults=False):
    at: int = 0
    """Server time in milliseconds since the Unix epoch, stamped when stored."""


class GameCreated(_Event, frozen=True, tag="GameCreated"):
    rules: Rules = Rules()
    seed_commitment: str = ""
    first_dealer: int = 0


class PlayerJoined(_Event, frozen=True, tag="PlayerJoined"):
    seat: int = 0
    name: str = ""
    bot: str | None = None


class Dealt(_Event, frozen=True, tag="Dealt"):
    """Six cards to each player. ``hands[seat]`` is None where the viewer may not see it."""

    hand: int = 1
    """Hand number, from 1."""
    deal: int = 1
    """Deal number within the hand: above 1 after an exhausted pack was redealt."""
    dealer: int = 0
    hands: tuple[tuple[str, ...] | None, ...] = (None, None, None, None)
    stock: tuple[str, ...] | None = None
    """The undealt rest of the pack in order; None for every viewer until the game is over."""

    def pack_order(self) -> tuple[str, ...]:
        """The pack as it came off: each hand from the dealer's right round to the dealer,
        then the stock (complete only in the unredacted event)."""
        order: list[str] = []
        for k in range(1, 5):
            order.extend(self.hands[(self.dealer + k) & 3] or ())
        order.extend(self.stock or ())
        return tuple(order)


class Revealed(_Event, frozen=True, tag="Revealed"):
    """The dealer turned up a card (the kick). ``points`` went to the dealer's ``team``."""

    card: str = ""
    points: int = 0
    team: int = 0


class Stood(_Event, frozen=True, tag="Stood"):
    seat: int = 0


class Begged(_Event, frozen=True, tag="Begged"):
    seat: int = 0


class GaveOne(_Event, frozen=True, tag="GaveOne"):
    """The dealer kept the kick's suit as trump and gave the begging ``team`` a point."""

    seat: int = 0
    team: int = 0
    points: int = 1


class PackRun(_Event, frozen=True, tag="PackRun"):
    """Three more cards to each player. ``hands[seat]`` is None where the viewer may not see it."""

    seat: int = 0
    hands: tuple[tuple[str, ...] | None, ...] = (None, None, None, None)


class TrumpSet(_Event, frozen=True, tag="TrumpSet"):
    suit: str = ""
    """The trump suit's letter: C, D, H or S."""


class Redealt(_Event, frozen=True, tag="Redealt"):
    """The pack ran out without a new suit: cards are collected and the same dealer redeals."""

    dealer: int = 0


class CardPlayed(_Event, frozen=True, tag="CardPlayed"):
    seat: int = 0
    card: str = ""


class TrickWon(_Event, frozen=True, tag="TrickWon"):
    seat: int = 0
    team: int = 0
    cards: tuple[str, ...] = ()
    """The trick's cards in the order they were played, from the leader's."""


AwardKind = Literal["high", "low", "jack", "hang_jack", "game"]


class Award(msgspec.Struct, frozen=True):
    kind: AwardKind
    team: int
    points: int
    card: str | None = None
    """The card that earned it (High, Low, Jack); None for Game."""
    seat: int | None = None
    """The seat that was dealt that card (High, Low, Jack)."""


class HandScored(_Event, frozen=True, tag="HandScored"):
    """The points of a hand in the order they are awarded; awarding stops at the target."""

    awards: tuple[Award, ...] = ()
    game_counts: tuple[int, int] = (0, 0)
    scores: tuple[int, int] = (0, 0)


class GameEnded(_Event, frozen=True, tag="GameEnded"):
    winner: int = 0
    """The winning team: 0 (seats 0 and 2) or 1 (seats 1 and 3)."""
    scores: tuple[int, int] = (0, 0)


class SeedRevealed(_Event, frozen=True, tag="SeedRevealed"):
    """The last event: the secret seed, so anyone can re-derive every deal (``verify``)."""

    seed: str = ""


Event = (
    GameCreated
    | PlayerJoined
    | Dealt
    | Revealed
    | Stood
    | Begged
    | GaveOne
    | PackRun
    | TrumpSet
    | Redealt
    | CardPlayed
    | TrickWon
    | HandScored
    | GameEnded
    | SeedRevealed
)
