"""Each player's games: a sorted set per player of the games they sat at, scored by when the
game was made, so "my games" pages like the lobby (newest first, the lobby's listings). A
projection written after the events: ``note`` after a change of seats, rebuilt from the
streams by the operator tool like the lobby."""

from __future__ import annotations

from domain import State
from server.lobby import GamePage, Lobby
from server.players.accounts import player_key
from server.store import RedisEventStore


def games_key(player_id: str) -> str:
    """Sorted set: game id -> its creation time (ms). In the player's slot."""
    return f"{player_key(player_id)}:games"


def joined_players(before: State, after: State) -> list[str]:
    """Player ids seated by the change from ``before`` to ``after`` (a join or a takeover)."""
    if before.players is after.players:
        return []
    joined = {p.player for p in after.players if p is not None and p.player is not None}
    joined -= {p.player for p in before.players if p is not None and p.player is not None}
    return sorted(joined)


class PlayerGames:
    def __init__(self, store: RedisEventStore, lobby: Lobby) -> None:
        self._redis = store.redis
        self._lobby = lobby

    async def note(self, game_id: str, player_ids: list[str], created_at: int) -> None:
        """Add the game to each player's list (again: harmless)."""
        async with self._redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.zadd(games_key(player_id), {game_id: created_at})
            await pipe.execute()

    async def page(self, player_id: str, cursor: str | None, limit: int) -> GamePage:
        return await self._lobby.page_of(games_key(player_id), cursor, limit)
