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
from domain.wire import BotLevel, CardCode, FourHands, Hex64, SeedHex, SuitLetter


# gc=False: an event holds only numbers, strings and tuples of them, so it can be in no reference
# cycle, and a long log of events left out of the garbage collector's scans costs it nothing.
class _Event(msgspec.Struct, frozen=True, tag_field="type", omit_defaults=False, gc=False):
    at: int = 0
    """Server time in milliseconds since the Unix epoch, stamped when stored."""


class GameCreated(_Event, frozen=True, tag="GameCreated"):
    rules: Rules = Rules()
    seed_commitment: Hex64 = ""
    """SHA-256 (hex) of the secret seed every deck of the game is derived from; the seed itself
    is published by SeedRevealed at the end."""
    first_dealer: int = 0
    """The seat that deals the first hand (derived from the seed)."""
    expires_at: int | None = None
    """Milliseconds since the epoch: a table still waiting for players then is closed
    (``GameAborted``, reason ``expired``). None: it waits for ever (logs before expiry)."""
    rematch_of: str | None = None
    """The game this table is a rematch of."""
    reserved: tuple[int, ...] = ()
    """Seats kept for the people who held them in ``rematch_of``, until ``reserved_until``."""
    reserved_until: int | None = None
    """Milliseconds since the epoch; after it, reserved seats are open to anyone."""
    takeover_grace_ms: int = 0
    """How long a seat whose person is away stays theirs before a newcomer may take it over
    (the view's ``takeover_at``); 0, at once, in logs written before the grace existed."""
    pause_when_absent: bool = False
    """The game waits (the view's ``paused``) while every person at the table is away or
    gone: no timeout fires and no bot plays for them until one comes back or a newcomer takes
    a seat over. False in logs written before the pause existed."""
    away_pace_ms: int = 0
    """How long after its turn came the bot plays an away person's seat, while others play
    on (0: at once, as in logs written before the pace existed)."""
    idle_expiry_ms: int | None = None
    """A game paused, or waiting with no clock on a person, this long after it was last
    active is closed (``GameAborted``, reason ``idle``). Null: never."""
    stand_in: BotLevel = "heuristic"
    """The bot level that decides for a person who is away, gone or out of time (a name of
    ``domain.bots.BOTS``); ``heuristic`` in logs written before the table chose one."""
    rated: bool = False
    """A rated game: only people with player identities sit at it, and its result moves
    their ratings. No hints are given at a rated table."""
    private: bool = False
    """Not listed in the lobby; only its creator and holders of its invitation may seat
    anyone at it."""


class PlayerJoined(_Event, frozen=True, tag="PlayerJoined"):
    seat: int = 0
    """The seat taken, 0..3."""
    name: str = ""
    """The name shown for the seat."""
    bot: BotLevel | None = None
    """The bot level playing the seat, or null for a person."""
    player: str | None = None
    """The public id of the player identity the person joined with (null: anonymous, or a
    bot). Rated games and a player's game list are built from it."""


class Dealt(_Event, frozen=True, tag="Dealt"):
    """Six cards to each player. ``hands[seat]`` is None where the viewer may not see it."""

    hand: int = 1
    """Hand number, from 1."""
    deal: int = 1
    """Deal number within the hand: above 1 after an exhausted pack was redealt."""
    dealer: int = 0
    """The seat that dealt."""
    hands: FourHands = (None, None, None, None)
    """Six cards per seat, indexed by seat; null where the viewer may not see them: in the event
    log and on streams every hand but the viewer's own, even after the end. The replay (once
    the game is over) shows every hand."""
    stock: tuple[CardCode, ...] | None = None
    """The undealt rest of the pack in order, from the first kick on; null in the event log and
    on streams for every viewer, shown in the replay (once the game is over)."""

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

    card: CardCode = ""
    """The card turned up (out of play: it belongs to nobody)."""
    points: int = 0
    """Points it scored at once for the dealer's team: an ace 1, a jack 3, a six 2 (under the
    ``tobago_kick`` rule a two scores the 2 instead, and a six nothing), any other card 0."""
    team: int = 0
    """The dealer's team, which scored the points."""


class Stood(_Event, frozen=True, tag="Stood"):
    seat: int = 0
    """The seat on the dealer's right, which accepted the kick's suit as trump."""


class Begged(_Event, frozen=True, tag="Begged"):
    seat: int = 0
    """The seat on the dealer's right, which begged."""


class GaveOne(_Event, frozen=True, tag="GaveOne"):
    """The dealer kept the kick's suit as trump and gave the begging ``team`` a point."""

    seat: int = 0
    """The dealer."""
    team: int = 0
    """The begging team, which scored the point."""
    points: int = 1
    """Always 1."""


class PackRun(_Event, frozen=True, tag="PackRun"):
    """Three more cards to each player. ``hands[seat]`` is None where the viewer may not see it."""

    seat: int = 0
    """The dealer, who ran the pack."""
    hands: FourHands = (None, None, None, None)
    """Three more cards per seat, indexed by seat; null where the viewer may not see them."""


class TrumpSet(_Event, frozen=True, tag="TrumpSet"):
    suit: SuitLetter = ""
    """The trump suit's letter: C, D, H or S."""


