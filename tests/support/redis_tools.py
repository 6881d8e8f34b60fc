"""Redis helpers that only the tests use: a client for any Redis URL, and the append script's
SHA-1 (what ``EVALSHA`` sends, to see the script cache emptied by a restart)."""

from __future__ import annotations

import hashlib
from typing import Any, Final

from redis.asyncio import Redis

from server.store.clients import RedisClient, cluster_client, is_cluster_url
from server.store.lua import APPEND_LUA

__all__ = ["APPEND_SCRIPT_SHA", "redis_client"]

APPEND_SCRIPT_SHA: Final = hashlib.sha1(APPEND_LUA.encode(), usedforsecurity=False).hexdigest()


def redis_client(url: str, **kwargs: Any) -> RedisClient:
    """A client for ``url``: :class:`RedisCluster` for cluster URLs, :class:`Redis` otherwise
    (the store builds its own, tuned clients: :func:`server.store.connect_store`)."""
    if is_cluster_url(url):
        return cluster_client(url, **kwargs)
    return Redis.from_url(url, **kwargs)
