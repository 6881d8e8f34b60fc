"""Hidden information: what one viewer may see of the state and of each event.

A seat sees its own hand, every played or turned-up card, and how many cards the others
hold; a spectator sees no hand. Nobody sees another hand, the stock, or the seed before the
end. Events are redacted as well as the snapshot, because a game server's log is where cards
classically leak. Once a game is over its full log is public (the service serves it as is).
"""

from __future__ import annotations

from functools import lru_cache

import msgspec

from domain import cards as C
from domain.commands import PlayerCommand, SeatCommand
from domain.events import Dealt, Event, PackRun
from domain.legal import legal_moves, seat_actions
from domain.rules import Rules
from domain.state import EndReason, Phase, Player, State
from domain.wire import BotLevel, CardCode, Hex64, SeedHex, SuitLetter

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
    """The seat, 0..3."""
    team: int
    """The seat's team: 0 (seats 0 and 2) or 1 (seats 1 and 3)."""
    name: str | None
    """None while the seat is open."""
    bot: BotLevel | None
    """The bot kind playing the seat, or null for a person (or an open seat)."""
    cards_held: int
    """How many cards the seat holds now."""
    away: bool = False
    """The person is away: the bot plays this seat at once until they come back."""
    left: bool = False
    """The person left: the bot plays this seat to the end (a new person may take it over)."""
    takeover_at: int | None = None
    """From when a new person may take this seat over (ms since the epoch): 0 once its person
    left, a grace period after they went away (they may come back meanwhile); null while a
    person plays it, for a bot and for an open seat."""
    player: str | None = None
    """The public id of the person's player identity (their profile); null for an anonymous
    person, a bot and an open seat."""


class PlayedCard(msgspec.Struct, frozen=True):
    seat: int
    """The seat that played it."""
    card: CardCode
    """The card."""


class View(msgspec.Struct, frozen=True):
    """One viewer's picture of the game: everything public plus that seat's own hand."""

    version: int
    """The number of events this view reflects (the stream version): also the ETag's."""
    phase: Phase
    """seating (waiting for players), dealing (a deal is due: never seen for long), begging (the
    dealer's right stands or begs), dealer_choice (the dealer gives one or runs the pack),
    playing, ended; ``new`` only before the game's first event (no answer shows it)."""
    rules: Rules
    viewer: Viewer
    """The seat this view is for, or null for a spectator."""
    seats: tuple[SeatView, ...]
    """The four seats, in seat order."""
    dealer: int
    """The seat dealing this hand."""
    hand_number: int
    """The hand, from 1 (0 before the first deal)."""
    deal_number: int
    """The deal within the hand, from 1 (above 1 after an exhausted pack was redealt)."""
    to_act: int | None
    """The seat whose decision is awaited, or null (seating, dealing, the end)."""
    trump: SuitLetter | None
    """The trump suit's letter (C, D, H, S) once it is set; null before: while the dealer's
    right stands or begs and while the dealer chooses, the proposed trump is the suit of the
    first kick (``kicks[0]``)."""
    kicks: tuple[CardCode, ...]
    """Cards turned up this hand, first kick first."""
    scores: tuple[int, int]
    """Both teams' scores, team 0 first."""
    trick: tuple[PlayedCard, ...]
    """The trick in play, in play order from its leader (empty between tricks)."""
    last_trick: tuple[PlayedCard, ...]
    """The last complete trick of this hand, in play order from its leader (empty before the
    first); its winner leads the trick in play."""
    tricks_played: int
    """Complete tricks of this hand so far."""
    game_counts: tuple[int, int]
    """Game count each team has captured so far this hand (captured cards are public)."""
    hand: tuple[CardCode, ...] | None
    """The viewer's own cards, highest suit last; None for a spectator."""
    legal_actions: tuple[PlayerCommand, ...]
    """Exactly the moves the viewer may make now (empty when it is not their turn, and for a
    spectator); each can be sent back as a command as it is."""
    winner: int | None
    """The winning team once the game is won (null otherwise, and after an abort)."""
    seed_commitment: Hex64
    """SHA-256 (hex) of the game's secret seed."""
    seed: SeedHex | None
    """The seed, once the game is over (null before)."""
    deadline: int | None
    """When the seat to act times out, in ms since the epoch (draw a countdown from it); None
    when nobody is on the clock (no clock, a bot to act, or no decision due)."""
    seat_actions: tuple[SeatCommand, ...]
    """What the viewer's person may do about their seat or the table now (step away, come
    back, leave, resign, abort); empty for a spectator."""
    end_reason: EndReason | None
    """Why the game ended: ``target``, ``resigned``, ``aborted``, ``expired`` or ``idle``."""
    rematch: str | None
    """The rematch table's game id, once someone asked for one."""
    rematch_of: str | None
    """The game this table is a rematch of."""
    expires_at: int | None
    """When the table is closed if it is still waiting for players then (ms since the
    epoch); once its four seats are taken it no longer applies. Null: it never expires."""
    reserved: tuple[int, ...]
    """Seats kept for the people of ``rematch_of`` until ``reserved_until``."""
    reserved_until: int | None
    """Milliseconds since the epoch until which the reserved seats are kept, or null."""
    paused: bool = False
    """The game waits for its people: every person at the table is away or gone, so no
    timeout fires and no bot plays until one comes back or a newcomer takes a seat over (or
    the table is closed as idle: ``idle_at``)."""
    idle_at: int | None = None
    """When the table will be closed as idle if nobody plays (ms since the epoch): while it is
    paused, or waits with no clock on a person; null otherwise."""
    rated: bool = False
    """A rated table (made by matchmaking): its result moves its players' ratings, and it
    gives no hints."""
    stand_in: BotLevel = "heuristic"
    """The bot level that plays a person's seat while they are away, after they leave, or
    when their clock runs out (the table's choice at creation)."""


