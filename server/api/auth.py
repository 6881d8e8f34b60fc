"""Who is asking: a seat (proved by its token) or a spectator (no token)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar import Request

from domain import State
from server.errors import Forbidden, Unauthorized
from server.store import RedisEventStore
from server.tokens import CREATOR, TokenClaim, claim_of, creator_game_of, matches


def bearer_of(request: Request[Any, Any, Any], what: str = "seat token") -> str | None:
    """The credential in ``Authorization: Bearer`` (None without the header; 401 for another
    scheme or an empty one)."""
    return bearer_in(request.headers.get("authorization"), what)


def bearer_in(header: str | None, what: str = "seat token") -> str | None:
    """``bearer_of`` for the ``Authorization`` header's value (None: no header)."""
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise Unauthorized(f"use 'Authorization: Bearer <{what}>'")
    return value.strip()


def token_of(request: Request[Any, Any, Any]) -> str | None:
    """The seat token from ``Authorization: Bearer`` or, on reads only, for browsers'
    EventSource which cannot send headers, the ``token`` query parameter."""
    bearer = bearer_of(request)
    if bearer is not None:
        return bearer
    if request.method != "GET":
        return None  # a write credential never travels in a URL (logs, proxies, history)
    token = request.query_params.get("token")
    if token == "":
        # Not a spectator's read by mistake: a client that meant a seat hears that it sent none.
        raise Unauthorized(
            "the token parameter is empty: send the seat token, or leave it out to watch"
        )
    return token


class SeatAuth:
    """Checks seat tokens against their stored hashes.

    Nothing is remembered between requests: a seat changes hands (a person leaves and another
    takes over; a rematch), and Redis may be restored to an older backup, so a token that was
    good a minute ago may not be now. Reads check the stored hash (one HGET); commands are
    verified before they are decided, and again inside the append itself (see
    ``GameService.play``), so a token replaced in between still stores nothing.
    """

    def __init__(self, store: RedisEventStore) -> None:
        self._store = store

    async def seat_of(self, game_id: str, token: str | None, *, required: bool) -> int | None:
        """The seat ``token`` proves for ``game_id``; None for a spectator (no token and not
        ``required``). 401 for a missing or false token, 403 for another game's token."""
        if token is None:
            if required:
                raise Unauthorized("this action needs the seat's token")
            return None
        claim = self.claim(game_id, token)
        await self.verify(claim, token)
        return claim.seat

    def claim(self, game_id: str, token: str | None) -> TokenClaim:
        """What ``token`` says it is for, checked for form and game only (no Redis): 401 if
        it is no seat token, 403 if it names another game."""
        if token is None:
            raise Unauthorized("this action needs the seat's token")
        claim = claim_of(token)
        if claim is None:
            raise Unauthorized("not a seat token")
        if claim.game_id != game_id:
            raise Forbidden("this token is for another game")
        return claim

    async def claim_seat(self, game_id: str, seat: int, token: str | None) -> TokenClaim:
        """What ``token`` says it is for, which must be ``seat`` (checked without Redis, the
        token itself being checked where its command is stored). A token for another seat
        is verified before it hears so: a forged one gets the 401 every forgery gets, never
        a 403 that repeats the seat it names."""
        claim = self.claim(game_id, token)
        if claim.seat != seat:
            assert token is not None
            await self.verify(claim, token)
            raise Forbidden(f"this token is for seat {claim.seat}, not seat {seat}")
        return claim

    async def require_host(
        self, game_id: str, token: str | None, state_of: Callable[[], Awaitable[State]]
    ) -> None:
        """401/403 unless ``token`` is the table's creator token or the seat token of a person
        seated at it now: a stranger may not fill someone else's table with bots."""
        if token is None:
            raise Unauthorized("seating a bot needs the table creator's token or a seat token")
        creator_of = creator_game_of(token)
        if creator_of is None:
            seat = await self.seat_of(game_id, token, required=True)
            assert seat is not None
            player = (await state_of()).players[seat]
            if player is None or not player.person_present:
                raise Forbidden("you left this table: seating bots is for the people at it")
            return
        await self.verify_creator(game_id, token)

    async def verify_creator(self, game_id: str, token: str) -> None:
        """401 unless ``token`` is ``game_id``'s creator token (403: another game's)."""
        creator_of = creator_game_of(token)
        if creator_of is None:
            raise Unauthorized("this needs the table's creator token (createGame's answer)")
        if creator_of != game_id:
            raise Forbidden("this token is for another game")
        if not matches(token, await self._store.seat_token_hash(game_id, CREATOR)):
            raise Unauthorized("unknown creator token")

    async def holds(self, game_id: str, token: str) -> bool:
        """Whether ``token`` is still the one stored for the seat it claims (read now, from
        Redis: a re-issue on another instance counts)."""
        claim = claim_of(token)
        if claim is None or claim.game_id != game_id:
            return False
        return matches(token, await self._store.seat_token_hash(game_id, claim.seat))

    async def verify(self, claim: TokenClaim, token: str) -> None:
        """401 unless ``token`` is the one stored for the seat it claims, now."""
        stored = await self._store.seat_token_hash(claim.game_id, claim.seat)
        if not matches(token, stored):
            raise Unauthorized("unknown seat token")
