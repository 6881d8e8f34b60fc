"""Live subscriptions: a doorbell per append, one Pub/Sub connection per process, and reads of
only the games that rang.

Redis connections must grow with processes, not with browsers, and the work per append must not
grow with the number of games followed. So:

- every append ``PUBLISH``es the new version on the game's *doorbell* channel
  (:func:`~server.store.keys.bell_channel`), atomically, from the append script
  (:mod:`server.store.lua`);
- the hub keeps one :class:`~server.store.subscription.Feed` per followed game and holds **one**
  Pub/Sub connection per process, subscribed to the channels of those games;
- a doorbell puts its feed on the *due* list; one puller task reads the new entries of every
  due feed (a pipeline of ``XRANGE``, one per rung game, through the command client) and pushes
  them into the subscribers' bounded queues without waiting: a subscriber whose queue is full is
  dropped (:class:`~server.store.errors.SubscriberLagged`) rather than slowing the others.

So an idle followed game costs an entry in Redis' Pub/Sub table and nothing per append. (The
hub used to block in one ``XREAD`` naming every followed stream: each append to any of them
re-sent, re-parsed and re-registered them all.) Starting a feed is a SUBSCRIBE on the
connection that is already listening.

No gap: a feed's start version (XLEN) is read after its SUBSCRIBE was sent, and the feed is read
once more as soon as both that version is known and Redis has confirmed the subscription. Every
later append rings; every earlier one is covered by that read or by the subscribers' own
catch-up (see :mod:`server.store.subscription`).

Redis going away: the reader reconnects with jittered exponential backoff, re-subscribes,
compares each stream's length with what it delivered (a shorter stream lost acknowledged
events: that feed's subscribers get :class:`~server.store.errors.ResyncRequired`), and reads
each feed once more as its subscription is confirmed: subscribers just see a pause. Every
``block_ms`` it pings (no reply by the next round: reconnect). On one server a message to a live
connection is never lost; across a cluster's bus it can be, so the cluster variant
(:mod:`server.store.cluster_hub`) also *sweeps* every round.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException, RedisError

from .clients import RedisClient
from .entries import decode_entry
from .errors import ResyncRequired, StoreError, SubscriptionDropped
from .keys import validate_game_id
from .model import StoredEvent
from .port import EventReader
from .subscription import Feed, Subscription

__all__ = ["Connector", "SubscriptionHub", "bell_connection", "server_connector"]

Connector: TypeAlias = Callable[[], Awaitable[tuple[AbstractConnection, str]]]
"""Opens the hub's Pub/Sub connection; returns it with the name of the node it reached."""

# What the hub survives by reconnecting or retrying (redis-py's cluster client raises a few
# errors, e.g. "cannot connect to any node", outside the RedisError hierarchy).
_RECONNECT_ON: tuple[type[BaseException], ...] = (
    RedisError,
    RedisClusterException,
    OSError,
    StoreError,
)

log = logging.getLogger(__name__)

_READ_COUNT = 512  # entries per stream per pull
_PULL_STREAMS = 256  # streams per pipelined pull
_BACKOFF_MIN = 0.05
_BACKOFF_MAX = 2.0


