"""The rule options a game is created with (see docs/RULES.md); recorded in the first event."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

DEFAULT_TURN_SECONDS = 30
"""The clock a table gets when its creator names none: half a minute per decision, about the
pace of Board Game Arena's real-time "normal speed" for a trick-taking game."""

TurnSeconds = Annotated[int, msgspec.Meta(ge=1, le=86_400)]


class Rules(msgspec.Struct, frozen=True):
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
    turn_seconds: TurnSeconds | UnsetType | None = UNSET
    """Seconds a person has for each decision (stand or beg, give one or run the pack, each
    card); null for no clock. Left out when a table is created, it is 30 seconds.
    Logs written before the clock existed leave it out too, and mean no clock."""

    def __post_init__(self) -> None:
        # Decoding checks the Meta constraints; this also holds for Rules built in code.
        if not 1 <= self.target <= 99:
            raise ValueError(f"target must be 1..99, not {self.target}")
        seconds = self.turn_seconds
        if isinstance(seconds, int) and not 1 <= seconds <= 86_400:
            raise ValueError(f"turn_seconds must be 1..86400 or null, not {seconds}")

    @property
    def clock_ms(self) -> int | None:
        """Milliseconds a person has per decision; None when the table has no clock."""
        seconds = self.turn_seconds
        return seconds * 1000 if isinstance(seconds, int) else None

    def with_default_clock(self) -> Rules:
        """These rules as a new table records them: an unnamed clock becomes the default."""
        if self.turn_seconds is UNSET:
            return msgspec.structs.replace(self, turn_seconds=DEFAULT_TURN_SECONDS)
        return self
