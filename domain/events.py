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
    expires_at: int | None = None
    """Milliseconds since the epoch: a table still waiting for players then is closed
    (``GameAborted``, reason ``expired``). None: it waits for ever (logs before expiry)."""
    rematch_of: str | None = None
    """The game this table is a rematch of."""
    reserved: tuple[int, ...] = ()
    """Seats kept for the people who held them in ``rematch_of``, until ``reserved_until``."""
    reserved_until: int | None = None
    """Milliseconds since the epoch; after it, reserved seats are open to anyone."""


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


EndReason = Literal["target", "resigned"]


class GameEnded(_Event, frozen=True, tag="GameEnded"):
    winner: int = 0
    """The winning team: 0 (seats 0 and 2) or 1 (seats 1 and 3)."""
    scores: tuple[int, int] = (0, 0)
    reason: EndReason = "target"
    """``target``: the winner reached the target. ``resigned``: the other team resigned."""
    seat: int | None = None
    """With ``resigned``: the seat whose person resigned for the team."""


AbortReason = Literal["aborted", "expired"]


class GameAborted(_Event, frozen=True, tag="GameAborted"):
    """The table closed without a winner: a seated person aborted it before the first card of
    the game (``aborted``), or it waited for players past its ``expires_at`` (``expired``)."""

    reason: AbortReason = "aborted"
    seat: int | None = None
    """With ``aborted``: the seat whose person aborted."""


class TurnTimedOut(_Event, frozen=True, tag="TurnTimedOut"):
    """The seat to act let its deadline pass: the heuristic bot makes this one decision for
    it (the events that follow), seeing only that seat's view."""

    seat: int = 0
    deadline: int = 0
    """The deadline that passed, in milliseconds since the epoch."""


AwayReason = Literal["timed_out", "stepped_away"]


class SeatAway(_Event, frozen=True, tag="SeatAway"):
    """The seat's person is away: the heuristic bot plays it at once until ``SeatBack``."""

    seat: int = 0
    reason: AwayReason = "stepped_away"
    """``timed_out``: too many timeouts in a row. ``stepped_away``: the person said so."""


class SeatBack(_Event, frozen=True, tag="SeatBack"):
    """The seat's person is back and plays (on the clock) again."""

    seat: int = 0


class PlayerLeft(_Event, frozen=True, tag="PlayerLeft"):
    """The seat's person left. Before the game starts the seat is open again; after, the
    heuristic bot plays it for the rest of the game unless a new person takes it over."""

    seat: int = 0


class PlayerReplaced(_Event, frozen=True, tag="PlayerReplaced"):
    """A new person took over a seat that was left or away (with a new seat token)."""

    seat: int = 0
    name: str = ""


class RematchCreated(_Event, frozen=True, tag="RematchCreated"):
    """After the end: a new table with the same rules and bots was opened (``game_id``)."""

    game_id: str = ""


class SeedRevealed(_Event, frozen=True, tag="SeedRevealed"):
    """The secret seed, so anyone can re-derive every deal (``verify``); right after the
    game's end (only ``RematchCreated`` may follow)."""

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
    | GameAborted
    | TurnTimedOut
    | SeatAway
    | SeatBack
    | PlayerLeft
    | PlayerReplaced
    | RematchCreated
)
