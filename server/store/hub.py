"""Live subscriptions: a doorbell per append, and reads of only the games that rang.

Redis connections must grow with processes, not with browsers, and the work per append must not
grow with the number of games followed. So:

- every append ``PUBLISH``es the new version on the game's *doorbell* channel, atomically, from
  the append script (:mod:`server.store.lua`);
- the hub keeps one :class:`~server.store.subscription.Feed` per followed game, and **one**
  Pub/Sub connection per process subscribed to their channels
  (:class:`~server.store.doorbells.Doorbells`);
- a doorbell puts its feed on the *due* list; one task reads the new entries of every due feed
  (a pipeline of ``XRANGE``, one per rung game, through the command client:
  :mod:`server.store.puller`), and the hub pushes them into the subscribers' bounded queues
  without waiting: a subscriber whose queue is full is dropped
  (:class:`~server.store.errors.SubscriberLagged`) rather than slowing the others.

So an idle followed game costs an entry in Redis' Pub/Sub table and nothing per append. (The
hub used to block in one ``XREAD`` naming every followed stream: each append to any of them
re-sent, re-parsed and re-registered them all.)

No gap: a feed's start version (XLEN) is read after its SUBSCRIBE was sent, and the feed is read
once more as soon as both that version is known and Redis has confirmed the subscription. Every
later append rings; every earlier one is covered by that read or by the subscribers' own
catch-up (see :mod:`server.store.subscription`).

Redis going away: once the doorbell connection is back, the hub compares each stream's length
with what it delivered (a shorter stream lost acknowledged events: that feed's subscribers get
:class:`~server.store.errors.ResyncRequired`) and reads each feed once more as its subscription
is confirmed: subscribers just see a pause. A read of rung games that fails is tried again. On
one server a message to a live connection is never lost; across a cluster's bus it can be, so
the cluster variant (:mod:`server.store.cluster_hub`) also *sweeps* once per round.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .clients import RedisClient
from .doorbells import Connector, Doorbells
from .entries import decode_entry
from .errors import ResyncRequired, StoreError, SubscriptionDropped
from .keys import validate_game_id
from .model import StoredEvent
from .port import EventReader
from .puller import Puller
from .subscription import Feed, Subscription

__all__ = ["SubscriptionHub"]

log = logging.getLogger(__name__)


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
        self._doorbells = Doorbells(connect, self, block_ms=block_ms)
        self._sweep = sweep
        self._queue_size = queue_size
        # Subscribers' store reads (catch-up, gap fills, feed starts) share a few slots, so a
        # crowd of subscribers arriving at once cannot inflate the command pool: connections
        # stay a function of append concurrency, not of the number of subscribers.
        self._reads = asyncio.Semaphore(read_concurrency)
        self._feeds: dict[str, Feed] = {}  # games with subscribers
        self._by_channel: dict[bytes, Feed] = {}  # feeds started (or starting): channels wanted
        self._puller = Puller(commands, self._deliver, self._follows)
        self._closed = False

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
        return subscription

    @property
    def connected(self) -> bool:
        return self._doorbells.connected

    @property
    def reconnects(self) -> int:
        return self._doorbells.reconnects

    @property
    def node(self) -> str | None:
        """The node the doorbell connection is on."""
        return self._doorbells.node

    def stats(self) -> dict[str, Any]:
        return {
            "games": len(self._feeds),
            "subscribers": sum(len(feed.subscribers) for feed in self._feeds.values()),
            "channels": self._doorbells.channels,
            # Feeds fully following their game: start version known, doorbell confirmed.
            "live": sum(f.started and f.listening for f in self._by_channel.values()),
            "connected": self.connected,
            "reconnects": self.reconnects,
            "node": self.node,
        }

    async def close(self) -> None:
        """Stop the hub; every open subscription ends with StopAsyncIteration."""
        self._closed = True
        for feed in list(self._feeds.values()):
            for subscription in list(feed.subscribers):
                subscription.close()
        await self._doorbells.close()
        await self._puller.close()

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

    # -- what the doorbells report (DoorbellListener) ----------------------------------------

    def rang(self, channel: bytes, data: bytes) -> None:
        feed = self._by_channel.get(channel)
        # The message is the new version; anything else on the channel just means "look".
        if (
            feed is not None
            and feed.started
            and feed.listening
            and not (data.isdigit() and int(data) <= feed.last)
        ):
            self._puller.due(feed)

    def listening(self, channel: bytes) -> None:
        feed = self._by_channel.get(channel)
        if feed is not None and not feed.listening:
            # From now on every append rings; read what came before the bell could.
            feed.listening = True
            if feed.started:
                self._puller.due(feed)

    def disconnected(self) -> None:
        # Until each subscription is confirmed again, a feed is not read (not even a retry):
        # its reading then covers whatever was missed meanwhile.
        for feed in self._by_channel.values():
            feed.listening = False

    async def reconnected(self) -> None:
        # Regressions first; missed entries are read as each subscription is confirmed.
        await self._check_lengths([f for f in self._by_channel.values() if f.started])

    async def round(self) -> None:
        if self._sweep:
            feeds = [f for f in self._by_channel.values() if f.started and f.listening]
            for feed, length in await self._check_lengths(feeds):
                if length > feed.last:
                    self._puller.due(feed)

    # -- feeds -------------------------------------------------------------------------------

    async def _start(self, feed: Feed) -> None:
        if self._feeds.get(feed.game_id) is feed and feed.channel not in self._by_channel:
            self._by_channel[feed.channel] = feed
            self._doorbells.want(feed.channel)
        async with self._reads:
            feed.last = await self._reader.current_version(feed.game_id)
        feed.started = True
        if feed.listening and self._by_channel.get(feed.channel) is feed:
            self._puller.due(feed)

    def _forget(self, feed: Feed) -> None:
        """The feed has no subscriber left (or was dropped): stop following its game."""
        if self._feeds.get(feed.game_id) is feed:
            del self._feeds[feed.game_id]
        if self._by_channel.get(feed.channel) is feed:
            del self._by_channel[feed.channel]
            self._doorbells.unwant(feed.channel)
        self._puller.forget(feed)

    def _follows(self, feed: Feed) -> bool:
        """Whether ``feed`` is (still) the one that follows its game."""
        return self._by_channel.get(feed.channel) is feed

    def _deliver(self, feed: Feed, entries: list[Any]) -> None:
        """Push stream entries to the feed's subscribers, skipping versions already pushed:
        one batch (a parked subscriber writes it at once)."""
        fresh: list[StoredEvent] = []
        for entry in entries:
            event = decode_entry(entry)
            if event.version > (fresh[-1].version if fresh else feed.last):
                fresh.append(event)
        feed.deliver(fresh)
        self._reader.note_seen(feed.game_id, feed.last)

    async def _check_lengths(self, feeds: list[Feed]) -> list[tuple[Feed, int]]:
        """Compare the streams' lengths with what was delivered; a shorter stream lost events.

        Regressed feeds are dropped (their subscribers get :class:`ResyncRequired`); returns
        the others with their current length."""
        if not feeds:
            return []
        # What was delivered *before* asking: the puller may deliver more meanwhile, which a
        # length read earlier would not count.
        delivered = [feed.last for feed in feeds]
        async with self._commands.pipeline(transaction=False) as pipe:
            for feed in feeds:
                pipe.xlen(feed.key)
            lengths: list[int] = await pipe.execute()
        healthy: list[tuple[Feed, int]] = []
        for feed, last, length in zip(feeds, delivered, lengths, strict=True):
            if length < last:
                log.error(
                    "store regressed for game %s: %d events, %d delivered",
                    feed.game_id,
                    length,
                    last,
                )
                self._drop(feed, ResyncRequired, f"store went back to version {length}")
            else:
                healthy.append((feed, length))
        return healthy

    def _drop(self, feed: Feed, failure: type[SubscriptionDropped], reason: str) -> None:
        feed.drop(failure, reason)
        self._forget(feed)