def bell_connection(
    connection_class: type[AbstractConnection], settings: Mapping[str, Any], block_ms: int
) -> AbstractConnection:
    """A (not yet connected) doorbell connection made from a client's connection settings.

    Plain replies (RESP2, bytes), no hidden retry or health check (the hub pings, reconnects
    and re-subscribes by itself), and a read timeout beyond one round of ``block_ms``.
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


class SubscriptionHub:
    """Feeds :class:`Subscription` queues from doorbells and reads of the games that rang.

    ``reader`` is the store (reads for subscribers and feed starts), ``commands`` its command
    client (the pipelined reads of rung games and length checks), ``connect`` opens the Pub/Sub
    connection. ``sweep``: also compare every followed stream's length with what was delivered,
    once per ``block_ms``, to catch up with doorbells the transport may lose (a cluster's bus).
    """

    def __init__(
        self,
        reader: EventReader,
        commands: RedisClient,
        connect: Connector,
        *,
        block_ms: int = 5_000,
        queue_size: int = 1_024,
        read_concurrency: int = 4,
        sweep: bool = False,
    ) -> None:
        self._reader = reader
        self._commands = commands
        self._open = connect
        self._sweep = sweep
        self._block_ms = block_ms
        self._queue_size = queue_size
        # Subscribers' store reads (catch-up, gap fills, feed starts) share a few slots, so a
        # crowd of subscribers arriving at once cannot inflate the command pool: connections
        # stay a function of append concurrency, not of the number of subscribers.
        self._reads = asyncio.Semaphore(read_concurrency)
        self._feeds: dict[str, Feed] = {}  # games with subscribers
        self._by_channel: dict[bytes, Feed] = {}  # feeds started (or starting): channels wanted
        self._due: dict[bytes, Feed] = {}  # feeds to read, in the order they rang
        self._conn: AbstractConnection | None = None
        self.node: str | None = None  # the node the Pub/Sub connection is on
        self._sent: set[bytes] = set()  # channels SUBSCRIBEd on this connection
        self._pending: collections.Counter[bytes] = collections.Counter()  # unconfirmed
        self._sync_wanted = False
        self._next_round = 0.0
        self._pong_due = False
        self._task: asyncio.Task[None] | None = None
        self._syncer: asyncio.Task[None] | None = None
        self._puller: asyncio.Task[None] | None = None
        self._wakeup = asyncio.Event()
        self._closed = False
        self.connected = False
        self.reconnects = 0

    # -- public ------------------------------------------------------------------------------

    def subscribe(self, game_id: str, after: int = 0) -> Subscription:
        """A subscription to ``game_id`` from version ``after + 1`` (see :class:`Subscription`)."""
        if self._closed:
            raise StoreError("subscription hub is closed")
        if after < 0:
            raise ValueError(f"after must be >= 0, not {after}")
        validate_game_id(game_id)
        feed = self._feeds.get(game_id)
        if feed is None:
            feed = self._feeds[game_id] = Feed(game_id)
        subscription = Subscription(self, feed, after, self._queue_size)
        feed.subscribers.add(subscription)
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="allfours-store-hub")
        return subscription

    def stats(self) -> dict[str, Any]:
        return {
            "games": len(self._feeds),
            "subscribers": sum(len(feed.subscribers) for feed in self._feeds.values()),
            "channels": len(self._sent),
            # Feeds fully following their game: start version known, doorbell confirmed.
            "live": sum(f.started and f.listening for f in self._by_channel.values()),
            "connected": self.connected,
            "reconnects": self.reconnects,
            "node": self.node,
        }

    async def close(self) -> None:
        """Stop the hub; every open subscription ends with StopAsyncIteration."""
        self._closed = True
        self._wakeup.set()
        for feed in list(self._feeds.values()):
            for subscription in list(feed.subscribers):
                subscription.close()
        for task in (self._task, self._syncer, self._puller):
            # A cancel that lands while redis-py is connecting can be swallowed (asyncio's
            # wait_for in Python 3.11); the loops also check _closed, and we cancel again.
            while task is not None and not task.done():
                task.cancel()
                await asyncio.wait({task}, timeout=0.1)
            if task is not None and not task.cancelled() and task.exception() is not None:
                log.warning("store hub task failed", exc_info=task.exception())
        await self._disconnect()

    # -- what subscriptions ask (FeedHost) ---------------------------------------------------

    async def ready(self, feed: Feed) -> None:
        """Fix the version delivery starts from, once per feed, before anyone reads the store."""
        if feed.started:
            return
        if feed.starting is None or feed.starting.done():
            feed.starting = asyncio.create_task(self._start(feed))
            # Its failure reaches every waiter; mark it retrieved even if all of them left.
            feed.starting.add_done_callback(lambda t: t.cancelled() or t.exception())
        # shield: one subscriber giving up must not cancel the start-up others wait for.
        await asyncio.shield(feed.starting)

    async def read(self, game_id: str, after: int, limit: int) -> list[StoredEvent]:
        async with self._reads:
            return await self._reader.read(game_id, after=after, limit=limit)

    async def store_behind(self, game_id: str, position: int) -> bool:
        async with self._reads:
            return await self._reader.current_version(game_id) < position

    def leave(self, subscription: Subscription) -> None:
        feed = subscription.feed
        feed.subscribers.discard(subscription)
        if not feed.subscribers:
            self._forget(feed)

    # -- feeds -------------------------------------------------------------------------------

    async def _start(self, feed: Feed) -> None:
        if self._feeds.get(feed.game_id) is feed and feed.channel not in self._by_channel:
            self._by_channel[feed.channel] = feed
            self._wakeup.set()  # the reader may be idle, waiting for a first feed
            self._kick_sync()
        async with self._reads:
            feed.last = await self._reader.current_version(feed.game_id)
        feed.started = True
        if feed.listening and self._by_channel.get(feed.channel) is feed:
            self._pull(feed)

    def _forget(self, feed: Feed) -> None:
        """The feed has no subscriber left (or was dropped): stop following its game."""
        if self._feeds.get(feed.game_id) is feed:
            del self._feeds[feed.game_id]
        if self._by_channel.get(feed.channel) is feed:
            del self._by_channel[feed.channel]
            self._kick_sync()
        if self._due.get(feed.channel) is feed:
            del self._due[feed.channel]

    def _deliver(self, feed: Feed, entries: list[Any]) -> None:
        """Push stream entries to the feed's subscribers, skipping versions already pushed."""
        for entry in entries:
            event = decode_entry(entry)
            if event.version > feed.last:
                feed.deliver(event)
        self._reader.note_seen(feed.game_id, feed.last)

    async def _check_lengths(self, feeds: list[Feed]) -> list[tuple[Feed, int]]:
        """Compare the streams' lengths with what was delivered; a shorter stream lost events.

        Regressed feeds are dropped (their subscribers get :class:`ResyncRequired`); returns
        the others with their current length."""
        if not feeds:
            return []
        async with self._commands.pipeline(transaction=False) as pipe:
            for feed in feeds:
                pipe.xlen(feed.key)
            lengths: list[int] = await pipe.execute()
        healthy: list[tuple[Feed, int]] = []
        for feed, length in zip(feeds, lengths, strict=True):
            if length < feed.last:
                log.error(
                    "store regressed for game %s: %d events, %d delivered",
                    feed.game_id,
                    length,
                    feed.last,
                )
                self._drop(feed, ResyncRequired, f"store went back to version {length}")
            else:
                healthy.append((feed, length))
        return healthy

    def _drop(self, feed: Feed, failure: type[SubscriptionDropped], reason: str) -> None:
        feed.drop(failure, reason)
        self._forget(feed)

    # -- the Pub/Sub connection --------------------------------------------------------------

    async def _run(self) -> None:
        backoff = _BACKOFF_MIN
        while not self._closed:
            try:
                if not self.connected:
                    await self._connect()
                    self.connected = True
                    backoff = _BACKOFF_MIN
                await self._step()
            except Exception as exc:
                if not isinstance(exc, _RECONNECT_ON):
                    # A bug, or a reply we did not expect: never leave subscribers hanging.
                    log.exception("store hub failed; reconnecting")
                elif self.connected:
                    log.warning("store hub lost Redis (%s); reconnecting", exc)
                self.connected = False
                await self._disconnect()
                self.reconnects += 1
                await asyncio.sleep(backoff * random.uniform(0.5, 1.0))  # noqa: S311 - jitter
                backoff = min(backoff * 2, _BACKOFF_MAX)

    async def _connect(self) -> None:
        while not self._by_channel and not self._closed:
            # Nothing to follow yet: hold no connection until there is.
            self._wakeup.clear()
            await self._wakeup.wait()
        if self._closed:
            return
        self._conn, self.node = await self._open()
        self._sent, self._pending = set(), collections.Counter()
        for feed in self._by_channel.values():
            feed.listening = False
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
            await self._round(conn)

    def _on_reply(self, reply: Any) -> None:
        if not isinstance(reply, list) or reply[0] == b"pong":
            return  # PONG: b"PONG" while no channel is subscribed, [b"pong", b""] once one is
        kind, channel, data = reply[0], reply[1], reply[2]
        if kind == b"message":
            feed = self._by_channel.get(channel)
            # The message is the new version; anything else on the channel just means "look".
            if (
                feed is not None
                and feed.started
                and feed.listening
                and not (data.isdigit() and int(data) <= feed.last)
            ):
                self._pull(feed)
        elif kind == b"subscribe":
            self._pending[channel] -= 1
            if self._pending[channel] <= 0:
                del self._pending[channel]
                feed = self._by_channel.get(channel)
                if feed is not None and channel in self._sent and not feed.listening:
                    # From now on every append rings; read what came before the bell could.
                    feed.listening = True
                    if feed.started:
                        self._pull(feed)
        # "unsubscribe" confirmations need nothing.

    async def _round(self, conn: AbstractConnection) -> None:
        """Once per ``block_ms``: check the connection (and sweep, if asked)."""
        self._next_round = asyncio.get_running_loop().time() + self._block_ms / 1000
        if self._pong_due:
            raise RedisConnectionError("nothing, not even a PONG, on the Pub/Sub connection")
        self._pong_due = True
        await conn.send_command("PING")
        if self._sweep:
            feeds = [f for f in self._by_channel.values() if f.started and f.listening]
            for feed, length in await self._check_lengths(feeds):
                if length > feed.last:
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

    # -- reading the games that rang ---------------------------------------------------------

    def _pull(self, feed: Feed) -> None:
        """Read the feed's new entries soon (with those of every other feed that rang)."""
        self._due[feed.channel] = feed
        if (self._puller is None or self._puller.done()) and not self._closed:
            self._puller = asyncio.create_task(self._pull_due(), name="allfours-store-puller")

    async def _pull_due(self) -> None:
        backoff = _BACKOFF_MIN
        while self._due and not self._closed:
            taken = [self._due.pop(c) for c in list(itertools.islice(self._due, _PULL_STREAMS))]
            batch = [f for f in taken if self._by_channel.get(f.channel) is f and f.listening]
            try:
                replies = await self._read_after_last(batch)
            except Exception as exc:
                # Redis away (or a bug): try again; a feed that is no longer followed, or
                # waits for its subscription to be confirmed, is left out then.
                if isinstance(exc, _RECONNECT_ON):
                    log.debug("store hub could not read rung games: %s", exc)
                else:
                    log.exception("store hub failed to read rung games; retrying")
                for feed in batch:
                    self._due.setdefault(feed.channel, feed)
                await asyncio.sleep(backoff * random.uniform(0.5, 1.0))  # noqa: S311 - jitter
                backoff = min(backoff * 2, _BACKOFF_MAX)
                continue
            backoff = _BACKOFF_MIN
            for feed, entries in zip(batch, replies, strict=True):
                if self._by_channel.get(feed.channel) is not feed:
                    continue  # no longer followed while we read
                if entries:
                    self._deliver(feed, entries)
                if len(entries) == _READ_COUNT:
                    self._due.setdefault(feed.channel, feed)  # more to come

    async def _read_after_last(self, feeds: list[Feed]) -> list[Any]:
        """Each feed's entries after its last delivered version: one pipeline, no BLOCK."""
        if not feeds:
            return []
        async with self._commands.pipeline(transaction=False) as pipe:
            for feed in feeds:
                pipe.xrange(feed.key, min=f"{feed.last + 1}-0", count=_READ_COUNT)
            replies: list[Any] = await pipe.execute()
        return replies
