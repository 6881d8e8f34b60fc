"""Redis key names of a game.

Every key of a game carries the game id as a cluster hash tag (``{...}``), so that all of them
live in the same slot of a Redis Cluster and the append script may touch them together.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from redis.crc import key_slot

__all__ = [
    "PREFIX",
    "bell_channel",
    "cmds_key",
    "due_key",
    "events_key",
    "seats_key",
    "secret_key",
    "validate_game_id",
]

PREFIX = "allfours"
_EVENTS_HEAD = PREFIX + ":{"


def validate_game_id(game_id: str) -> None:
    """Reject ids that would break the hash tag (braces) or are empty."""
    if not game_id or "{" in game_id or "}" in game_id:
        raise ValueError(f"invalid game id {game_id!r}: must be non-empty and brace-free")


def events_key(game_id: str) -> str:
    """The game's stream: entry id ``<version>-0``, field ``e`` = event bytes; never trimmed."""
    return f"{_EVENTS_HEAD}{game_id}}}:events"


def cmds_key(game_id: str) -> str:
    """Hash: command digest (see :func:`~server.store.entries.command_digest`; the id itself
    in records written before digests) -> ``"<last version>:<first version>:<fingerprint>"``
    of the batch it appended."""
    return f"{_EVENTS_HEAD}{game_id}}}:cmds"


def seats_key(game_id: str) -> str:
    """Hash: seat number -> hash of its secret token (never the token, never in the log)."""
    return f"{_EVENTS_HEAD}{game_id}}}:seats"


def secret_key(game_id: str, name: str = "secret") -> str:
    """String: one of the game's secrets, kept out of the log. ``secret`` is the deck seed
    (revealed when the game ends); ``token-key`` derives retried seatings' tokens (never
    revealed)."""
    return f"{_EVENTS_HEAD}{game_id}}}:{name}"


def bell_channel(game_id: str) -> str:
    """Pub/Sub channel on which, on a Redis Cluster, each append announces the new version.

    Not a key (nothing is stored); it carries the hash tag too, so that it could become a
    sharded channel (SPUBLISH, Redis 7) in the game's own slot.
    """
    return f"{_EVENTS_HEAD}{game_id}}}:bell"


DUE_KEY = PREFIX + ":due"
"""The due-index on one Redis server: game id -> when time alone next changes the game."""


DUE_SLOT_STEP = 64
"""New game ids are chosen so that their hash slot is a multiple of this (see ``swept_slot``):
a cluster then holds at most 16384 / 64 = 256 due-indexes, spread evenly over the slot range
(so over every node), which is what a sweeper reads each pass."""


def swept_slot(game_id: str) -> bool:
    """Whether ``game_id``'s due-index is one of the few a cluster sweeper reads every pass."""
    return key_slot(game_id.encode()) % DUE_SLOT_STEP == 0


def due_key(game_id: str, *, cluster: bool) -> str:
    """The due-index that holds ``game_id``'s entry.

    On one server, one sorted set for all games. On a cluster, one per hash slot, named with a
    hash tag that lands in the game's own slot, so the append script (whose keys must share a
    slot) can update it atomically with the events.
    """
    if not cluster:
        return DUE_KEY
    return _due_key_of_slot(key_slot(game_id.encode()))


def _due_key_of_slot(slot: int) -> str:
    return f"{PREFIX}:{{{_slot_tags()[slot]}}}:due"


@cache
def _slot_tags() -> tuple[str, ...]:
    """For each hash slot, a short string that hashes to it (about 180,000 CRC16s: done once
    per process, and only on a cluster)."""
    tags: list[str | None] = [None] * 16384
    missing = 16384
    n = 0
    while missing:
        tag = f"s{n}"
        slot = key_slot(tag.encode())
        if tags[slot] is None:
            tags[slot] = tag
            missing -= 1
        n += 1
    return tuple(t for t in tags if t is not None)


SWEPT_SLOTS = range(0, 16384, DUE_SLOT_STEP)
"""The slots new games are given: their due-indexes are read on every pass."""


def cluster_due_keys(slots: Iterable[int]) -> tuple[str, ...]:
    """The due-indexes of these hash slots, on a cluster."""
    return tuple(_due_key_of_slot(slot) for slot in slots)
