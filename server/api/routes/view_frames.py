"""View snapshots on an SSE stream (``?view=1``): after each batch of events, the viewer's view.

A client can then play a whole game from one stream and one POST per decision, as Lichess's
board stream sends full state: it never needs to fold events itself or fetch the view again.
The stream folds the events it sends into its own state, so each snapshot is exactly the state
after the events the client has received (a snapshot carries its ``version``).
"""

from __future__ import annotations

import msgspec

from domain import State, evolve, fold, view
from server.codec import decode_event
from server.service import GameService

__all__ = ["ViewFrames"]

_encode = msgspec.json.Encoder().encode


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
        """Fold one event the stream sent."""
        self.state = evolve(self.state, decode_event(data))

    def frame(self, viewer: int | None) -> bytes:
        """An ``event: view`` message (no ``id``: a resumed stream starts after the last event
        it got, and sends a fresh snapshot when it catches up)."""
        return b"event: view\ndata: %s\n\n" % _encode(view(self.state, viewer))
