"""Redis key names of a game.

Every key of a game carries the game id as a cluster hash tag (``{...}``), so that all of them
live in the same slot of a Redis Cluster and the append script may touch them together.
"""

from __future__ import annotations

__all__ = [
    "PREFIX",
    "bell_channel",
    "cmds_key",
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


def secret_key(game_id: str) -> str:
    """String: the game's deck seed, kept out of the log until the game ends and reveals it."""
    return f"{_EVENTS_HEAD}{game_id}}}:secret"


def bell_channel(game_id: str) -> str:
    """Pub/Sub channel on which, on a Redis Cluster, each append announces the new version.

    Not a key (nothing is stored); it carries the hash tag too, so that it could become a
    sharded channel (SPUBLISH, Redis 7) in the game's own slot.
    """
    return f"{_EVENTS_HEAD}{game_id}}}:bell"
