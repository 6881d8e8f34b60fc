"""Seat and creator tokens as the service hands them out: random, or derived from the
request's ``Idempotency-Key`` with a secret of the game's (kept in Redis, never revealed), so
that a retry after a lost answer gets the same token while only its hash is ever stored."""

from __future__ import annotations

import secrets

from server.store import EventStore
from server.tokens import derived_token, new_token

__all__ = ["TokenIssuer"]


class TokenIssuer:
    def __init__(self, store: EventStore) -> None:
        self._store = store

    async def token_for(self, game_id: str, seat: int | str, idempotency_key: str | None) -> str:
        """A token for ``seat`` (0..3, or the creator) of ``game_id``."""
        if idempotency_key is None:
            return new_token(game_id, seat)
        key = await self._store.put_secret(game_id, secrets.token_hex(32), name="token-key")
        return derived_token(game_id, seat, key, idempotency_key)
