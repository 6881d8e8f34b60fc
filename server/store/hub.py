"""Live subscriptions: one XREAD BLOCK loop per process, fanned out to bounded in-memory queues.

Redis connections must grow with processes, not with browsers, so a subscriber never reads
Redis on its own while it waits. The hub keeps one *feed* per game that has subscribers; a
single reader task blocks in ``XREAD BLOCK`` over all started feeds at once, on a dedicated
connection, and pushes each new entry into every subscriber's queue without ever waiting: a
subscriber whose queue is full is dropped (:class:`SubscriberLagged`) rather than slowing the
others down.

No gap, no duplicate. A subscription tracks ``position``, the last version it handed out. It
first reads what is stored after its start position (XRANGE, in pages), then takes live events
from its queue, skipping versions it already has and filling any hole from the store. The one
ordering that makes this exact: a subscriber joins its feed *before* its first store read, and
a new feed learns its start version *before* any of its subscribers reads the store. Then every
event is either old enough to be in that first read or new enough to reach the queue.

Redis going away: the reader retries with exponential backoff (jittered) and, once back, first
compares each feed's stream length with what it had delivered. A shorter stream means the store
lost acknowledged events; that feed's subscribers get :class:`ResyncRequired`. Otherwise the
loop resumes from the last delivered version of each game: subscribers just see a pause.

That reader serves a single Redis server. A Redis Cluster refuses a command whose keys lie in
different slots, so one XREAD cannot follow many games there: :class:`ClusterSubscriptionHub`
(in :mod:`server.store.cluster_hub`) replaces the reader and keeps everything else here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import deque
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from redis.exceptions import RedisClusterException, RedisError

from .errors import ResyncRequired, StoreError, SubscriberLagged, SubscriptionDropped
from .keys import bell_channel, events_key, validate_game_id
from .model import StoredEvent

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from .clients import RedisClient
    from .redis_store import RedisEventStore

__all__ = ["BaseHub", "Subscription", "SubscriptionHub"]

# What a hub's reader survives by reconnecting (redis-py's cluster client raises a few errors,
# e.g. "cannot connect to any node", outside the RedisError hierarchy).
_RECONNECT_ON: tuple[type[BaseException], ...] = (
    RedisError,
    RedisClusterException,
    OSError,
    StoreError,
)

log = logging.getLogger(__name__)

_PAGE = 500  # events per XRANGE while a subscription catches up
_XREAD_COUNT = 512  # entries per stream per XREAD reply
_BACKOFF_MIN = 0.05
_BACKOFF_MAX = 2.0


class _Feed:
    """The hub's state for one game: where the reader is, and who listens."""

    __slots__ = (
        "channel",
        "dirty",
        "game_id",
        "key",
        "last",
        "pulling",
        "started",
        "starting",
        "subscribed",
        "subscribers",
    )

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.key = events_key(game_id).encode()
        self.last = 0  # highest version the reader has pushed (valid once started)
        self.started = False
        self.starting: asyncio.Task[None] | None = None
        self.subscribers: set[Subscription] = set()
        # Used by the cluster hub only: the game's doorbell channel, whether Redis confirmed
        # our subscription to it, whether the stream may hold entries beyond `last`, and the
        # task reading them.
        self.channel = bell_channel(game_id).encode()
        self.subscribed = False
        self.dirty = False
        self.pulling: asyncio.Task[None] | None = None


