"""View snapshots on an SSE stream (``?view=1``): after each batch of events, the viewer's view.

A client can then play a whole game from one stream and one POST per decision, as Lichess's
board stream sends full state: it never needs to fold events itself or fetch the view again.
The stream folds the events it sends into its own state, so each snapshot is exactly the state
after the events the client has received (a snapshot carries its ``version``).

A game's streams share that work: the hub hands every live subscriber of a game the same
stored event object, so the state after it is folded once (:class:`_Shared`, keyed by that
object, kept alive by the entry so its identity cannot be reused) and each viewer's frame of
a state is encoded once. Events read from the store by one stream alone (a catch-up) are new
objects: that stream folds them itself. A store that went back and reused versions holds new
objects too, so nothing folded before is taken for them.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain import State, evolve, fold, view
from server.codec import decode_event
from server.service import GameService

__all__ = ["ViewFrames"]

_encode = msgspec.json.Encoder().encode


class _Shared:
    """The last ``size`` entries of ``key -> (kept object, value)``, oldest dropped first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: dict[Any, tuple[object, Any]] = {}

    def get(self, key: Any, kept: object) -> Any:
        hit = self._entries.get(key)
        return hit[1] if hit is not None and hit[0] is kept else None

    def put(self, key: Any, kept: object, value: Any) -> None:
        if len(self._entries) >= self._size:
            del self._entries[next(iter(self._entries))]
        self._entries[key] = (kept, value)


_STATES = _Shared(2_048)
"""The state after a live event: (id of the event's bytes) -> state."""
_FRAMES = _Shared(4_096)
"""A viewer's frame of a state: (id of the state, viewer) -> frame."""


class ViewFrames:
    """The state a stream has sent so far, and its view frames."""

    def __init__(self, state: State) -> None:
        self.state = state

    @classmethod
    async def at(cls, service: GameService, game_id: str, version: int) -> ViewFrames:
        """Start from the game as it was at ``version`` (where the stream resumes)."""
        stored = await service.read_events(game_id, 0, version) if version else []
        return cls(fold(decode_event(e.data) for e in stored))

    def see(self, data: bytes) -> None:
        """Fold one event the stream sent (folded once for every stream given this object)."""
        after: State | None = _STATES.get(id(data), data)
        if after is None or after.version != self.state.version + 1:
            after = evolve(self.state, decode_event(data))
            _STATES.put(id(data), data, after)
        self.state = after

    def frame(self, viewer: int | None) -> bytes:
        """An ``event: view`` message (no ``id``: a resumed stream starts after the last event
        it got, and sends a fresh snapshot when it catches up)."""
        state = self.state
        built: bytes | None = _FRAMES.get((id(state), viewer), state)
        if built is None:
            built = b"event: view\ndata: %s\n\n" % _encode(view(state, viewer))
            _FRAMES.put((id(state), viewer), state, built)
        return built
