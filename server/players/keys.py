"""Player keys: the secret that proves a player identity, like a seat token but for a person
across games. A key reads ``<player id>.player.<secret>`` (the id is public: profiles show
it); the secret is 256 random bits and only the key's SHA-256 is stored. The key is also the
recovery code: importing it on another device is signing in there."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

PLAYER = "player"
_PLAYER_ID = re.compile(r"p[0-9a-f]{16}")


def new_player_id() -> str:
    return f"p{secrets.token_hex(8)}"


def new_player_key(player_id: str) -> str:
    return f"{player_id}.{PLAYER}.{secrets.token_urlsafe(32)}"


def player_id_for_key(idempotency_key: str) -> str:
    """The identity a creation with this ``Idempotency-Key`` makes: a retry names the same one,
    so it cannot make two."""
    return "p" + hashlib.sha256(f"player:{idempotency_key}".encode()).hexdigest()[:16]


def derived_player_key(player_id: str, secret: str, idempotency_key: str) -> str:
    """The key of an identity made with an ``Idempotency-Key``: the same key again for a
    retry, never stored. ``secret`` is the identity's own (kept in Redis, never revealed):
    without it the request's key alone gives nothing."""
    digest = hmac.digest(bytes.fromhex(secret), f"player:{idempotency_key}".encode(), "sha256")
    return f"{player_id}.{PLAYER}.{base64.urlsafe_b64encode(digest).rstrip(b'=').decode()}"


def is_player_id(text: str) -> bool:
    return _PLAYER_ID.fullmatch(text) is not None


def player_of(key: str) -> str | None:
    """The player a well-formed key names (not yet proof that it is genuine); None for
    anything else, seat and creator tokens included."""
    parts = key.split(".")
    if len(parts) != 3 or parts[1] != PLAYER or not parts[2] or not is_player_id(parts[0]):
        return None
    return parts[0]
