"""``allfours rebuild-players``: make the players' projections what the streams say. Every
player's game list gets each game they joined (at the time they joined), and the ratings are
rated again in the order they were rated live (then any rated game that ended and was never
rated, in the order the games ended): the same numbers as live."""

from __future__ import annotations

import msgspec

from domain import PlayerJoined, PlayerReplaced
from server.lobby import Lobby
from server.ops.games import game_ids, load
from server.players.games import PlayerGames
from server.players.ratings import Ratings, logged_events
from server.players.results import rated_result
from server.store import RedisEventStore


class PlayersRebuilt(msgspec.Struct, frozen=True):
    games_listed: int
    """Player game-list entries written."""
    rated: int
    """Rated games rated again."""


async def rebuild_players(store: RedisEventStore, lobby: Lobby) -> PlayersRebuilt:
    games = PlayerGames(store, lobby)
    listed = 0
    unrated: list[tuple[int, str]] = []
    async for game_id in game_ids(store.redis):
        game = await load(store, game_id)
        for event in game.events:
            if isinstance(event, PlayerJoined | PlayerReplaced) and event.player is not None:
                await games.note(game_id, [event.player], event.at)
                listed += 1
        result = rated_result(game_id, game.events)
        if result is not None:
            unrated.append((result.ended_at, game_id))
    ratings = Ratings(store, lambda game_id: logged_events(store, game_id))
    rated = await ratings.rebuild([game_id for _, game_id in sorted(unrated)])
    return PlayersRebuilt(listed, rated)