class Redealt(_Event, frozen=True, tag="Redealt"):
    """The pack ran out without a new suit: cards are collected and the same dealer redeals."""

    dealer: int = 0
    """The same dealer, who deals again."""


class CardPlayed(_Event, frozen=True, tag="CardPlayed"):
    seat: int = 0
    """The seat that played."""
    card: CardCode = ""
    """The card played."""


class TrickWon(_Event, frozen=True, tag="TrickWon"):
    seat: int = 0
    """The seat that won the trick (and leads the next)."""
    team: int = 0
    """That seat's team, which captured the cards."""
    cards: tuple[CardCode, ...] = ()
    """The trick's cards in the order they were played, from the leader's."""


AwardKind = Literal["high", "low", "jack", "hang_jack", "game"]


class Award(msgspec.Struct, frozen=True):
    kind: AwardKind
    """high, low, jack (1 to the holder's team), hang_jack (3 to the team that captured the other
    team's Jack) or game."""
    team: int
    """The team that scored it."""
    points: int
    """Points scored: 1, or 3 for hang_jack."""
    card: CardCode | None = None
    """The card that earned it (High, Low, Jack); None for Game."""
    seat: int | None = None
    """The seat that was dealt that card (High, Low, Jack)."""


class HandScored(_Event, frozen=True, tag="HandScored"):
    """The points of a hand in the order they are awarded; awarding stops at the target."""

    awards: tuple[Award, ...] = ()
    """The awards in the order they were given (High, Low, Jack, Game); the list stops at the
    award that reached the target."""
    game_counts: tuple[int, int] = (0, 0)
    """Each team's game count this hand (A 4, K 3, Q 2, J 1, 10 10), team 0 first."""
    scores: tuple[int, int] = (0, 0)
    """Both teams' scores after this hand, team 0 first."""


EndReason = Literal["target", "resigned"]


class GameEnded(_Event, frozen=True, tag="GameEnded"):
    winner: int = 0
    """The winning team: 0 (seats 0 and 2) or 1 (seats 1 and 3)."""
    scores: tuple[int, int] = (0, 0)
    """The final scores, team 0 first."""
    reason: EndReason = "target"
    """``target``: the winner reached the target. ``resigned``: the other team resigned."""
    seat: int | None = None
    """With ``resigned``: the seat whose person resigned for the team."""


AbortReason = Literal["aborted", "expired", "idle"]


class GameAborted(_Event, frozen=True, tag="GameAborted"):
    """The table closed without a winner: a seated person (or its creator) aborted it before
    the first card of the game (``aborted``), it waited for players past its ``expires_at``
    (``expired``), or nobody played for too long (``idle``: paused with everyone away, or
    waiting with no clock, past ``GameCreated.idle_expiry_ms``)."""

    reason: AbortReason = "aborted"
    """aborted: closed before the first card; expired: it waited for players past its
    expires_at; idle: nobody played for too long."""
    seat: int | None = None
    """With ``aborted``: the seat whose person aborted; null when the table's creator closed
    it (the creator need not sit at the table)."""


class TurnTimedOut(_Event, frozen=True, tag="TurnTimedOut"):
    """The seat to act let its deadline pass: the heuristic bot makes this one decision for
    it (the events that follow), seeing only that seat's view."""

    seat: int = 0
    """The seat that timed out."""
    deadline: int = 0
    """The deadline that passed, in milliseconds since the epoch."""


AwayReason = Literal["timed_out", "stepped_away"]


class SeatAway(_Event, frozen=True, tag="SeatAway"):
    """The seat's person is away: the heuristic bot plays it at once until ``SeatBack``."""

    seat: int = 0
    """The seat whose person is away."""
    reason: AwayReason = "stepped_away"
    """``timed_out``: too many timeouts in a row. ``stepped_away``: the person said so."""


class SeatBack(_Event, frozen=True, tag="SeatBack"):
    """The seat's person is back and plays (on the clock) again."""

    seat: int = 0
    """The seat whose person is back."""


class PlayerLeft(_Event, frozen=True, tag="PlayerLeft"):
    """The seat's person left. Before the game starts the seat is open again; after, the
    heuristic bot plays it for the rest of the game unless a new person takes it over."""

    seat: int = 0
    """The seat whose person left."""


class PlayerReplaced(_Event, frozen=True, tag="PlayerReplaced"):
    """A new person took over a seat that was left or away (with a new seat token)."""

    seat: int = 0
    """The seat taken over."""
    name: str = ""
    """The new person's name."""
    player: str | None = None
    """The public id of the new person's player identity (null: anonymous)."""


class RematchCreated(_Event, frozen=True, tag="RematchCreated"):
    """After the end: a new table with the same rules and bots was opened (``game_id``)."""

    game_id: str = ""
    """The rematch table's game id."""


class SeedRevealed(_Event, frozen=True, tag="SeedRevealed"):
    """The secret seed, so anyone can re-derive every deal (``verify``); right after the
    game's end (only ``RematchCreated`` may follow)."""

    seed: SeedHex = ""
    """The game's secret seed (hex): re-derive and check every deal with it."""


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
