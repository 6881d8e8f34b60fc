"""Hidden information: what one viewer may see of the state and of each event.

A seat sees its own hand, every played or turned-up card, and how many cards the others
hold; a spectator sees no hand. Nobody sees another hand, the stock, or the seed before the
end. Events are redacted as well as the snapshot, because a game server's log is where cards
classically leak. Once a game is over its full log is public (the service serves it as is).
"""

from __future__ import annotations

import msgspec

from domain import cards as C
from domain.commands import PlayerCommand
from domain.events import Dealt, Event, PackRun
from domain.legal import legal_actions
from domain.rules import Rules
from domain.state import Phase, State

Viewer = int | None
"""A seat number 0..3, or None for a spectator."""
SPECTATOR: Viewer = None


def redact(event: Event, viewer: Viewer) -> Event:
    """``event`` as ``viewer`` may see it: other seats' cards and the stock blanked out."""
    if isinstance(event, Dealt):
        return msgspec.structs.replace(event, hands=_only(event.hands, viewer), stock=None)
    if isinstance(event, PackRun):
        return msgspec.structs.replace(event, hands=_only(event.hands, viewer))
    return event


def _only(
    hands: tuple[tuple[str, ...] | None, ...], viewer: Viewer
) -> tuple[tuple[str, ...] | None, ...]:
    return tuple(h if seat == viewer else None for seat, h in enumerate(hands))


class SeatView(msgspec.Struct, frozen=True):
    seat: int
    team: int
    name: str | None
    """None while the seat is open."""
    bot: str | None
    cards_held: int


class PlayedCard(msgspec.Struct, frozen=True):
    seat: int
    card: str


class View(msgspec.Struct, frozen=True):
    """One viewer's picture of the game: everything public plus that seat's own hand."""

    version: int
    phase: Phase
    rules: Rules
    viewer: Viewer
    seats: tuple[SeatView, ...]
    dealer: int
    hand_number: int
    deal_number: int
    to_act: int | None
    trump: str | None
    """The trump suit's letter once it is set."""
    kicks: tuple[str, ...]
    """Cards turned up this hand, first kick first."""
    scores: tuple[int, int]
    trick: tuple[PlayedCard, ...]
    last_trick: tuple[PlayedCard, ...]
    tricks_played: int
    game_counts: tuple[int, int]
    """Game count each team has captured so far this hand (captured cards are public)."""
    hand: tuple[str, ...] | None
    """The viewer's own cards, highest suit last; None for a spectator."""
    legal_actions: tuple[PlayerCommand, ...]
    winner: int | None
    seed_commitment: str
    seed: str | None


def _played(leader: int, trick: tuple[int, ...]) -> tuple[PlayedCard, ...]:
    return tuple(PlayedCard((leader + i) & 3, C.CODES[c]) for i, c in enumerate(trick))


def view(state: State, viewer: Viewer) -> View:
    """What ``viewer`` may see of ``state``."""
    seats = tuple(
        SeatView(
            seat=seat,
            team=seat & 1,
            name=None if player is None else player.name,
            bot=None if player is None else player.bot,
            cards_held=state.hands[seat].bit_count(),
        )
        for seat, player in enumerate(state.players)
    )
    own = None if viewer is None else C.codes_in(state.hands[viewer])
    return View(
        version=state.version,
        phase=state.phase,
        rules=state.rules,
        viewer=viewer,
        seats=seats,
        dealer=state.dealer,
        hand_number=state.hand_no,
        deal_number=state.deal_no,
        to_act=state.to_act,
        trump=None if state.trump is None else C.SUITS[state.trump],
        kicks=tuple(C.CODES[c] for c in state.kicks),
        scores=state.scores,
        trick=_played(state.leader, state.trick),
        last_trick=_played(state.last_trick_leader, state.last_trick),
        tricks_played=state.tricks_played,
        game_counts=(C.game_count(state.won[0]), C.game_count(state.won[1])),
        hand=own,
        legal_actions=() if viewer is None else tuple(legal_actions(state, viewer)),
        winner=state.winner,
        seed_commitment=state.seed_commitment,
        seed=state.seed,
    )
