"""Commands: what someone asks the game to do. ``decide`` turns each into events or refuses it.

Player commands name the seat they act for (the service fills it in from the seat token).
System commands (``CreateGame``, ``Join``, ``Deal``, ``RevealSeed``) come from the service,
which is also where randomness lives: it hands ``Deal`` the shuffled deck as plain data.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.rules import Rules

SeatNumber = Annotated[int, msgspec.Meta(ge=0, le=3)]


class _Command(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


class CreateGame(_Command, frozen=True, tag="create_game"):
    rules: Rules
    seed_commitment: str
    """SHA-256 (hex) of the secret seed every deck of the game is derived from."""
    first_dealer: SeatNumber


class Join(_Command, frozen=True, tag="join"):
    seat: SeatNumber
    name: str
    bot: str | None = None
    """The bot kind driving this seat, or None for a person."""


class Deal(_Command, frozen=True, tag="deal"):
    deck: tuple[str, ...]
    """All 52 card codes in the order they come off the pack."""


class Stand(_Command, frozen=True, tag="stand"):
    seat: SeatNumber


class Beg(_Command, frozen=True, tag="beg"):
    seat: SeatNumber


class GiveOne(_Command, frozen=True, tag="give_one"):
    seat: SeatNumber


class RunPack(_Command, frozen=True, tag="run_pack"):
    seat: SeatNumber


class Play(_Command, frozen=True, tag="play"):
    seat: SeatNumber
    card: str


class RevealSeed(_Command, frozen=True, tag="reveal_seed"):
    seed: str


Command = CreateGame | Join | Deal | Stand | Beg | GiveOne | RunPack | Play | RevealSeed
PlayerCommand = Stand | Beg | GiveOne | RunPack | Play
