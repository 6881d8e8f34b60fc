"""Redis URLs and clients: a single server (``redis://``) or a Redis Cluster (``redis+cluster://``).

Cluster URLs name one or more seed nodes; the client discovers the others (``CLUSTER SLOTS``)
and follows slot moves by itself::

    redis+cluster://10.0.0.1:6379                      # one seed node is enough
    redis+cluster://user:secret@10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379
    rediss+cluster://redis.example.com:6380?ssl_cert_reqs=none   # TLS

Query options are those of redis-py's URLs (``socket_timeout=...``, ...). A cluster has a single
database, so a ``/<db>`` path other than ``/0`` is refused by redis-py.
"""

from __future__ import annotations

from typing import Any, TypeAlias
from urllib.parse import urlsplit

from redis.asyncio import Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster

__all__ = [
    "CLUSTER_SCHEMES",
    "RedisClient",
    "cluster_client",
    "is_cluster_url",
    "split_cluster_url",
]

RedisClient: TypeAlias = Redis | RedisCluster
"""What the store, the lobby and the rate limiter talk to: a server or a cluster."""

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
"""Cluster URL schemes and the plain scheme of their nodes."""

_DEFAULT_PORT = 6379


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis+cluster://`` or ``rediss+cluster://``)."""
    return url.partition("://")[0].lower() in CLUSTER_SCHEMES


def split_cluster_url(url: str) -> tuple[str, list[tuple[str, int]]]:
    """``redis+cluster://a@h1:p1,h2:p2/0?x=1`` -> (``redis://a@h1:p1/0?x=1``, [(h2, p2)]).

    The first URL is what redis-py parses (credentials, TLS, options); the other seeds are
    extra startup nodes, tried when the first one is down.
    """
    scheme, sep, rest = url.partition("://")
    plain = CLUSTER_SCHEMES.get(scheme.lower())
    if not sep or plain is None:
        raise ValueError(f"not a cluster URL (redis+cluster://host:port,...): {url!r}")
    cut = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    netloc, tail = rest[:cut], rest[cut:]
    credentials, at, hosts = netloc.rpartition("@")
    seeds = [seed for seed in hosts.split(",") if seed]
    if not seeds:
        raise ValueError(f"cluster URL without a node: {url!r}")
    first, *others = seeds
    return f"{plain}://{credentials}{at}{first}{tail}", [_host_port(seed) for seed in others]


def _host_port(seed: str) -> tuple[str, int]:
    parsed = urlsplit(f"//{seed}")
    if not parsed.hostname:
        raise ValueError(f"bad cluster seed node {seed!r}")
    return parsed.hostname, parsed.port or _DEFAULT_PORT


def cluster_client(url: str, **kwargs: Any) -> RedisCluster:
    """A :class:`RedisCluster` for a ``redis+cluster://`` URL (``kwargs`` as for RedisCluster)."""
    first, others = split_cluster_url(url)
    if others:
        kwargs["startup_nodes"] = [ClusterNode(host, port) for host, port in others]
    return RedisCluster.from_url(first, **kwargs)
