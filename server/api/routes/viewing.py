"""Whom a request shows the game to, and stored events as that viewer may see them."""

from __future__ import annotations

from collections.abc import Sequence

from domain import (
    State,
)
from server.codec import decode_event, redact_bytes
from server.replay.format import EventEnvelope


def seen_by(state: State, seat: int | None) -> int | None:
    """Whom a verified seat token shows the game to: its seat, or the spectator's view once
    its person has left the seat (the bot's hand is not theirs to see)."""
    if seat is None:
        return None
    player = state.players[seat]
    return seat if player is not None and player.person_present else None


def envelopes(
    first_version: int, datas: Sequence[bytes], viewer: int | None
) -> tuple[EventEnvelope, ...]:
    """Stored events as ``viewer`` may see them, numbered from ``first_version``."""
    return tuple(
        EventEnvelope(first_version + i, decode_event(redact_bytes(data, viewer)))
        for i, data in enumerate(datas)
    )
