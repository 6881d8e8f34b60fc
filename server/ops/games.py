"""The games in Redis, as the operator's commands see them: every stream, read and folded."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

from domain import Event, State, fold
from server.codec import decode_event
from server.store import RedisEventStore, StoredEvent
from server.store.clients import RedisClient

_EVENTS_KEY = re.compile(rb"^allfours:\{([A-Za-z0-9_-]{1,64})\}:events$")


@dataclass(frozen=True)
class StoredGame:
    """One game's whole log as stored, decoded and folded."""

    game_id: str
    stored: list[StoredEvent]
    events: list[Event]
    state: State

    @property
    def last_at(self) -> int:
        """When the last event happened (ms since the epoch)."""
        return self.events[-1].at if self.events else 0

    @property
    def first_at(self) -> int:
        return self.events[0].at if self.events else 0


async def game_ids(redis: RedisClient) -> AsyncIterator[str]:
    """Every game id that has an event stream (SCAN: never blocks Redis; on a cluster, every
    master is scanned)."""
    async for key in redis.scan_iter(match="allfours:{*}:events", count=1_000, _type="stream"):
        match = _EVENTS_KEY.match(key if isinstance(key, bytes) else key.encode())
        if match:
            yield match[1].decode()


async def load(store: RedisEventStore, game_id: str) -> StoredGame:
    """The game's log as it is now; decoding and folding errors propagate to the caller."""
    stored = await store.read(game_id)
    events = [decode_event(e.data) for e in stored]
    return StoredGame(game_id, stored, events, fold(events))
