"""Hints: for the seat to act, every legal action with the ``master`` bot's estimate of the
seat's team's chance to win the game after it, from that seat's information only (the same
search the bots play with, run in the bot workers, off the event loop)."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get
from litestar.di import NamedDependency

from domain import RuleViolation
from server.api.auth import token_of
from server.api.context import AppContext
from server.api.contract.models import HintList
from server.api.contract.openapi import DocumentedOperation, problems
from server.api.routes.params import SEAT_REQUIRED, GameId, SeatPath, SeatToken
from server.api.routes.viewing import seen_by

__all__ = ["HintsController"]


class HintsController(Controller):
    path = "/v1/games"
    tags = ("games",)

    @get(
        "/{game_id:str}/seats/{seat:int}/hints",
        operation_class=DocumentedOperation,
        operation_id="getHints",
        security=SEAT_REQUIRED,
        summary="Hints for a seat: each legal action and its estimated chance to win",
        description="Needs the seat's token. While the seat is to act, every entry of its "
        "``legal_actions`` with the ``master`` bot's estimate of the chance that the seat's "
        "team wins the game after it, best first, computed from what the seat may see only "
        "(its hand, the cards played, the kicks: never another seat's cards). Not the seat's "
        "turn: an empty list. A rated table gives no hints (409 ``rated_table``), nor does a "
        "seat to a token whose person left it (409 ``not_a_person``). Each "
        "call searches anew (tens of milliseconds of a bot worker); workers too busy to answer "
        "in time: 503 ``bots_busy``, ask again.",
        responses=problems(
            "invalid_request",
            "unauthorized",
            "forbidden",
            "not_found",
            "rated_table",
            "not_a_person",
            "unavailable",
            "bots_busy",
        ),
    )
    async def get_hints(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        seat: SeatPath,
        ctx: NamedDependency[AppContext],
        token: SeatToken = None,
    ) -> HintList:
        credential = token_of(request)  # the header's, else the query's ``token``
        claim = await ctx.auth.claim_seat(game_id, seat, credential)
        assert credential is not None
        await ctx.auth.verify(claim, credential)  # before the game is even looked at
        state = await ctx.service.state(game_id)
        if state.rated:
            raise RuleViolation("rated_table", "a rated game is played without hints")
        if seen_by(state, seat) is None:
            # Its person left: the bot's hand is not theirs to see, nor searched for them.
            raise RuleViolation("not_a_person", "you left this seat: it has no hints for you")
        ranked = await ctx.service.thinker.hints(state, seat)
        return HintList.of(state.version, seat, ranked)
