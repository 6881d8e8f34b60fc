"""The types of cards, suits, bot levels and hashes as they travel: every field that holds one
says so with the same annotation, so that msgspec checks it as it decodes and the OpenAPI
document shows one enum (or pattern) for it wherever it appears, in events, views and bodies."""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec

from domain.cards import CODES, SUITS

__all__ = [
    "BOT_LEVELS",
    "SUIT_LETTERS",
    "BotLevel",
    "CardCode",
    "FourHands",
    "Hex64",
    "SeedHex",
    "SuitLetter",
]

CardCode = Literal[CODES]  # type: ignore[valid-type]
"""Every card's short code, e.g. ``"TC"`` (ten of clubs) or ``"AS"``: an enum in the spec."""

SUIT_LETTERS: Final[tuple[str, ...]] = tuple(SUITS)
SuitLetter = Literal[SUIT_LETTERS]  # type: ignore[valid-type]
"""A suit's letter: ``C``, ``D``, ``H`` or ``S``."""

BOT_LEVELS: Final[tuple[str, ...]] = ("random", "heuristic", "strong", "master")
"""The bot levels, weakest first (``domain.bots.BOTS``; a test holds the two together)."""
BotLevel = Literal[BOT_LEVELS]  # type: ignore[valid-type]
"""A bot level: an enum in the spec (for type checkers, any string: levels are looked up)."""

Hex64 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
"""32 bytes as 64 lower-case hex digits, as a SHA-256 hex digest is written: the commitment
to a seed (compared as text)."""

SeedHex = Annotated[str, msgspec.Meta(pattern="^[0-9a-fA-F]{64}$")]
"""A seed: 32 bytes as 64 hex digits. The bytes are what count (HMAC key, SHA-256 input), so
either case names the same seed; the server writes lower case."""

FourHands = Annotated[
    tuple[tuple[CardCode, ...] | None, ...], msgspec.Meta(min_length=4, max_length=4)
]
"""One entry per seat, indexed by seat: the seat's cards, or null where the viewer may not
see them."""
