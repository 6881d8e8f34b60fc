"""What the service's writes answer: the versions a command stored, a seat's token."""

from __future__ import annotations

import msgspec

__all__ = ["CommandResult", "SeatGrant"]


class CommandResult(msgspec.Struct, frozen=True):
    """What one accepted command stored: versions ``first_version..version``."""

    game_id: str
    first_version: int
    version: int
    duplicate: bool = False
    stored: tuple[bytes, ...] = ()
    """The stored events, when this call stored them (empty for a duplicate)."""
    creator_token: str | None = None
    """A table creation's creator token (shown this once: only its hash is kept)."""
    invite: str | None = None
    """A private table's invitation (shown to its creator: only its hash is kept)."""


class SeatGrant(msgspec.Struct, frozen=True):
    game_id: str
    seat: int
    token: str
    version: int
    duplicate: bool = False
    """A retried seating (same Idempotency-Key): the same token as the first answer."""
