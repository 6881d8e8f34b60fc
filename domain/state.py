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


class Player(msgspec.Struct, frozen=True):
    name: str
    bot: str | None = None


def team_of(seat: int) -> int:
    """Partners sit opposite: team 0 is seats 0 and 2, team 1 is seats 1 and 3."""
    return seat & 1


def next_seat(seat: int) -> int:
    """Seats are numbered counterclockwise, so the next player (the right-hand one) is +1."""
    return (seat + 1) & 3


class State(msgspec.Struct, frozen=True):
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
