"""Seat tokens: the secret that lets a client act for one seat of one game; and the creator
token, which lets a table's creator seat bots in it and close it before its first card.

A token reads ``<game>.<seat>.<secret>`` (``<game>.creator.<secret>`` for the creator): it
names what it is for, so a token used on the wrong game or seat is told apart (403) from a
forged or mistyped one (401). The secret part is 256 random bits; only its SHA-256 is stored,
outside the event log, and comparisons are constant-time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from typing import NamedTuple

CREATOR = "creator"
"""The holder a creator token names in place of a seat (and its field among the seat hashes)."""
INVITE = "invite"
"""What a private table's invitation names in place of a seat (``<game>.invite.<secret>``);
its hash is kept as the game's ``invite`` secret."""


class TokenClaim(NamedTuple):
    game_id: str
    seat: int


def new_token(game_id: str, seat: int | str) -> str:
    """A fresh token for ``seat`` (0..3, or :data:`CREATOR`)."""
    return f"{game_id}.{seat}.{secrets.token_urlsafe(32)}"


def derived_token(game_id: str, seat: int | str, key: str, idempotency_key: str) -> str:
    """The token of a seating (or a creation) retried with the same ``Idempotency-Key``: the
    same token again, never stored. ``key`` is the game's own secret (never revealed): without
    it a key alone gives nothing, and another client's key gives another token."""
    secret = hmac.digest(bytes.fromhex(key), f"seat:{seat}:{idempotency_key}".encode(), "sha256")
    return f"{game_id}.{seat}.{base64.urlsafe_b64encode(secret).rstrip(b'=').decode()}"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a game id may look like (as in the API's paths): anything else is no seat token, and
must not reach the store, which refuses ids that would break its key hash tags."""


def claim_of(token: str) -> TokenClaim | None:
    """What a well-formed token says it is for (not yet proof that it is genuine)."""
    parts = token.split(".")
    if len(parts) != 3 or parts[1] not in ("0", "1", "2", "3") or not parts[2]:
        return None
    if not _GAME_ID.fullmatch(parts[0]):
        return None
    return TokenClaim(parts[0], int(parts[1]))


def creator_game_of(token: str) -> str | None:
    """The game a well-formed creator token names (not yet proof that it is genuine)."""
    parts = token.split(".")
    if len(parts) != 3 or parts[1] != CREATOR or not parts[2]:
        return None
    return parts[0] if _GAME_ID.fullmatch(parts[0]) else None


def matches(token: str, stored_hash: str | None) -> bool:
    if stored_hash is None:
        return False
    return hmac.compare_digest(token_hash(token), stored_hash)
