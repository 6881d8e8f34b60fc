"""Who is asking: a seat (proved by its token) or a spectator (no token)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from litestar import Request

from server.errors import Forbidden, Unauthorized
from server.store import RedisEventStore
from server.tokens import claim_of, matches, token_hash


def token_of(request: Request[Any, Any, Any]) -> str | None:
    """The seat token from ``Authorization: Bearer`` or, on reads only, for browsers'
    EventSource which cannot send headers, the ``token`` query parameter."""
    header = request.headers.get("authorization")
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise Unauthorized("use 'Authorization: Bearer <seat token>'")
        return value.strip()
    if request.method != "GET":
        return None  # a write credential never travels in a URL (logs, proxies, history)
    token = request.query_params.get("token")
    return token or None


class SeatAuth:
    """Checks seat tokens against their stored hashes.

    Tokens cannot be revoked, so a verified one is remembered (by its hash, never in clear)
    and later requests skip the Redis round trip.
    """

    def __init__(self, store: RedisEventStore, memory: int = 50_000) -> None:
        self._store = store
        self._verified: OrderedDict[str, tuple[str, int]] = OrderedDict()
        self._memory = memory

    async def seat_of(self, game_id: str, token: str | None, *, required: bool) -> int | None:
        """The seat ``token`` proves for ``game_id``; None for a spectator (no token and not
        ``required``). 401 for a missing or false token, 403 for another game's token."""
        if token is None:
            if required:
                raise Unauthorized("this action needs the seat's token")
            return None
        claim = await self._verify(token)
        if claim[0] != game_id:
            raise Forbidden("this token is for another game")
        return claim[1]

    async def require_seat(self, game_id: str, seat: int, token: str | None) -> None:
        actual = await self.seat_of(game_id, token, required=True)
        if actual != seat:
            raise Forbidden(f"this token is for seat {actual}, not seat {seat}")

    async def _verify(self, token: str) -> tuple[str, int]:
        digest = token_hash(token)
        known = self._verified.get(digest)
        if known is not None:
            return known
        claim = claim_of(token)
        if claim is None:
            raise Unauthorized("not a seat token")
        stored = await self._store.seat_token_hash(claim.game_id, claim.seat)
        if not matches(token, stored):
            raise Unauthorized("unknown seat token")
        self._verified[digest] = (claim.game_id, claim.seat)
        while len(self._verified) > self._memory:
            self._verified.popitem(last=False)
        return claim.game_id, claim.seat
