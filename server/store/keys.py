"""Redis key names of a game.

Every key of a game carries the game id as a cluster hash tag (``{...}``), so that all of them
live in the same slot of a Redis Cluster and the append script may touch them together.
"""

from __future__ import annotations

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
    """Hash: command id -> ``"<last version>:<first version>"`` of the batch it appended."""
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


def due_key(game_id: str, *, cluster: bool) -> str:
    """The due-index that holds ``game_id``'s entry.

    On one server, one sorted set for all games. On a cluster, one per hash slot, named with a
    hash tag that lands in the game's own slot, so the append script (whose keys must share a
    slot) can update it atomically with the events.
    """
    if not cluster:
        return DUE_KEY
    return f"{PREFIX}:{{{slot_tag(key_slot(game_id.encode()))}}}:due"


def slot_tag(slot: int) -> str:
    """A short string whose hash slot is ``slot`` (found once, then remembered)."""
    return _slot_tags()[slot]


@cache
def _slot_tags() -> tuple[str, ...]:
    # About 180,000 CRC16s cover all 16,384 slots: done once per process, on a cluster only.
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


def cluster_due_keys() -> tuple[str, ...]:
    """Every per-slot due-index of a cluster (what a cluster sweeper reads)."""
    return tuple(f"{PREFIX}:{{{tag}}}:due" for tag in _slot_tags())
