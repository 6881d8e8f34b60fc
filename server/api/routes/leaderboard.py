"""The leaderboard: rated players, best first, read from the rating projection (a sorted set
and two hashes: three reads in two round trips, whatever the number of players)."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.di import NamedDependency
from litestar.params import Parameter

from server.api.context import AppContext
from server.api.contract.openapi import DocumentedOperation, problems
from server.api.contract.player_models import Leaderboard, LeaderboardEntry


class LeaderboardController(Controller):
    path = "/v1/leaderboard"
    tags = ("players",)

    @get(
        "/",
        operation_class=DocumentedOperation,
        operation_id="getLeaderboard",
        summary="Rated players, best first",
        description="Players with at least one finished rated game, by shown rating; "
        "``offset`` pages on (``offset + limit`` for the next page).",
        responses=problems("invalid_request", "unavailable"),
    )
    async def get_leaderboard(
        self,
        ctx: NamedDependency[AppContext],
        offset: Annotated[int, Parameter(ge=0, le=1_000_000)] = 0,
        limit: Annotated[int, Parameter(ge=1, le=100)] = 50,
    ) -> Leaderboard:
        rows, total = await ctx.players.ratings.board(offset, limit)
        entries = tuple(
            LeaderboardEntry(offset + rank + 1, player_id, name, rating, games)
            for rank, (player_id, name, rating, games) in enumerate(rows)
        )
        return Leaderboard(entries, total)
