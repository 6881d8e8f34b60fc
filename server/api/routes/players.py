"""Player identities: make one (no password: a secret key), read and rename your own, list
your games, read anyone's public profile, and get a fresh seat token for a seat of yours
(another device, a lost browser)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get, patch, post
from litestar.di import NamedDependency
from litestar.params import JSONBody, Parameter

from server.api.auth import bearer_of
from server.api.context import AppContext
from server.api.contract.models import SeatGranted
from server.api.contract.openapi import WRITE_LIMITS, DocumentedOperation, problems
from server.api.contract.player_models import (
    NewPlayer,
    PlayerCreated,
    PlayerSelf,
    Profile,
    RatedGame,
    Rating,
    Rename,
)
from server.api.routes.params import PLAYER_REQUIRED, GameId, ListCursor, SeatPath
from server.lobby import GamePage
from server.players.accounts import Player
from server.players.rating_model import NEWCOMER
from server.players.ratings import Ratings

PlayerId = Annotated[str, Parameter(pattern=r"^p[0-9a-f]{16}$", description="A player's id")]
_HISTORY = 20


def player_key_of(request: Request[Any, Any, Any]) -> str | None:
    """The player key from ``Authorization: Bearer`` (never from the URL: it is a lasting
    secret)."""
    return bearer_of(request, "player key")


async def rating_of(ratings: Ratings, player_id: str) -> Rating:
    standing = (await ratings.standings([player_id])).get(player_id)
    if standing is None:
        return Rating(NEWCOMER.rating, 0, 0)
    return Rating(standing.rating, standing.games, standing.wins)


class PlayersController(Controller):
    path = "/v1/players"
    tags = ("players",)

    @post(
        "/",
        operation_class=DocumentedOperation,
        operation_id="createPlayer",
        summary="Make a player identity",
        description="No password: the answer holds the player's secret ``key``, once (only "
        "its hash is kept). It works as ``Authorization: Bearer`` for the player's own "
        "endpoints and for takeSeat (the seat is then linked to the player), and is the "
        "recovery code that signs the player in on another device. Playing without a player "
        "identity works as before.",
        status_code=201,
        responses=problems("invalid_request", "invalid_name", "quota_exceeded", *WRITE_LIMITS),
    )
    async def create_player(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[NewPlayer],
        ctx: NamedDependency[AppContext],
    ) -> PlayerCreated:
        player, key = await ctx.limiter.within_player_quota(
            request, lambda: ctx.accounts.create(data.name)
        )
        return PlayerCreated(player.player_id, player.name, key, player.created_at)

    @get(
        "/me",
        operation_class=DocumentedOperation,
        operation_id="getMe",
        security=PLAYER_REQUIRED,
        summary="Your player identity and rating",
        responses=problems("invalid_request", "unauthorized", "unavailable"),
    )
    async def get_me(
        self, request: Request[Any, Any, Any], ctx: NamedDependency[AppContext]
    ) -> PlayerSelf:
        player = await ctx.accounts.prove(player_key_of(request))
        return await self._self(ctx, player)

    @patch(
        "/me",
        operation_class=DocumentedOperation,
        operation_id="renameMe",
        security=PLAYER_REQUIRED,
        summary="Change your name",
        description="Shown on the leaderboard, your profile and the seats you take from now "
        "on; games already played keep the name they were played under.",
        responses=problems("invalid_request", "invalid_name", "unauthorized", *WRITE_LIMITS),
    )
    async def rename_me(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[Rename],
        ctx: NamedDependency[AppContext],
    ) -> PlayerSelf:
        player = await ctx.accounts.prove(player_key_of(request))
        return await self._self(ctx, await ctx.accounts.rename(player, data.name))

    @get(
        "/me/games",
        operation_class=DocumentedOperation,
        operation_id="listMyGames",
        security=PLAYER_REQUIRED,
        summary="Your games, newest first: open, in progress and finished",
        description="Every table you sat at with your player key (private ones too), as the "
        "lobby lists them (``status`` says which), newest first; ``next_cursor`` pages on. "
        "To play on from another device, ask reissueSeatToken for a seat token.",
        responses=problems("invalid_request", "unauthorized", "unavailable"),
    )
    async def list_my_games(
        self,
        request: Request[Any, Any, Any],
        ctx: NamedDependency[AppContext],
        cursor: ListCursor = None,
        limit: Annotated[int, Parameter(ge=1, le=100)] = 20,
    ) -> GamePage:
        player = await ctx.accounts.prove(player_key_of(request))
        return await ctx.players.games.page(player.player_id, cursor, limit)

    @get(
        "/{player_id:str}",
        operation_class=DocumentedOperation,
        operation_id="getProfile",
        summary="A player's public profile: name, rating and rated games",
        responses=problems("invalid_request", "not_found", "unavailable"),
    )
    async def get_profile(self, player_id: PlayerId, ctx: NamedDependency[AppContext]) -> Profile:
        player = await ctx.accounts.get(player_id)
        ratings = ctx.players.ratings
        history = await ratings.history(player_id, _HISTORY)
        return Profile(
            player.player_id,
            player.name,
            await rating_of(ratings, player_id),
            tuple(RatedGame(h.game_id, h.at, h.won, h.rating, h.change) for h in history),
        )

    @staticmethod
    async def _self(ctx: AppContext, player: Player) -> PlayerSelf:
        rating = await rating_of(ctx.players.ratings, player.player_id)
        return PlayerSelf(player.player_id, player.name, player.created_at, rating)


class SeatReissueController(Controller):
    path = "/v1/games"
    tags = ("players",)

    @post(
        "/{game_id:str}/seats/{seat:int}/token",
        operation_class=DocumentedOperation,
        operation_id="reissueSeatToken",
        security=PLAYER_REQUIRED,
        summary="A fresh seat token for a seat of yours",
        description="For a seat taken with your player key: a new seat token, shown once; "
        "the seat's old token stops working (so a lost or stolen browser loses the seat). "
        "A seat you left is taken again with takeSeat.",
        status_code=201,
        responses=problems(
            "invalid_request",
            "unauthorized",
            "forbidden",
            "not_found",
            "not_a_person",
            *WRITE_LIMITS,
        ),
    )
    async def reissue(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        seat: SeatPath,
        ctx: NamedDependency[AppContext],
    ) -> SeatGranted:
        player = await ctx.accounts.prove(player_key_of(request))
        grant = await ctx.service.reissue_token(game_id, seat, player.player_id)
        return SeatGranted(grant.game_id, grant.seat, grant.token, grant.version)