class Subscription:
    """Async iterator over one game's events from version ``after + 1``, stored then live.

    Use as ``async with store.subscribe(game, after) as sub: async for event in sub: ...``.
    Iteration ends (StopAsyncIteration) when the subscription or the hub is closed. It raises

    - :class:`SubscriberLagged` if the consumer fell too far behind: resubscribe from
      ``err.position``;
    - :class:`ResyncRequired` if the store lost events it had delivered: reload the game;
    - :class:`StoreUnavailable` if Redis is down while it needs to read the store; the
      subscription stays valid and the next ``__anext__`` carries on where it stopped.
    """

    def __init__(self, hub: BaseHub, feed: _Feed, after: int, queue_size: int) -> None:
        self.game_id = feed.game_id
        self.position = after  # last version handed to the consumer
        self._hub = hub
        self._feed = feed
        # None is a wake-up call (close / failure), never an event.
        self._queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue(queue_size)
        self._backlog: deque[StoredEvent] = deque()  # contiguous, in order, from the store
        self._held: StoredEvent | None = None  # a live event waiting for its gap to be filled
        self._caught_up = False
        self._failure: SubscriptionDropped | None = None
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed or self._failure is not None

    def __aiter__(self) -> Self:
        return self

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Leave the feed; a pending ``__anext__`` ends with StopAsyncIteration."""
        if not self._closed:
            self._closed = True
            self._hub._detach(self)
            self._wake()

    async def __anext__(self) -> StoredEvent:
        while True:
            if self._failure is not None:
                raise self._failure
            if self._closed:
                raise StopAsyncIteration
            if self._backlog:
                event = self._backlog.popleft()
                if event.version <= self.position:
                    continue
                self.position = event.version
                return event
            if not self._caught_up:
                await self._catch_up()
                continue
            if self._held is None:
                self._held = await self._queue.get()
                if self._held is None:
                    continue
            await self._fill_gap_before(self._held)

    async def _catch_up(self) -> None:
        """Read one page of stored events after ``position`` into the backlog."""
        await self._hub._start_feed(self._feed)
        store = self._hub._store
        async with self._hub._reads:
            page = await store.read(self.game_id, after=self.position, limit=_PAGE)
            # Resuming at or past the top: make sure the store really has `position` events,
            # or live events with reused versions would be skipped as "already seen".
            behind = (
                not page
                and self.position > 0
                and await store.current_version(self.game_id) < self.position
            )
        if len(page) < _PAGE:
            self._caught_up = True
        if behind:
            self._fail(ResyncRequired(self.game_id, self.position, "store is behind"))
        self._backlog.extend(page)

    async def _fill_gap_before(self, event: StoredEvent) -> None:
        """Queue ``event`` for delivery, after reading any versions missing before it."""
        missing = event.version - self.position - 1
        if missing > 0:
            async with self._hub._reads:
                page = await self._hub._store.read(self.game_id, after=self.position, limit=missing)
            if len(page) != missing or page[-1].version != event.version - 1:
                self._fail(ResyncRequired(self.game_id, self.position, "store has a hole"))
                return
            self._backlog.extend(page)
        if event.version > self.position:
            self._backlog.append(event)
        self._held = None

    # -- called by the hub -------------------------------------------------------------------

    def _push(self, event: StoredEvent) -> None:
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            self._fail(SubscriberLagged(self.game_id, self.position, "subscriber queue overflow"))

    def _fail(self, failure: SubscriptionDropped) -> None:
        if self._failure is None and not self._closed:
            self._failure = failure
            self._hub._detach(self)
            self._wake()

    def _wake(self) -> None:
        # If the queue is full the consumer is not waiting on it: nothing to wake.
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(None)


class BaseHub:
    """Feeds, subscriptions and their delivery; the reader that fills the feeds is a subclass's.

    A subclass implements :meth:`_connect` (open its reading connection, called again after
    every failure), :meth:`_step` (read once: block until something happens or a timeout),
    :meth:`_feed_started` / :meth:`_feed_removed` and :meth:`_disconnect`.
    """

    def __init__(
        self,
        store: RedisEventStore,
        commands: RedisClient,
        *,
        block_ms: int = 5_000,
        queue_size: int = 1_024,
        read_concurrency: int = 4,
    ) -> None:
        self._store = store
        # Subscribers' store reads (catch-up, gap fills, feed starts) share a few slots, so a
        # crowd of subscribers arriving at once cannot inflate the command pool: connections
        # stay a function of append concurrency, not of the number of subscribers.
        self._reads = asyncio.Semaphore(read_concurrency)
        self._commands = commands
        self._block_ms = block_ms
        self._queue_size = queue_size
        self._feeds: dict[str, _Feed] = {}
        self._task: asyncio.Task[None] | None = None
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
            feed = self._feeds[game_id] = _Feed(game_id)
        subscription = Subscription(self, feed, after, self._queue_size)
        feed.subscribers.add(subscription)
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="allfours-store-hub")
        return subscription

    def stats(self) -> dict[str, Any]:
        return {
            "games": len(self._feeds),
            "subscribers": sum(len(feed.subscribers) for feed in self._feeds.values()),
            "connected": self.connected,
            "reconnects": self.reconnects,
        }

    async def close(self) -> None:
        """Stop the reader; every open subscription ends with StopAsyncIteration."""
        self._closed = True
        self._wakeup.set()
        for feed in list(self._feeds.values()):
            for subscription in list(feed.subscribers):
                subscription.close()
        for task in self._tasks():
            # A cancel that lands while redis-py is connecting can be swallowed (asyncio's
            # wait_for in Python 3.11); the loop also checks _closed, and we cancel again.
            while task is not None and not task.done():
                task.cancel()
                await asyncio.wait({task}, timeout=0.1)
            if task is not None and not task.cancelled() and task.exception() is not None:
                log.warning("store hub task failed", exc_info=task.exception())
        await self._disconnect()

    # -- feeds -------------------------------------------------------------------------------

    async def _start_feed(self, feed: _Feed) -> None:
        """Fix the version the reader starts from, once per feed, before anyone reads the store."""
        if feed.started:
            return
        if feed.starting is None or feed.starting.done():
            feed.starting = asyncio.create_task(self._init_feed(feed))
            # Its failure reaches every waiter; mark it retrieved even if all of them left.
            feed.starting.add_done_callback(lambda t: t.cancelled() or t.exception())
        # shield: one subscriber giving up must not cancel the start-up others wait for.
        await asyncio.shield(feed.starting)

    async def _init_feed(self, feed: _Feed) -> None:
        self._feed_starting(feed)
        async with self._reads:
            feed.last = await self._store.current_version(feed.game_id)
        feed.started = True
        if self._feeds.get(feed.game_id) is feed:
            self._feed_started(feed)

    def _detach(self, subscription: Subscription) -> None:
        feed = subscription._feed
        feed.subscribers.discard(subscription)
        if not feed.subscribers and self._feeds.get(feed.game_id) is feed:
            del self._feeds[feed.game_id]
            self._feed_removed(feed)

    def _drop_feed(self, feed: _Feed, failure: type[SubscriptionDropped], reason: str) -> None:
        for subscription in list(feed.subscribers):
            subscription._fail(failure(feed.game_id, subscription.position, reason))
        if self._feeds.get(feed.game_id) is feed:
            del self._feeds[feed.game_id]
            self._feed_removed(feed)

    def _deliver(self, feed: _Feed, entries: list[Any]) -> None:
        """Push stream entries (``[(b"<version>-0", {b"e": ...}), ...]``) to the subscribers."""
        for entry_id, fields in entries:
            version = int(entry_id[:-2])
            if version <= feed.last:
                continue
            command = fields.get(b"c")
            event = StoredEvent(
                version, fields[b"e"], command.decode() if command is not None else None
            )
            feed.last = version
            for subscription in list(feed.subscribers):
                subscription._push(event)
        self._store.note_seen(feed.game_id, feed.last)

    async def _check_lengths(self, feeds: list[_Feed]) -> list[tuple[_Feed, int]]:
        """Compare the streams' lengths with what was delivered; a shorter stream lost events.

        Regressed feeds are dropped (their subscribers get :class:`ResyncRequired`); returns
        the others with their current length."""
        if not feeds:
            return []
        async with self._commands.pipeline(transaction=False) as pipe:
            for feed in feeds:
                pipe.xlen(feed.key)
            lengths: list[int] = await pipe.execute()
        healthy: list[tuple[_Feed, int]] = []
        for feed, length in zip(feeds, lengths, strict=True):
            if length < feed.last:
                log.error(
                    "store regressed for game %s: %d events, %d delivered",
                    feed.game_id,
                    length,
                    feed.last,
                )
                self._drop_feed(feed, ResyncRequired, f"store went back to version {length}")
            else:
                healthy.append((feed, length))
        return healthy

    # -- the reader --------------------------------------------------------------------------

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

    # -- for subclasses ----------------------------------------------------------------------

    def _tasks(self) -> list[asyncio.Task[None] | None]:
        """The hub's background tasks, cancelled by :meth:`close`."""
        return [self._task]

    def _feed_starting(self, feed: _Feed) -> None:
        """Called before a feed's start version is read."""

    def _feed_started(self, feed: _Feed) -> None:
        """Called once a feed's start version is known (it is in ``_feeds``)."""

    def _feed_removed(self, feed: _Feed) -> None:
        """Called when a feed left ``_feeds`` (no subscriber left, or dropped)."""

    async def _connect(self) -> None:
        raise NotImplementedError

    async def _step(self) -> None:
        raise NotImplementedError

    async def _disconnect(self) -> None:
        """Close the reading connection (after a failure, or for good on close)."""


