"""The state of one game: the fold of its events. Immutable; ``evolve`` makes the next one."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.cards import CardSet
from domain.rules import Rules

Phase = Literal[
    "new",  # no GameCreated yet
    "seating",  # waiting for four players
    "dealing",  # waiting for the service's Deal (a new hand or a redeal)
    "begging",  # the player on the dealer's right stands or begs
    "dealer_choice",  # after a beg: the dealer gives one or runs the pack
    "playing",
    "ended",
]


AWAY_AFTER_TIMEOUTS = 2
"""Timeouts in a row after which a person is marked away (and the bot plays at once)."""

EndReason = Literal["target", "resigned", "aborted", "expired"]


class Player(msgspec.Struct, frozen=True):
    name: str
    bot: str | None = None
    away: bool = False
    """The person is away (stepped away, or timed out too often): the bot plays at once."""
    left: bool = False
    """The person left for good: the bot plays the seat to the end of the game."""
    timeouts: int = 0
    """Timeouts in a row: reset when the person decides for themselves."""

    @property
    def autoplayed(self) -> bool:
        """Whether a bot makes this seat's decisions now, without waiting."""
        return self.bot is not None or self.away or self.left

    @property
    def person_present(self) -> bool:
        """A person holds the seat and has not left it (away still counts: they may return)."""
        return self.bot is None and not self.left


def team_of(seat: int) -> int:
    """Partners sit opposite: team 0 is seats 0 and 2, team 1 is seats 1 and 3."""
    return seat & 1


def next_seat(seat: int) -> int:
    """Seats are numbered counterclockwise, so the next player (the right-hand one) is +1."""
    return (seat + 1) & 3


# gc=False: a state holds only numbers, strings, tuples and other frozen structs, so it can be
# in no reference cycle; one is made per event, and the collector need not scan them.
class State(msgspec.Struct, frozen=True, gc=False):
    version: int = 0
    """How many events have been folded: the stream version this state stands for."""
    phase: Phase = "new"
    rules: Rules = Rules()
    seed_commitment: str = ""
    seed: str | None = None
    players: tuple[Player | None, ...] = (None, None, None, None)
    dealer: int = 0
    hand_no: int = 0
    deal_no: int = 0
    deck: tuple[int, ...] = ()
    """The current deal's whole pack in order (hidden information)."""
    next_card: int = 0
    """Index in ``deck`` of the next card to come off the pack."""
    hands: tuple[CardSet, CardSet, CardSet, CardSet] = (0, 0, 0, 0)
    dealt: tuple[CardSet, CardSet, CardSet, CardSet] = (0, 0, 0, 0)
    """Every card dealt to each seat this hand: who was the original holder, for High/Low/Jack."""
    kicks: tuple[int, ...] = ()
    """Cards turned up this hand, first kick first. Out of play."""
    trump: int | None = None
    leader: int = 0
    trick: tuple[int, ...] = ()
    """Cards of the trick in progress, in play order from ``leader``."""
    last_trick: tuple[int, ...] = ()
    last_trick_leader: int = 0
    tricks_played: int = 0
    won: tuple[CardSet, CardSet] = (0, 0)
    """Cards captured in tricks by each team this hand."""
    scores: tuple[int, int] = (0, 0)
    winner: int | None = None
    turn_at: int = 0
    """When the seat to act got the turn (the ``at`` of that event): its clock starts there."""
    turn_timed_out: bool = False
    """The seat to act let its deadline pass: the bot makes this one decision."""
    expires_at: int | None = None
    rematch_of: str | None = None
    reserved: tuple[int, ...] = ()
    reserved_until: int | None = None
    rematch: str | None = None
    """The id of this game's rematch table, once someone asked for it."""
    end_reason: EndReason | None = None

    @property
    def deadline(self) -> int | None:
        """When the person to act times out (ms since the epoch); None when nobody is on the
        clock: no clock, no decision due, or a bot deciding. Derived from the log alone."""
        seat = self.to_act
        if seat is None:
            return None
        clock = self.rules.clock_ms
        player = self.players[seat]
        if clock is None or player is None or player.autoplayed or self.turn_timed_out:
            return None
        return self.turn_at + clock

    @property
    def wakeup_at(self) -> int | None:
        """When time alone next changes this game (a deadline, or the expiry of a table still
        waiting for players): what the service's due-index holds for it."""
        if self.phase == "seating":
            return self.expires_at
        return self.deadline

    @property
    def first_card_played(self) -> bool:
        return self.hand_no > 1 or self.tricks_played > 0 or bool(self.trick)

    def bot_to_act(self) -> tuple[int, str] | None:
        """The seat to act and the bot kind that decides for it now, if a bot does."""
        seat = self.to_act
        if seat is None:
            return None
        player = self.players[seat]
        if player is None:
            return None
        if player.bot is not None:
            return seat, player.bot
        if player.away or player.left or self.turn_timed_out:
            return seat, "heuristic"
        return None

    @property
    def to_act(self) -> int | None:
        """The seat whose move it is, or None when no player is to act."""
        phase = self.phase
        if phase == "playing":
            return (self.leader + len(self.trick)) & 3
        if phase == "begging":
            return next_seat(self.dealer)
        if phase == "dealer_choice":
            return self.dealer
        return None
