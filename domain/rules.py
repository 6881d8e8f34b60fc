"""The rule options a game is created with (see docs/RULES.md); recorded in the first event."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec


class Rules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Options of one game. The defaults are the Trinidad game."""

    target: Annotated[int, msgspec.Meta(ge=1, le=99)] = 14
    """Points that win the game; the first team to reach it wins at that moment."""
    tobago_kick: bool = False
    """Tobago variant: a turned-up 2 scores 2 for the dealer's team instead of a 6."""
    give_one_at_13: Literal["allowed", "forbidden"] = "allowed"
    """``forbidden``: when the begging team has target - 1 points the dealer must run the pack."""
    undertrump: Literal["allowed", "forbidden"] = "allowed"
    """``forbidden``: after a trump on a plain-suit lead, a lower trump may not follow unless
    the player holds nothing else he may legally play."""

    def __post_init__(self) -> None:
        # Decoding checks the Meta constraints; this also holds for Rules built in code.
        if not 1 <= self.target <= 99:
            raise ValueError(f"target must be 1..99, not {self.target}")
