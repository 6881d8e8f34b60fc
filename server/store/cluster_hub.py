"""Live subscriptions on a Redis Cluster: the same hub, with its doorbell connection on any node
and a sweep for lost doorbells.

A cluster forwards every ``PUBLISH`` to every node over its bus, so the hub's one Pub/Sub
connection may sit on any node and still hears the games of all of them; the pipelined reads of
rung games go through the cluster client, which sends each ``XRANGE`` to the node holding the
game's slot. (One ``XREAD`` could not follow games of different slots anyway.)

What differs from one server: a message crossing the cluster bus can be lost (a link that
drops, a node that restarts), so every ``block_ms`` the hub also compares each followed
stream's length with what it delivered (one pipelined ``XLEN`` per node) and reads whatever it
missed. See :mod:`server.store.hub` for everything else.
"""

from __future__ import annotations

import random

from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import AbstractConnection

from .doorbells import Connector, bell_connection
from .hub import SubscriptionHub
from .port import EventReader

__all__ = ["ClusterSubscriptionHub", "cluster_connector"]


def cluster_connector(
    cluster: RedisCluster, *, client_name: str, connect_timeout: float, block_ms: int
) -> Connector:
    """Doorbell connections to a random primary of ``cluster`` (any node hears every PUBLISH)."""

    async def connect() -> tuple[AbstractConnection, str]:
        await cluster.initialize()  # the slot map (no-op once known)
        nodes = cluster.get_primaries() or cluster.get_nodes()
        node = random.choice(nodes)  # noqa: S311 - spreads processes over the nodes
        settings = {
            **node.connection_kwargs,
            "client_name": client_name,
            "socket_connect_timeout": connect_timeout,
        }
        conn = bell_connection(node.connection_class, settings, block_ms)
        await conn.connect()  # type: ignore[no-untyped-call]
        return conn, node.name

    return connect


class ClusterSubscriptionHub(SubscriptionHub):
    """The subscription hub for a Redis Cluster: doorbells from any node, a sweep per round."""

    def __init__(
        self,
        reader: EventReader,
        commands: RedisCluster,
        *,
        client_name: str = "allfours-hub",
        connect_timeout: float = 2.0,
        block_ms: int = 5_000,
        queue_size: int = 1_024,
        read_concurrency: int = 4,
    ) -> None:
        super().__init__(
            reader,
            commands,
            cluster_connector(
                commands,
                client_name=client_name,
                connect_timeout=connect_timeout,
                block_ms=block_ms,
            ),
            block_ms=block_ms,
            queue_size=queue_size,
            read_concurrency=read_concurrency,
            sweep=True,
        )
