"""What a finished rated game says about its players: who sat where and which team won. A
resignation is its team's loss; a seat its person left, played by the bot to the end, is
still that person's result (its player id stays on the seat)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from domain import Event, GameEnded, fold


class RatedResult(NamedTuple):
    game_id: str
    players: tuple[str, str, str, str]
    """The player id at each seat; team 0 is seats 0 and 2."""
    winner: int
    """The winning team."""
    ended_at: int
    """When the game ended (ms)."""


def rated_result(game_id: str, events: Sequence[Event]) -> RatedResult | None:
    """The result of the game logged in ``events`` if it is a rated game that ended by play
    or resignation (an aborted or expired table rates nobody); None otherwise."""
    state = fold(events)
    if not state.rated or state.phase != "ended" or state.winner is None:
        return None
    if state.end_reason not in ("target", "resigned"):
        return None
    ids = [None if p is None else p.player for p in state.players]
    if any(player_id is None for player_id in ids):
        return None
    a, b, c, d = (player_id or "" for player_id in ids)
    ended_at = next(e.at for e in reversed(events) if isinstance(e, GameEnded))
    return RatedResult(game_id, (a, b, c, d), state.winner, ended_at)
