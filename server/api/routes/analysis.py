"""Analysis of a finished game: for each decision, what was played beside what the ``strong``
bot prefers from the same seat's information, with the estimated chance to win after each (as
Lichess shows a game's analysis). Computed on demand in the bot workers, then kept in Redis
(``server.service.analyses``)."""

from __future__ import annotations

from litestar import Controller, get
from litestar.di import NamedDependency

from server.api.context import AppContext
from server.api.contract.models import AnalysedMove, Analysis
from server.api.contract.openapi import DocumentedOperation, problems
from server.api.routes.params import GameId

__all__ = ["AnalysisController"]


class AnalysisController(Controller):
    path = "/v1/games"
    tags = ("games",)

    @get(
        "/{game_id:str}/analysis",
        operation_class=DocumentedOperation,
        operation_id="getAnalysis",
        summary="A finished game's decisions beside the strong bot's choices",
        description="For each decision of a finished game (a stand, a beg, giving one, "
        "running the pack, a card), the action played and the ``strong`` bot's preferred one "
        "for that seat, each with the estimated chance that the seat's team wins the game "
        "after it, from the seat's information at that moment only. ``game_not_finished`` "
        "until the game is over, as for the replay. Computed on the first call (a second or "
        "more of a bot worker), then kept for a week and served by any instance. Workers too "
        "busy to finish it in time: 503 ``bots_busy``, ask again.",
        responses=problems(
            "invalid_request", "not_found", "game_not_finished", "unavailable", "bots_busy"
        ),
    )
    async def get_analysis(self, game_id: GameId, ctx: NamedDependency[AppContext]) -> Analysis:
        moves = await ctx.analyses.of(game_id)
        return Analysis(game_id, tuple(AnalysedMove(*move) for move in moves))
