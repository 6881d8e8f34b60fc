"""One subscriber's view of a game: stored events, then live ones, with no gap and no duplicate.

A :class:`Subscription` tracks ``position``, the last version it handed out. It first reads
what is stored after its start position (in pages), then takes live events from its bounded
queue, skipping versions it already has and filling any hole from the store. The one ordering
that makes this exact: a subscriber joins its :class:`Feed` *before* its first store read, and
the feed learns its start version *before* any of its subscribers reads the store. Then every
event is either old enough to be in that first read or new enough to reach the queue.

A consumer with nothing in hand may *park* its subscription on a sink (:meth:`Subscription.park`):
while parked, each batch of live events that follows on from ``position`` goes straight to the
sink, called by the hub as it delivers (no queue, no task woken: with thousands of streams the
wake-ups were most of a frame's cost). A batch the sink declines, a gap, a failure or a close
ends the parking, and the batch is queued as before, so the consumer's own loop handles it.

The hub that fills the queues (:mod:`server.store.hub`) is seen only through
:class:`FeedHost`, so this module does not depend on it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Protocol, Self

from .errors import ResyncRequired, SubscriberLagged, SubscriptionDropped
from .keys import bell_channel, events_key
from .model import StoredEvent

__all__ = ["Feed", "FeedHost", "Sink", "Subscription"]

_PAGE = 500  # events per store read while a subscription catches up

Sink = Callable[[Sequence[StoredEvent]], bool]
"""Takes a batch of live events, in order, following on from the subscription's position:
True once they are handled, False to decline them (they are then queued for the consumer)."""


class Feed:
    """A hub's state for one followed game: its keys, where delivery is, and who listens."""

    __slots__ = (
        "channel",
        "game_id",
        "key",
        "last",
        "listening",
        "started",
        "starting",
        "subscribers",
    )

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.key = events_key(game_id).encode()
        self.channel = bell_channel(game_id).encode()  # where each append rings
        self.last = 0  # highest version pushed to the subscribers (valid once started)
        self.started = False
        self.starting: asyncio.Task[None] | None = None
        self.listening = False  # Redis confirmed our subscription to the channel
        self.subscribers: set[Subscription] = set()

    def deliver(self, events: Sequence[StoredEvent]) -> None:
        """Push a batch of live events (in order, new ones) to every subscriber, without
        waiting (see :class:`Subscription`)."""
        if not events:
            return
        self.last = events[-1].version
        for subscription in list(self.subscribers):
            subscription._push(events)

    def drop(self, failure: type[SubscriptionDropped], reason: str) -> None:
        """End every subscription with ``failure`` (each leaves the feed)."""
        for subscription in list(self.subscribers):
            subscription._fail(failure(self.game_id, subscription.position, reason))


class FeedHost(Protocol):
    """What a subscription asks of the hub that feeds it."""

    async def ready(self, feed: Feed) -> None:
        """Return once the feed's start version is fixed (before the first store read)."""
        ...

    async def read(self, game_id: str, after: int, limit: int) -> list[StoredEvent]:
        """Stored events after ``after`` (at most ``limit``), through the hub's shared slots."""
        ...

    async def store_behind(self, game_id: str, position: int) -> bool:
        """Whether the store holds fewer than ``position`` events of the game."""
        ...

    def leave(self, subscription: Subscription) -> None:
        """The subscription is closed or failed: stop feeding it."""
        ...


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

    def __init__(self, host: FeedHost, feed: Feed, after: int, queue_size: int) -> None:
        self.game_id = feed.game_id
        self.feed = feed
        self.position = after  # last version handed to the consumer
        self._host = host
        # None is a wake-up call (close / failure), never an event.
        self._queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue(queue_size)
        self._backlog: deque[StoredEvent] = deque()  # contiguous, in order, from the store
        self._held: StoredEvent | None = None  # a live event waiting for its gap to be filled
        self._caught_up = False
        self._failure: SubscriptionDropped | None = None
        self._closed = False
        self._sink: Sink | None = None
        self._parked: asyncio.Future[None] | None = None

    @property
    def closed(self) -> bool:
        return self._closed or self._failure is not None

    def next_at_hand(self) -> bool:
        """Whether the next ``__anext__`` returns (or raises) without waiting for a new append:
        False marks the end of a batch. True only when sure, since a consumer holding back
        what it has until the batch ends would hold it until the game's next append: events
        queued live that a catch-up read already delivered are dropped here, and a catch-up
        page that may be the last is no promise of more."""
        if self._failure is not None or self._closed:
            return True
        if self._backlog and self._backlog[-1].version > self.position:
            return True
        while self._held is None and not self._queue.empty():
            queued = self._queue.get_nowait()  # (a wake-up, None, comes after the flags above)
            if queued is not None and queued.version > self.position:
                self._held = queued  # where __anext__ would put it
        # The next version itself: no gap to read from the store before it.
        return self._held is not None and self._held.version == self.position + 1

    def park(self, sink: Sink) -> asyncio.Future[None] | None:
        """Hand live batches to ``sink`` from now on, if the consumer has nothing in hand (all
        stored events read, nothing queued or held); None otherwise. The future is done once
        the parking ended (a declined batch, a gap, a failure, a close, or :meth:`unpark`):
        the consumer goes back to ``__anext__``, which has whatever ended it."""
        if (
            self.closed
            or not self._caught_up
            or self._backlog
            or self._held is not None
            or not self._queue.empty()
        ):
            return None
        self._sink = sink
        self._parked = asyncio.get_running_loop().create_future()
        return self._parked

    def unpark(self) -> None:
        """Stop handing batches to the sink (they queue again)."""
        self._sink = None
        if self._parked is not None and not self._parked.done():
            self._parked.set_result(None)
        self._parked = None

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
            self._host.leave(self)
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
        await self._host.ready(self.feed)
        page = await self._host.read(self.game_id, self.position, _PAGE)
        # Resuming at or past the top: make sure the store really has `position` events,
        # or live events with reused versions would be skipped as "already seen".
        behind = (
            not page
            and self.position > 0
            and await self._host.store_behind(self.game_id, self.position)
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
            page = await self._host.read(self.game_id, self.position, missing)
            if len(page) != missing or page[-1].version != event.version - 1:
                self._fail(ResyncRequired(self.game_id, self.position, "store has a hole"))
                return
            self._backlog.extend(page)
        if event.version > self.position:
            self._backlog.append(event)
        self._held = None

    # -- called by the feed ------------------------------------------------------------------

    def _push(self, events: Sequence[StoredEvent]) -> None:
        """Hand a live batch to the sink if parked and it follows on; else queue it without
        waiting (a full queue drops the subscriber instead)."""
        sink = self._sink
        if sink is not None:
            fresh = [e for e in events if e.version > self.position]
            if not fresh:
                return
            if fresh[0].version == self.position + 1 and sink(fresh):
                self.position = fresh[-1].version
                return
            self.unpark()  # declined, or a gap to read first: the consumer's loop takes over
        for event in events:
            try:
                self._queue.put_nowait(event)
            except asyncio.QueueFull:
                self._fail(
                    SubscriberLagged(self.game_id, self.position, "subscriber queue overflow")
                )
                return

    def _fail(self, failure: SubscriptionDropped) -> None:
        """End the subscription with ``failure`` (raised by the next ``__anext__``)."""
        if self._failure is None and not self._closed:
            self._failure = failure
            self._host.leave(self)
            self._wake()

    def _wake(self) -> None:
        self.unpark()
        # If the queue is full the consumer is not waiting on it: nothing to wake.
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(None)
