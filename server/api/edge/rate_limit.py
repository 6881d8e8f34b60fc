"""A request rate limit shared by every instance: a fixed window counted in Redis.

Clients are told apart by a *verified* seat token or player key when they send one (a table
of four players behind one NAT address is four clients), by address otherwise. A token counts
as an identity only if it is the one stored for its seat (or player) right now: a made-up token
(``x.0.<random>``) would otherwise buy a fresh allowance per request. The check and the count
are one Lua script on the token's game's (or player's) own hash-tag slot (the seat hashes and
the counter share the tag), so it costs one round trip, and a token that proves nothing is
counted by address instead.

The address is the one uvicorn reports: the peer, or, only for connections from the
configured trusted proxies (``ALLFOURS_TRUSTED_PROXIES``), the rightmost untrusted hop of
``X-Forwarded-For`` (see :mod:`server.api.guard`). Only writes are limited: reads and polling
are cheap (ETag/304) and streams are long-lived and capped per address on their own.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from litestar import Request

from server.api.auth import token_of
from server.api.contract.problems import RateLimited
from server.clock import Clock, system_clock
from server.errors import ServiceError, Unauthorized
from server.players.accounts import player_key
from server.players.keys import player_of
from server.service import CommandResult
from server.store import REDIS_ERRORS, RedisEventStore
from server.store.keys import seats_key
from server.store.redis_store import store_error
from server.tokens import claim_of, token_hash

_Made = TypeVar("_Made")

_log = logging.getLogger(__name__)

_COUNT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""

# Gives a count back, but never to a counter that has expired meanwhile (DECR would
# recreate it at -1, with no lifetime).
_REFUND = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECR', KEYS[1]) end
return 0
"""

_COUNT_IF_SEATED = """
-- KEYS[1] the token's game's seat-token hash (or the key's player hash), KEYS[2] the counter
-- (same hash tag); ARGV[1] seat (or 'key'), ARGV[2] the token's hash, ARGV[3] the counter's
-- lifetime (s)
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return -1 end
local n = redis.call('INCR', KEYS[2])
if n == 1 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
return n
"""


class RateLimiter:
    """At most ``limit`` writes per client per window of ``window_s`` seconds (0: no limit)."""

    def __init__(
        self,
        store: RedisEventStore,
        limit: int,
        window_s: int,
        *,
        tables_per_hour: int = 0,
        players_per_hour: int = 0,
        clock: Clock = system_clock,
    ) -> None:
        self._clock = clock
        self._limit = limit
        self._window = window_s
        self._tables_per_hour = tables_per_hour
        self._players_per_hour = players_per_hour
        # On the store's own connection: a write's count costs about what a read does.
        self._count = store.script(_COUNT)
        self._count_if_seated = store.script(_COUNT_IF_SEATED)
        self._refund = store.script(_REFUND)

    async def check(self, request: Request[Any, Any, Any]) -> None:
        """Count this request against its client; :class:`RateLimited` when over the limit."""
        if self._limit <= 0 or request.method in ("GET", "HEAD", "OPTIONS"):
            return
        now_s = self._clock() // 1000  # read once: the window and Retry-After agree
        window = now_s // self._window
        try:
            count = await self._count_by_token(request, window)
            if count < 0:
                key = f"allfours:{{rl:{self._address(request)}}}:{window}"
                count = int(await self._count(keys=[key], args=[self._window + 1]))
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        if count > self._limit:
            retry = self._window - now_s % self._window
            raise RateLimited(max(retry, 1))

    async def within_table_quota(
        self,
        request: Request[Any, Any, Any],
        create: Callable[[], Awaitable[CommandResult]],
        made_already: Callable[[], Awaitable[bool]] | None,
    ) -> CommandResult:
        """Run a table creation against its address's hourly quota: only a new table uses
        it up. ``made_already`` tells whether the request's ``Idempotency-Key`` made its table
        before (None without a key): such a retry is answered, as the duplicate it is, even
        once the quota is used up. The count is taken before ``create`` (concurrent creations
        cannot overshoot) and given back when no table was made."""
        try:
            counter = await self._count_creation(request, "tq", self._tables_per_hour, "tables")
        except RateLimited:
            if made_already is None or not await made_already():
                raise
            counter = None
        try:
            result = await create()
        except ServiceError:  # refused: nothing was stored
            await self._refund_creation(counter)
            raise
        except Exception:
            # The store failed: the table may have been made and only the answer lost. Only
            # the key can tell (if the store answers); without one the count is kept.
            if made_already is not None and not await _or_true(made_already):
                await self._refund_creation(counter)
            raise
        if result.duplicate:
            await self._refund_creation(counter)
        return result

    async def within_player_quota(
        self, request: Request[Any, Any, Any], create: Callable[[], Awaitable[_Made]]
    ) -> _Made:
        """Run a player identity's creation against its address's hourly quota (given back
        when the creation is refused)."""
        counter = await self._count_creation(request, "pq", self._players_per_hour, "players")
        try:
            return await create()
        except ServiceError:
            await self._refund_creation(counter)
            raise

    async def _count_creation(
        self, request: Request[Any, Any, Any], kind: str, quota: int, what: str
    ) -> str | None:
        """Count a creation against its address's hourly ``quota`` of ``kind`` (none when
        the quota or the rate limit is 0: the rate limit's 0 turns every per-client write
        limit off); the counter, or :class:`RateLimited` ``quota_exceeded`` (that request not
        counted)."""
        if quota <= 0 or self._limit <= 0:
            return None
        now = self._clock() // 1000
        key = f"allfours:{{{kind}:{self._address(request)}}}:{now // 3600}"
        try:
            count = int(await self._count(keys=[key], args=[3601]))
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        if count > quota:
            await self._refund_creation(key)
            raise RateLimited(
                max(3600 - now % 3600, 1),
                code="quota_exceeded",
                detail=f"at most {quota} new {what} an hour from one address",
            )
        return key

    async def _refund_creation(self, counter: str | None) -> None:
        """Give back a count that made no table. Best effort: if Redis fails here the answer
        stands and the address just has one table less this hour."""
        if counter is None:
            return
        try:
            await self._refund(keys=[counter])
        except REDIS_ERRORS:
            _log.warning("could not give back a table creation to its quota", exc_info=True)

    @staticmethod
    def _address(request: Request[Any, Any, Any]) -> str:
        return request.client.host if request.client else "?"

    async def _count_by_token(self, request: Request[Any, Any, Any], window: int) -> int:
        """The count of the request's seat token if it holds its seat now; -1 otherwise (no
        token, a malformed one, or one that is not the seat's: counted by address)."""
        try:
            token = token_of(request)
        except Unauthorized:
            return -1  # a malformed header is refused later
        if token is None:
            return -1
        player_id = player_of(token)
        if player_id is not None:  # a player's writes count as the player's, if the key is
            digest = token_hash(token)
            counter = f"{player_key(player_id)}:rl:{window}"
            return int(
                await self._count_if_seated(
                    keys=[player_key(player_id), counter], args=["key", digest, self._window + 1]
                )
            )
        claim = claim_of(token)
        if claim is None:
            return -1
        digest = token_hash(token)
        counter = f"allfours:{{{claim.game_id}}}:rl:{digest[:24]}:{window}"
        count = await self._count_if_seated(
            keys=[seats_key(claim.game_id), counter],
            args=[claim.seat, digest, self._window + 1],
        )
        return int(count)


async def _or_true(check: Callable[[], Awaitable[bool]]) -> bool:
    """``check()``, or True when it fails too (the store is still down): keep the count."""
    try:
        return await check()
    except Exception:
        return True
