"""Player keys: the secret that proves a player identity, like a seat token but for a person
across games. A key reads ``<player id>.player.<secret>`` (the id is public: profiles show
it); the secret is 256 random bits and only the key's SHA-256 is stored. The key is also the
recovery code: importing it on another device is signing in there."""

from __future__ import annotations

import re
import secrets

PLAYER = "player"
_PLAYER_ID = re.compile(r"p[0-9a-f]{16}")


def new_player_id() -> str:
    return f"p{secrets.token_hex(8)}"


def new_player_key(player_id: str) -> str:
    return f"{player_id}.{PLAYER}.{secrets.token_urlsafe(32)}"


def is_player_id(text: str) -> bool:
    return _PLAYER_ID.fullmatch(text) is not None


def player_of(key: str) -> str | None:
    """The player a well-formed key names (not yet proof that it is genuine); None for
    anything else, seat and creator tokens included."""
    parts = key.split(".")
    if len(parts) != 3 or parts[1] != PLAYER or not parts[2] or not is_player_id(parts[0]):
        return None
    return parts[0]