@lru_cache(maxsize=8192)
def played_cards(leader: int, trick: tuple[int, ...]) -> tuple[PlayedCard, ...]:
    """A trick's cards (numbers, in play order from ``leader``) as views show them."""
    # Cached: the same trick is shown to every viewer and again at each following step.
    return tuple(PlayedCard((leader + i) & 3, C.CODES[c]) for i, c in enumerate(trick))


@lru_cache(maxsize=1024)
def _seats(
    players: tuple[Player | None, ...], held: tuple[int, int, int, int], grace_ms: int
) -> tuple[SeatView, ...]:
    return tuple(
        SeatView(
            seat,
            seat & 1,
            None if player is None else player.name,
            None if player is None else player.bot,
            held[seat],
            player is not None and player.away,
            player is not None and player.left,
            None if player is None else player.takeover_at(grace_ms),
            None if player is None else player.player,
        )
        for seat, player in enumerate(players)
    )


def view(state: State, viewer: Viewer) -> View:
    """What ``viewer`` may see of ``state``."""
    hands = state.hands
    won = state.won
    trump = state.trump
    # Positional arguments, in field order: this runs for every bot move of every game.
    return View(
        state.version,
        state.phase,
        state.rules,
        viewer,
        _seats(
            state.players,
            (
                hands[0].bit_count(),
                hands[1].bit_count(),
                hands[2].bit_count(),
                hands[3].bit_count(),
            ),
            state.takeover_grace_ms,
        ),
        state.dealer,
        state.hand_no,
        state.deal_no,
        state.to_act,
        None if trump is None else C.SUITS[trump],
        tuple([C.CODES[c] for c in state.kicks]),
        state.scores,
        played_cards(state.leader, state.trick),
        played_cards(state.last_trick_leader, state.last_trick),
        state.tricks_played,
        (C.game_count(won[0]), C.game_count(won[1])),
        None if viewer is None else C.codes_in(hands[viewer]),
        () if viewer is None else legal_moves(state, viewer),
        state.winner,
        state.seed_commitment,
        state.seed,
        state.deadline,
        () if viewer is None else tuple(seat_actions(state, viewer)),
        state.end_reason,
        state.rematch,
        state.rematch_of,
        state.expires_at,
        state.reserved,
        state.reserved_until,
        state.paused,
        state.idle_expires_at,
        state.rated,
        state.stand_in,
    )
