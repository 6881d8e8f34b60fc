"""The replay format: a finished game's whole log, every hand and the stock, with its seed.

A persistent file format (archives, exports, the replay viewer, third-party verifiers): it only
grows, by new event types and fields, and says which it is (``format``, ``format_version``).
``GET /v1/games/{id}/replay`` answers with one; ``allfours archive`` writes the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import msgspec

from domain import Event
from domain.wire import Hex64, SeedHex

__all__ = ["REPLAY_FORMAT", "REPLAY_FORMAT_VERSION", "EventEnvelope", "Replay", "replay_of_log"]

REPLAY_FORMAT: Literal["allfours-replay"] = "allfours-replay"
REPLAY_FORMAT_VERSION = 1


class EventEnvelope(msgspec.Struct, frozen=True):
    version: int
    """Stream position, from 1: also the SSE event id."""
    event: Event
    """The event, redacted for the caller (see each event's schema)."""


class Replay(msgspec.Struct, frozen=True):
    """A finished game's full log: every hand, the stock and the seed (see ``verify``)."""

    format: Literal["allfours-replay"]
    """Always allfours-replay."""
    format_version: int
    """1: grows only by new event types and fields."""
    game_id: str
    """The game's id."""
    seed: SeedHex
    """The game's secret seed (hex), for verifying every deal."""
    seed_commitment: Hex64
    """SHA-256 (hex) of the seed, as committed in GameCreated."""
    events: tuple[EventEnvelope, ...]
    """Every event, unredacted: each hand and the stock."""


def replay_of_log(
    game_id: str, seed: str, seed_commitment: str, log: Iterable[tuple[int, Event]]
) -> Replay:
    """The replay of a finished game from its (version, event) pairs, in order."""
    return Replay(
        format=REPLAY_FORMAT,
        format_version=REPLAY_FORMAT_VERSION,
        game_id=game_id,
        seed=seed,
        seed_commitment=seed_commitment,
        events=tuple(EventEnvelope(version, event) for version, event in log),
    )
