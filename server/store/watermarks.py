"""Remembers the highest version seen per game, to notice a store that went back in time."""

from __future__ import annotations

from .errors import StoreRegressed

__all__ = ["Watermarks"]


class Watermarks:
    """Highest version this process has seen for each recently used game (bounded, LRU-ish).

    Forgetting a game only weakens detection for it, never correctness, so eviction is cheap:
    the least recently *updated* game goes first.
    """

    def __init__(self, capacity: int = 100_000) -> None:
        self._seen: dict[str, int] = {}
        self._capacity = capacity

    def get(self, game_id: str) -> int:
        return self._seen.get(game_id, 0)

    def note(self, game_id: str, version: int) -> None:
        """The store holds *at least* ``version`` events (e.g. a read returned that one)."""
        if version > self._seen.get(game_id, 0):
            self._set(game_id, version)

    def check(self, game_id: str, current: int, seen_before: int) -> None:
        """The store answered that the game's *current* version is ``current``.

        ``seen_before`` must be :meth:`get` taken *before* the request was sent: replies on
        different connections can be processed out of order, so only a version seen before
        asking is proof that the answer should have been at least that high (Redis itself is
        linearizable). Raises :class:`StoreRegressed` if ``current`` is lower, after resetting
        the watermark so that callers who resync are not told twice.
        """
        if current < seen_before:
            if current < self._seen.get(game_id, 0):
                self._set(game_id, current)
            raise StoreRegressed(game_id, seen_before, current)
        self.note(game_id, current)

    def _set(self, game_id: str, version: int) -> None:
        seen = self._seen
        seen.pop(game_id, None)  # re-insert at the end: dict order doubles as recency
        seen[game_id] = version
        if len(seen) > self._capacity:
            del seen[next(iter(seen))]
