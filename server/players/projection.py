"""What the players' projections hear after every stored command: who was seated (their
game lists), and the end of a rated game (the ratings). Like the lobby's listing, written
after the events and never instead of them: a failure is logged and repaired later (the
sweeper's look over watched rated tables; the operator tools' rebuilds)."""

from __future__ import annotations

import logging

from domain import State
from server.players.games import PlayerGames, joined_players
from server.players.ratings import Ratings

_log = logging.getLogger("allfours.players")


class PlayerProjection:
    def __init__(self, games: PlayerGames, ratings: Ratings) -> None:
        self.games = games
        self.ratings = ratings

    @staticmethod
    def concerned(before: State, after: State) -> bool:
        """Whether a change matters here (cheap: checked after every command)."""
        if before.players is not after.players:
            return True
        return after.rated and after.phase == "ended" and before.phase != "ended"

    async def note(self, game_id: str, before: State, after: State, at: int) -> None:
        try:
            joined = joined_players(before, after)
            if joined:
                await self.games.note(game_id, joined, at)
            if after.rated and after.phase == "ended" and before.phase != "ended":
                await self.ratings.queue(game_id)
                await self.ratings.settle()
        except Exception:
            # The command was stored: never answer it with an error. Repaired as above.
            _log.warning("player projections failed for game %s", game_id, exc_info=True)