class SubscriptionHub(BaseHub):
    """Fans one process-wide XREAD BLOCK loop out to :class:`Subscription` queues (one server).

    ``blocking`` must be a single-connection client whose socket timeout exceeds
    ``block_ms``; ``commands`` serves the feed start-up reads and CLIENT UNBLOCK.
    """

    def __init__(
        self,
        store: RedisEventStore,
        commands: Redis,
        blocking: Redis,
        *,
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
        self._unblocker = commands
        self._blocking = blocking
        self._by_key: dict[bytes, _Feed] = {}
        self._kicker: asyncio.Task[None] | None = None
        self._generation = 0  # bumped whenever a feed starts
        self._reading_generation = 0  # generation of the XREAD currently in flight
        self._in_xread = False
        self._client_id: int | None = None

    async def close(self) -> None:
        await super().close()
        await self._blocking.aclose()

    def _tasks(self) -> list[asyncio.Task[None] | None]:
        return [self._task, self._kicker]

    # -- feeds -------------------------------------------------------------------------------

    def _feed_started(self, feed: _Feed) -> None:
        self._by_key[feed.key] = feed
        self._generation += 1
        self._wakeup.set()
        self._kick()

    def _feed_removed(self, feed: _Feed) -> None:
        # The reader may still name this stream in the XREAD in flight; replies for a stream
        # without a feed are ignored.
        self._by_key.pop(feed.key, None)

    # -- the reader --------------------------------------------------------------------------

    async def _connect(self) -> None:
        self._client_id = await self._blocking.client_id()
        await self._check_lengths([feed for feed in self._by_key.values() if feed.started])

    async def _disconnect(self) -> None:
        self._client_id = None

    async def _step(self) -> None:
        streams = {key: f"{feed.last}-0" for key, feed in self._by_key.items()}
        if not streams:
            self._wakeup.clear()
            await self._wakeup.wait()
            return
        self._reading_generation = self._generation
        self._in_xread = True
        try:
            reply: Any = await self._blocking.xread(
                streams,  # type: ignore[arg-type]  # redis-py's stub wants str keys only
                count=_XREAD_COUNT,
                block=self._block_ms,
            )
        finally:
            self._in_xread = False
        for key, entries in reply or ():
            feed = self._by_key.get(key)
            if feed is not None:
                self._deliver(feed, entries)

    def _kick(self) -> None:
        """Make the reader pick up a newly started feed now rather than after BLOCK expires."""
        if self._kicker is None or self._kicker.done():
            self._kicker = asyncio.create_task(self._unblock_reader())

    async def _unblock_reader(self) -> None:
        # CLIENT UNBLOCK only works once the XREAD has reached the server; until the reader
        # is blocked with the new generation of streams, poke it every few milliseconds.
        for _ in range(500):
            if self._reading_generation >= self._generation or self._client_id is None:
                return
            if self._in_xread:
                try:
                    # Even after a success keep looping: a feed may have started while this
                    # call was in flight, after the reader had already chosen its streams.
                    await self._unblocker.client_unblock(self._client_id)
                except (RedisError, OSError):
                    return  # the reader's own reconnect will use the current feeds
            await asyncio.sleep(0.002)
