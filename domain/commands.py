"""Commands: what someone asks the game to do. ``decide`` turns each into events or refuses it.

Player commands name the seat they act for (the service fills it in from the seat token).
System commands (``CreateGame``, ``Join``, ``Deal``, ``RevealSeed``) come from the service,
which is also where randomness lives: it hands ``Deal`` the shuffled deck as plain data.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.rules import Rules
from domain.wire import BotLevel, CardCode, Hex64

SeatNumber = Annotated[int, msgspec.Meta(ge=0, le=3)]


class _Command(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


class CreateGame(_Command, frozen=True, tag="create_game"):
    rules: Rules
    seed_commitment: Hex64
    """SHA-256 (hex) of the secret seed every deck of the game is derived from."""
    first_dealer: SeatNumber
    expires_at: int | None = None
    rematch_of: str | None = None
    reserved: tuple[int, ...] = ()
    reserved_until: int | None = None
    takeover_grace_ms: int = 0
    pause_when_absent: bool = False
    away_pace_ms: int = 0
    idle_expiry_ms: int | None = None
    stand_in: BotLevel = "heuristic"
    rated: bool = False
    private: bool = False


class Join(_Command, frozen=True, tag="join"):
    seat: SeatNumber
    name: str
    bot: str | None = None
    """The bot kind driving this seat, or None for a person."""
    claim: bool = False
    """The service proved that this person held the seat in the game this one is a rematch
    of, so a seat reserved for them may be taken."""
    player: str | None = None
    """The player identity (its public id) the person joined with, if any."""


class Deal(_Command, frozen=True, tag="deal"):
    deck: tuple[str, ...]
    """All 52 card codes in the order they come off the pack."""


class Stand(_Command, frozen=True, tag="stand"):
    seat: SeatNumber
    """The seat acting."""


class Beg(_Command, frozen=True, tag="beg"):
    seat: SeatNumber
    """The seat acting."""


class GiveOne(_Command, frozen=True, tag="give_one"):
    seat: SeatNumber
    """The seat acting."""


class RunPack(_Command, frozen=True, tag="run_pack"):
    seat: SeatNumber
    """The seat acting."""


class Play(_Command, frozen=True, tag="play"):
    seat: SeatNumber
    """The seat acting."""
    card: CardCode
    """The card to play (a code such as TC or AS)."""


class RevealSeed(_Command, frozen=True, tag="reveal_seed"):
    seed: str


# --- the table lifecycle: what a seated person may do besides playing -----------------------


class StepAway(_Command, frozen=True, tag="step_away"):
    """The person steps away: the bot plays the seat at once until they come back."""

    seat: SeatNumber
    """The seat acting."""


class ComeBack(_Command, frozen=True, tag="come_back"):
    seat: SeatNumber
    """The seat acting."""


class Leave(_Command, frozen=True, tag="leave"):
    """Before the start the seat opens again; after, the bot plays it to the end."""

    seat: SeatNumber
    """The seat acting."""


class Resign(_Command, frozen=True, tag="resign"):
    """The seat's team gives up: the other team wins."""

    seat: SeatNumber
    """The seat acting."""


class Abort(_Command, frozen=True, tag="abort"):
    """Close the table: only before the first card of the game is played."""

    seat: SeatNumber
    """The seat acting."""


# --- the table lifecycle: what the service does when time passes ----------------------------


class TimeOut(_Command, frozen=True, tag="time_out"):
    """``seat`` let its deadline pass; accepted only if it really did at the command's time."""

    seat: SeatNumber


class Expire(_Command, frozen=True, tag="expire"):
    """Close a table still waiting for players after its ``expires_at``."""


class AbortTable(_Command, frozen=True, tag="abort_table"):
    """The table's creator closes it, before the first card of the game: the service has
    checked the creator's token (the creator need not sit at the table)."""


class NoteRematch(_Command, frozen=True, tag="note_rematch"):
    """Record, in a finished game, the id of its rematch table."""

    game_id: str


PlayerCommand = Stand | Beg | GiveOne | RunPack | Play
"""A move of the game: what ``legal_actions`` lists."""
SeatCommand = StepAway | ComeBack | Leave | Resign | Abort
"""What a seated person may do about their seat or the table, besides moves."""
Command = (
    CreateGame
    | Join
    | Deal
    | Stand
    | Beg
    | GiveOne
    | RunPack
    | Play
    | RevealSeed
    | StepAway
    | ComeBack
    | Leave
    | Resign
    | Abort
    | AbortTable
    | TimeOut
    | Expire
    | NoteRematch
)
