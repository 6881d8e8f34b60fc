"""A request rate limit shared by every instance: a fixed window counted in Redis.

Clients are told apart by seat token when they send one (a table of four players behind one
NAT address is four clients), by address otherwise. Only writes are limited: reads and
polling are cheap (ETag/304) and streams are long-lived. Each window is one key with its own
hash tag, so on a Redis Cluster the counting script runs on the node of that key.
"""

from __future__ import annotations

import time
from typing import Any

from litestar import Request

from server.api.auth import token_of
from server.api.problems import RateLimited
from server.errors import Unauthorized
from server.store import REDIS_ERRORS, RedisClient
from server.store.redis_store import store_error
from server.tokens import token_hash

_COUNT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""


class RateLimiter:
    def __init__(self, redis: RedisClient, limit: int, window_s: int) -> None:
        self._limit = limit
        self._window = window_s
        self._count = redis.register_script(_COUNT)

    async def check(self, request: Request[Any, Any, Any]) -> None:
        if self._limit <= 0 or request.method in ("GET", "HEAD", "OPTIONS"):
            return
        try:
            token = token_of(request)
        except Unauthorized:
            token = None  # a malformed header is refused later; count it by address
        client = (
            token_hash(token)[:24] if token else (request.client.host if request.client else "?")
        )
        window = int(time.time()) // self._window
        key = f"allfours:{{rl:{client}}}:{window}"
        try:
            count = await self._count(keys=[key], args=[self._window + 1])
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        if int(count) > self._limit:
            retry = self._window - int(time.time()) % self._window
            raise RateLimited(max(retry, 1))
