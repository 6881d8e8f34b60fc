"""Reads the new entries of the games that rang: a due list, drained by one task in batches.

The subscription hub marks a feed *due* when its doorbell rings (or when it must be read once
more: a start, a confirmed subscription, a sweep that found more). One task at a time reads
every due feed's entries after its last delivered version, in pipelines of ``XRANGE`` (one
round trip per batch on one server, one per node on a cluster), and hands them to the hub. So a
burst of appends costs few round trips, and a feed that never rings is never read.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from typing import Any

from .clients import RedisClient
from .doorbells import BACKOFF_MAX, BACKOFF_MIN, RETRY_ON, backoff_delay
from .subscription import Feed

__all__ = ["Puller"]

log = logging.getLogger(__name__)

_READ_COUNT = 512  # entries per stream per read
_BATCH = 256  # streams per pipeline


class Puller:
    """Drains the due feeds: ``deliver(feed, entries)`` for each one still ``followed``.

    A feed is read only while its doorbell is confirmed (``feed.listening``): until then, the
    read that follows the confirmation covers it. A failed read is tried again with backoff.
    """

    def __init__(
        self,
        commands: RedisClient,
        deliver: Callable[[Feed, list[Any]], None],
        followed: Callable[[Feed], bool],
    ) -> None:
        self._commands = commands
        self._deliver = deliver
        self._followed = followed
        self._due: dict[bytes, Feed] = {}  # by channel, in the order they rang
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    def due(self, feed: Feed) -> None:
        """Read the feed's new entries soon (with those of every other due feed)."""
        self._due[feed.channel] = feed
        if (self._task is None or self._task.done()) and not self._closed:
            self._task = asyncio.create_task(self._drain(), name="allfours-store-puller")

    def forget(self, feed: Feed) -> None:
        if self._due.get(feed.channel) is feed:
            del self._due[feed.channel]

    async def close(self) -> None:
        self._closed = True
        while self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=0.1)

    async def _drain(self) -> None:
        backoff = BACKOFF_MIN
        while self._due and not self._closed:
            taken = [self._due.pop(c) for c in list(itertools.islice(self._due, _BATCH))]
            batch = [feed for feed in taken if self._followed(feed) and feed.listening]
            try:
                replies = await self._read_after_last(batch)
            except Exception as exc:
                # Redis away (or a bug): try again; a feed that is no longer followed, or
                # waits for its subscription to be confirmed, is left out then.
                if isinstance(exc, RETRY_ON):
                    log.debug("store hub could not read rung games: %s", exc)
                else:
                    log.exception("store hub failed to read rung games; retrying")
                for feed in batch:
                    self._due.setdefault(feed.channel, feed)
                await asyncio.sleep(backoff_delay(backoff))
                backoff = min(backoff * 2, BACKOFF_MAX)
                continue
            backoff = BACKOFF_MIN
            for feed, entries in zip(batch, replies, strict=True):
                if not self._followed(feed):
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
