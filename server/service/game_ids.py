"""Game ids: random ones, and ones derived from a name so that every instance and every retry
arrives at the same id (a creation's key, a game's rematch)."""

from __future__ import annotations

import hashlib
import secrets

from server.store.keys import swept_slot

__all__ = ["game_id_for_key", "new_game_id", "rematch_id_of"]


def new_game_id() -> str:
    """64 random bits, in hex, whose hash slot is one a cluster's sweeper reads each pass."""
    while True:
        game_id = secrets.token_hex(8)
        if swept_slot(game_id):
            return game_id


def game_id_for_key(idempotency_key: str) -> str:
    """A retried creation with the same key names the same game, so it cannot create two."""
    return _derived_id(f"create:{idempotency_key}")


def rematch_id_of(game_id: str) -> str:
    """The id of ``game_id``'s rematch, the same on every instance and retry. No client's
    creation can name it: their ids are derived under ``create:``, this one under
    ``rematch-of:``, so nobody can open (or block) a game's rematch before its people do."""
    return _derived_id(f"rematch-of:{game_id}")


def _derived_id(name: str) -> str:
    """The first of ``name``'s hashes whose slot a cluster's sweeper reads (64 tries on
    average)."""
    n = 0
    while True:
        digest = hashlib.sha256(f"{name}:{n}".encode()).hexdigest()[:16]
        if swept_slot(digest):
            return digest
        n += 1
