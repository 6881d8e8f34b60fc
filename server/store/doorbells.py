"""The hub's doorbells: one Pub/Sub connection per process, subscribed to the followed games.

Every append ``PUBLISH``es the game's new version on its doorbell channel
(:func:`~server.store.keys.bell_channel`), from the append script. :class:`Doorbells` keeps
one connection subscribed to the channels it is told to want, and tells its
:class:`DoorbellListener` what happens: a bell rang, Redis confirmed a subscription (from then
on every append to that game rings), the connection was lost (nothing is confirmed any more:
whatever rings meanwhile is lost) and replaced, and once per ``block_ms`` a round (after a
ping: no reply by the next round means a dead connection, which is replaced).

The connection is opened by a :data:`Connector`, so the same code serves one server
(:func:`server_connector`) and a cluster (:func:`~server.store.cluster_hub.cluster_connector`).
It reconnects with jittered exponential backoff, and holds no connection while nothing is
wanted.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeAlias

from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException, RedisError

from .errors import StoreError

__all__ = [
    "RETRY_ON",
    "Connector",
    "DoorbellListener",
    "Doorbells",
    "bell_connection",
    "server_connector",
]

Connector: TypeAlias = Callable[[], Awaitable[tuple[AbstractConnection, str]]]
"""Opens a doorbell connection; returns it with the name of the node it reached."""

RETRY_ON: tuple[type[BaseException], ...] = (
    RedisError,
    RedisClusterException,  # redis-py's cluster client raises a few outside RedisError
    OSError,
    StoreError,
)
"""What the hub survives by reconnecting or trying again later: Redis (or a node) away."""

BACKOFF_MIN = 0.05
BACKOFF_MAX = 2.0

log = logging.getLogger(__name__)


def backoff_delay(backoff: float) -> float:
    """``backoff`` seconds, jittered so that processes do not retry in step."""
    return backoff * random.uniform(0.5, 1.0)  # noqa: S311 - jitter, not a secret


def bell_connection(
    connection_class: type[AbstractConnection], settings: Mapping[str, Any], block_ms: int
) -> AbstractConnection:
    """A (not yet connected) doorbell connection made from a client's connection settings.

    Plain replies (RESP2, bytes), no hidden retry or health check (the connection is pinged,
    replaced and re-subscribed by :class:`Doorbells`), and a read timeout beyond a round.
    """
    return connection_class(
        **{
            **settings,
            "protocol": 2,
            "decode_responses": False,
            "socket_timeout": block_ms / 1000 + 5.0,
            "health_check_interval": 0,
            "retry": Retry(NoBackoff(), 0),
        }
    )


def server_connector(client: Redis, block_ms: int) -> Connector:
    """Doorbell connections to one Redis server, with ``client``'s settings (and name)."""
    pool = client.connection_pool
    settings = pool.connection_kwargs
    node = str(settings.get("path") or f"{settings.get('host')}:{settings.get('port')}")

    async def connect() -> tuple[AbstractConnection, str]:
        conn = bell_connection(pool.connection_class, settings, block_ms)
        await conn.connect()  # type: ignore[no-untyped-call]
        return conn, node

    return connect


class DoorbellListener(Protocol):
    """What :class:`Doorbells` reports to (the subscription hub)."""

    def rang(self, channel: bytes, data: bytes) -> None:
        """A message on a wanted channel (the game's new version)."""
        ...

    def listening(self, channel: bytes) -> None:
        """Redis confirmed the subscription: every later append to the game rings."""
        ...

    def disconnected(self) -> None:
        """The connection is lost: no channel is listened to until confirmed again."""
        ...

    async def reconnected(self) -> None:
        """A new connection is up (channels not yet confirmed); bells may have been lost."""
        ...

    async def round(self) -> None:
        """Once per ``block_ms``, while connected."""
        ...


