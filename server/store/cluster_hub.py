"""Live subscriptions on a Redis Cluster: doorbells over Pub/Sub, reads by slot.

The single-server hub blocks in one ``XREAD`` over every followed game. A cluster refuses that:
a command's keys must all lie in one hash slot (not merely on one node), so one blocking read
could follow only the games of one slot, and a process following N games would need up to N
blocking connections. Instead:

- every append also ``PUBLISH``es the new version on the game's *doorbell* channel, atomically,
  from the append script (:mod:`server.store.lua`);
- the hub holds **one** Pub/Sub connection per process, to any node (a cluster forwards
  ``PUBLISH`` to every node), subscribed to the channels of the games it follows;
- a doorbell marks the game's feed *dirty*; a short task then reads the new entries with
  ``XRANGE`` through the command client, which routes it to the node holding the game's slot,
  and fans them out exactly like the single-server hub.

So connections stay one per process plus the bounded command pool per node, whatever the
number of games or subscribers, and the CLIENT UNBLOCK dance of the single-server hub is not
needed: starting a feed is a SUBSCRIBE on the connection that is already listening.

No gap: a feed's start version (XLEN) is read after its SUBSCRIBE was sent, and the feed is
read once more as soon as both that version is known and Redis has confirmed the subscription.
Every later append rings the bell; every earlier one is covered by that read or by the
subscribers' own catch-up. Pub/Sub is at-most-once (a lost connection or a cluster-bus hiccup
drops messages), so the hub also, every ``block_ms``, compares each stream's length with what it
delivered (one pipelined XLEN per node) and reads whatever it missed, pings its connection (no
pong by the next round: reconnect), and after a reconnect re-subscribes and re-reads everything.
A stream found shorter than what was delivered ends its subscriptions with
:class:`~server.store.errors.ResyncRequired`, as on a single server.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import random
from typing import TYPE_CHECKING, Any

from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import Connection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from .hub import _RECONNECT_ON, _XREAD_COUNT, BaseHub, _Feed

if TYPE_CHECKING:
    from .redis_store import RedisEventStore

__all__ = ["ClusterSubscriptionHub"]

log = logging.getLogger(__name__)


class ClusterSubscriptionHub(BaseHub):
    """The subscription hub for a Redis Cluster: one Pub/Sub connection, doorbells, XRANGE."""

    def __init__(
        self,
        store: RedisEventStore,
        commands: RedisCluster,
        *,
        client_name: str = "allfours-hub",
        connect_timeout: float = 2.0,
        block_ms: int = 5_000,
        queue_size: int = 1_024,
        read_concurrency: int = 4,
    ) -> None:
        super().__init__(
            store,
            commands,
            block_ms=block_ms,
            queue_size=queue_size,
            read_concurrency=read_concurrency,
        )
        self._cluster = commands
        self._client_name = client_name
        self._connect_timeout = connect_timeout
        self._conn: Connection | None = None
        self.node: str | None = None  # "host:port" of the node the Pub/Sub connection is on
        self._by_channel: dict[bytes, _Feed] = {}  # channels we want, with their feed
        self._sent: set[bytes] = set()  # channels SUBSCRIBEd on this connection
        self._pending: collections.Counter[bytes] = collections.Counter()  # unconfirmed
        self._syncer: asyncio.Task[None] | None = None
        self._sync_wanted = False
        self._pullers: set[asyncio.Task[None]] = set()
        self._next_round = 0.0
        self._pong_due = False

    def stats(self) -> dict[str, Any]:
        stats = super().stats()
        stats["node"] = self.node
        stats["channels"] = len(self._sent)
        return stats

    def _tasks(self) -> list[asyncio.Task[None] | None]:
        return [self._task, self._syncer, *self._pullers]

    # -- feeds -------------------------------------------------------------------------------

    def _feed_starting(self, feed: _Feed) -> None:
        if self._feeds.get(feed.game_id) is feed and feed.channel not in self._by_channel:
            self._by_channel[feed.channel] = feed
            self._wakeup.set()  # the reader may be idle, waiting for a first feed
            self._kick_sync()

    def _feed_started(self, feed: _Feed) -> None:
        if feed.subscribed:
            self._pull(feed)

    def _feed_removed(self, feed: _Feed) -> None:
        if self._by_channel.get(feed.channel) is feed:
            del self._by_channel[feed.channel]
            self._kick_sync()

    # -- the Pub/Sub connection --------------------------------------------------------------

    async def _connect(self) -> None:
        while not self._by_channel and not self._closed:
            # Nothing to follow yet: hold no connection until there is.
            self._wakeup.clear()
            await self._wakeup.wait()
        if self._closed:
            return
        await self._cluster.initialize()  # the slot map (no-op once known)
        nodes = self._cluster.get_primaries() or self._cluster.get_nodes()
        node = random.choice(nodes)  # noqa: S311 - any node hears every PUBLISH
        kwargs = {
            **node.connection_kwargs,
            "client_name": self._client_name,
            "protocol": 2,  # Pub/Sub messages as plain replies
            "decode_responses": False,  # channels are compared as bytes
            "socket_connect_timeout": self._connect_timeout,
            "socket_timeout": self._block_ms / 1000 + 5.0,
            "health_check_interval": 0,  # we ping ourselves, once per round
            "retry": Retry(NoBackoff(), 0),  # a failure must surface: we resubscribe
        }
        conn: Connection = node.connection_class(**kwargs)
        await conn.connect()  # type: ignore[no-untyped-call]
        self._conn, self.node = conn, node.name
        self._sent, self._pending = set(), collections.Counter()
        for feed in self._by_channel.values():
            feed.subscribed = False
        self._pong_due = False
        self._kick_sync()
        # Whatever happened while we were away: regressions first, then missed entries (their
        # reads wait for each feed's subscription to be confirmed, see _on_reply).
        await self._check_lengths([f for f in self._by_channel.values() if f.started])
        self._next_round = asyncio.get_running_loop().time() + self._block_ms / 1000

    async def _disconnect(self) -> None:
        conn, self._conn, self.node = self._conn, None, None
        if conn is not None:
            await conn.disconnect(nowait=True)

    async def _step(self) -> None:
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
            await self._round(conn)

    def _on_reply(self, reply: Any) -> None:
        if not isinstance(reply, list) or reply[0] == b"pong":
            return  # PONG: b"PONG" while no channel is subscribed, [b"pong", b""] once one is

        kind, channel, data = reply[0], reply[1], reply[2]
        if kind == b"message":
            feed = self._by_channel.get(channel)
            # The message is the new version; anything else on the channel just means "look".
            if feed is not None and not (data.isdigit() and int(data) <= feed.last):
                feed.dirty = True
                if feed.started and feed.subscribed:
                    self._pull(feed)
        elif kind == b"subscribe":
            self._pending[channel] -= 1
            if self._pending[channel] <= 0:
                del self._pending[channel]
                feed = self._by_channel.get(channel)
                if feed is not None and channel in self._sent and not feed.subscribed:
                    # From now on every append rings; read what came before the bell could.
                    feed.subscribed = True
                    if feed.started:
                        feed.dirty = True
                        self._pull(feed)
        # "unsubscribe" confirmations need nothing.

    async def _round(self, conn: Connection) -> None:
        """Once per ``block_ms``: check the connection, and catch up with any lost doorbell."""
        self._next_round = asyncio.get_running_loop().time() + self._block_ms / 1000
        if self._pong_due:
            raise RedisConnectionError("nothing, not even a PONG, on the Pub/Sub connection")
        self._pong_due = True
        await conn.send_command("PING")
        feeds = [f for f in self._by_channel.values() if f.started and f.subscribed]
        for feed, length in await self._check_lengths(feeds):
            if length > feed.last:
                feed.dirty = True
                self._pull(feed)

    # -- channels ----------------------------------------------------------------------------

    def _kick_sync(self) -> None:
        """Bring the connection's channels in line with the feeds, soon, in order."""
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
            wanted = set(self._by_channel)
            add, drop = wanted - self._sent, self._sent - wanted
            self._sent -= drop
            self._sent |= add
            self._pending.update(add)
            try:
                if drop:
                    await conn.send_command("UNSUBSCRIBE", *drop)
                if add and conn.is_connected:
                    await conn.send_command("SUBSCRIBE", *add)
            except _RECONNECT_ON as exc:
                # The reader notices the broken connection too, and reconnects.
                log.debug("store hub could not (un)subscribe: %s", exc)
                if self._conn is conn:
                    return

    # -- reading the streams -----------------------------------------------------------------

    def _pull(self, feed: _Feed) -> None:
        """Read the feed's new entries soon (one reader task per feed at a time)."""
        if feed.pulling is None and not self._closed:
            task = asyncio.create_task(self._pull_feed(feed))
            feed.pulling = task
            self._pullers.add(task)
            task.add_done_callback(self._pullers.discard)

    async def _pull_feed(self, feed: _Feed) -> None:
        try:
            while feed.dirty and not self._closed and self._feeds.get(feed.game_id) is feed:
                feed.dirty = False
                async with self._reads:
                    entries: Any = await self._cluster.xrange(
                        feed.key, min=f"{feed.last + 1}-0", count=_XREAD_COUNT
                    )
                if entries:
                    self._deliver(feed, entries)
                if len(entries) == _XREAD_COUNT:
                    feed.dirty = True
        except _RECONNECT_ON as exc:
            # Redis is away: the next round (or reconnect) looks at this stream again.
            feed.dirty = True
            log.debug("store hub could not read game %s: %s", feed.game_id, exc)
        finally:
            feed.pulling = None
