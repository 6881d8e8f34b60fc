"""The per-process cache of game states: each game's latest state and seed, brought up to the
store's version on demand, the least recently used dropped beyond ``capacity``."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from domain import Event, State, fold
from server.codec import decode_event
from server.errors import GameNotFound
from server.store import EventStore, StoredEvent, StoreRegressed

__all__ = ["Cached", "StateCache"]


@dataclass(slots=True)
class Cached:
    state: State
    seed: str


class StateCache:
    def __init__(self, store: EventStore, capacity: int) -> None:
        self._store = store
        self._entries: OrderedDict[str, Cached] = OrderedDict()
        self._capacity = capacity

    def peek(self, game_id: str) -> Cached | None:
        """The cached entry as it is (maybe behind the store), or None."""
        return self._entries.get(game_id)

    async def cached_or_load(self, game_id: str) -> Cached:
        """The cached entry (a command is decided on it; a conflict fast-forwards), else loaded."""
        entry = self._entries.get(game_id)
        if entry is None:
            return await self.fresh(game_id)
        self._entries.move_to_end(game_id)
        return entry

    async def fresh(self, game_id: str) -> Cached:
        """The cached state brought up to the store's version (loaded if not cached)."""
        entry = self._entries.get(game_id)
        if entry is None:
            seed = await self._store.get_secret(game_id)
            if seed is None:
                raise GameNotFound(f"no game {game_id!r}")
            entry = Cached(State(), seed)
        seen = entry.state.version
        try:
            # One round trip: read from the last event we know, inclusive. If the store no
            # longer has it, the store went back behind our cache.
            got = await self._store.read(game_id, after=max(seen - 1, 0))
            if seen and (not got or got[0].version != seen):
                raise StoreRegressed(game_id, seen, got[-1].version if got else 0)
            newer = got[1:] if seen else got
            if newer:
                entry = Cached(fold(decoded(newer), entry.state), entry.seed)
        except StoreRegressed:
            # The store is behind what we saw (restored from an older backup, or it lost
            # writes): the cache is a lie now. Rebuild from what the store really holds.
            self._entries.pop(game_id, None)
            entry = Cached(fold(decoded(await self._store.read(game_id))), entry.seed)
        if entry.state.version == 0:
            raise GameNotFound(f"no game {game_id!r}")
        self.remember(game_id, entry)
        return entry

    def remember(self, game_id: str, entry: Cached) -> None:
        self._entries[game_id] = entry
        self._entries.move_to_end(game_id)
        while len(self._entries) > self._capacity:
            self._entries.popitem(last=False)


def decoded(stored: Sequence[StoredEvent]) -> list[Event]:
    return [decode_event(e.data) for e in stored]