class Doorbells:
    """One Pub/Sub connection, subscribed to the wanted channels, reported to a listener."""

    def __init__(self, connect: Connector, listener: DoorbellListener, *, block_ms: int) -> None:
        self._open = connect
        self._listener = listener
        self._block_ms = block_ms
        self._wanted: set[bytes] = set()
        self._conn: AbstractConnection | None = None
        self.node: str | None = None  # where the connection is
        self._sent: set[bytes] = set()  # channels SUBSCRIBEd on this connection
        self._pending: collections.Counter[bytes] = collections.Counter()  # unconfirmed
        self._sync_wanted = False
        self._next_round = 0.0
        self._pong_due = False
        self._task: asyncio.Task[None] | None = None
        self._syncer: asyncio.Task[None] | None = None
        self._wakeup = asyncio.Event()
        self._closed = False
        self.connected = False
        self.reconnects = 0

    @property
    def channels(self) -> int:
        """Channels subscribed on the current connection."""
        return len(self._sent)

    def want(self, channel: bytes) -> None:
        """Subscribe to ``channel`` (soon); :meth:`DoorbellListener.listening` follows."""
        self._wanted.add(channel)
        if self._task is None and not self._closed:
            self._task = asyncio.create_task(self._run(), name="allfours-store-doorbells")
        self._wakeup.set()  # the reader may be idle, waiting for a first channel
        self._kick_sync()

    def unwant(self, channel: bytes) -> None:
        """Unsubscribe from ``channel`` (soon)."""
        self._wanted.discard(channel)
        self._kick_sync()

    async def close(self) -> None:
        self._closed = True
        self._wakeup.set()
        for task in (self._task, self._syncer):
            # A cancel that lands while redis-py is connecting can be swallowed (asyncio's
            # wait_for in Python 3.11); the loop also checks _closed, and we cancel again.
            while task is not None and not task.done():
                task.cancel()
                await asyncio.wait({task}, timeout=0.1)
            if task is not None and not task.cancelled() and task.exception() is not None:
                log.warning("store doorbell task failed", exc_info=task.exception())
        await self._disconnect()

    # -- the connection ----------------------------------------------------------------------

    async def _run(self) -> None:
        backoff = BACKOFF_MIN
        while not self._closed:
            try:
                if not self.connected:
                    await self._connect()
                    self.connected = True
                    backoff = BACKOFF_MIN
                await self._step()
            except Exception as exc:
                if not isinstance(exc, RETRY_ON):
                    # A bug, or a reply we did not expect: never leave subscribers hanging.
                    log.exception("store doorbells failed; reconnecting")
                elif self.connected:
                    log.warning("store doorbells lost Redis (%s); reconnecting", exc)
                self.connected = False
                self._listener.disconnected()
                await self._disconnect()
                self.reconnects += 1
                await asyncio.sleep(backoff_delay(backoff))
                backoff = min(backoff * 2, BACKOFF_MAX)

    async def _connect(self) -> None:
        while not self._wanted and not self._closed:
            # Nothing to follow yet: hold no connection until there is.
            self._wakeup.clear()
            await self._wakeup.wait()
        if self._closed:
            return
        self._conn, self.node = await self._open()
        self._sent, self._pending = set(), collections.Counter()
        self._pong_due = False
        self._kick_sync()
        await self._listener.reconnected()
        self._next_round = asyncio.get_running_loop().time() + self._block_ms / 1000

    async def _disconnect(self) -> None:
        conn, self._conn, self.node = self._conn, None, None
        if conn is not None:
            await conn.disconnect(nowait=True)

    async def _step(self) -> None:
        """Handle one reply (or none, within the round) and, when it is due, run a round."""
        conn = self._conn
        if conn is None:
            if self._closed:
                return
            raise RedisConnectionError("no Pub/Sub connection")
        loop = asyncio.get_running_loop()
        timeout = max(self._next_round - loop.time(), 0.001)
        reply = await conn.read_response(timeout=timeout, disconnect_on_error=False)
        if reply is not None:
            self._pong_due = False  # whatever came, the connection is alive
            self._on_reply(reply)
        if loop.time() >= self._next_round:
            self._next_round = loop.time() + self._block_ms / 1000
            if self._pong_due:
                raise RedisConnectionError("nothing, not even a PONG, on the Pub/Sub connection")
            self._pong_due = True
            await conn.send_command("PING")
            await self._listener.round()

    def _on_reply(self, reply: Any) -> None:
        if not isinstance(reply, list) or reply[0] == b"pong":
            return  # PONG: b"PONG" while no channel is subscribed, [b"pong", b""] once one is
        kind, channel = reply[0], reply[1]
        if kind == b"message":
            if channel in self._wanted:
                self._listener.rang(channel, reply[2])
        elif kind == b"subscribe":
            self._pending[channel] -= 1
            if self._pending[channel] <= 0:
                del self._pending[channel]
                if channel in self._sent and channel in self._wanted:
                    self._listener.listening(channel)
        # "unsubscribe" confirmations need nothing.

    # -- channels ----------------------------------------------------------------------------

    def _kick_sync(self) -> None:
        """Bring the connection's channels in line with the wanted ones, soon, in order."""
        self._sync_wanted = True
        if self._syncer is None or self._syncer.done():
            self._syncer = asyncio.create_task(self._sync_channels())

    async def _sync_channels(self) -> None:
        # The only task that sends (UN)SUBSCRIBE, so they reach Redis in the order decided
        # here: a channel given up and taken again is unsubscribed, then subscribed.
        while self._sync_wanted and not self._closed:
            self._sync_wanted = False
            conn = self._conn
            if conn is None or not conn.is_connected:
                # The next connection subscribes everything. (And never let a send reconnect
                # a dropped connection behind the reader's back: nobody would read it.)
                return
            add, drop = self._wanted - self._sent, self._sent - self._wanted
            self._sent -= drop
            self._sent |= add
            self._pending.update(add)
            try:
                if drop:
                    await conn.send_command("UNSUBSCRIBE", *drop)
                if add and conn.is_connected:
                    await conn.send_command("SUBSCRIBE", *add)
            except RETRY_ON as exc:
                # The reader notices the broken connection too, and reconnects.
                log.debug("store doorbells could not (un)subscribe: %s", exc)
                if self._conn is conn:
                    return
