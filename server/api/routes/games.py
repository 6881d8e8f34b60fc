"""The table endpoints: create, list, view, rematch and close a table; thin handlers over
``GameService`` (the rules live in ``domain``)."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency
from litestar.params import FromQuery, HeaderParameter, JSONBody, Parameter

from domain import (
    View,
    view,
)
from server.api.auth import token_of
from server.api.context import AppContext
from server.api.contract.models import (
    CreateGame,
    GameRef,
)
from server.api.contract.openapi import (
    CREATED_LINKS,
    SEAT_REFUSALS,
    WRITE_LIMITS,
    DocumentedOperation,
    problems,
    with_links,
)
from server.api.routes.params import (
    CREATOR_REQUIRED,
    SEAT_OPTIONAL,
    SEAT_REQUIRED,
    GameId,
    ListCursor,
    SeatToken,
    SecretKey,
)
from server.api.routes.viewing import seen_by
from server.errors import (
    Unauthorized,
)
from server.lobby import GamePage, Status
from server.rematch import open_rematch, rematch_made


class GamesController(Controller):
    """Tables: their creation, the lobby, a viewer's view, a rematch, the creator's abort."""

    path = "/v1/games"
    tags = ("games",)

    @post(
        "/",
        operation_id="createGame",
        operation_class=with_links(**CREATED_LINKS),
        summary="Create a game",
        description="A table with the given rule options. Seats given a bot kind are filled "
        "at once; with four bots the game is played out before this returns. A table waiting "
        "for players is closed at its ``expires_at`` (see the view). The answer holds the "
        "table's ``creator_token``, once: it seats bots (addBot) and closes the table before "
        "its first card (abortTable). Creation keys (``Idempotency-Key``) name the game: the "
        "same key and body get the same table (``duplicate: true``) and the same creator "
        "token, so the key works as a secret: use a random one (a UUID).",
        status_code=201,
        responses=problems(
            "invalid_request",
            "idempotency_key_reused",
            "payload_too_large",
            "unsupported_media_type",
            "target_too_high",
            "search_needs_a_person",
            "clock_too_short",
            "rate_limited",
            "quota_exceeded",
            "unavailable",
            "busy",
        ),
    )
    async def create_game(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[CreateGame],
        ctx: NamedDependency[AppContext],
        idempotency_key: SecretKey = None,
    ) -> GameRef:
        made_already = (
            None if idempotency_key is None else partial(ctx.service.created_with, idempotency_key)
        )
        result = await ctx.limiter.within_table_quota(
            request,
            partial(
                ctx.service.create_game,
                data.rules.as_rules(),
                data.bots,
                idempotency_key,
                private=data.private,
                stand_in=data.stand_in,
            ),
            made_already,
        )
        return GameRef(
            result.game_id, result.version, result.duplicate, result.creator_token, result.invite
        )

    @get(
        "/",
        operation_class=DocumentedOperation,
        operation_id="listGames",
        summary="List games by status, newest first",
        responses=problems("invalid_request", "unavailable"),
    )
    async def list_games(
        self,
        ctx: NamedDependency[AppContext],
        status: FromQuery[Status] = "open",
        cursor: ListCursor = None,
        limit: Annotated[int, Parameter(ge=1, le=100)] = 20,
    ) -> GamePage:
        return await ctx.service.list_games(status, cursor, limit)

    @get(
        "/{game_id:str}",
        operation_class=DocumentedOperation,
        operation_id="getGame",
        security=SEAT_OPTIONAL,
        summary="The game as the caller may see it",
        description="With a seat token, that seat's view (its hand and legal actions); "
        "without, the spectator's. ``ETag`` changes with the version: send it back in "
        "``If-None-Match`` to poll cheaply (304 while nothing changed).",
        responses=problems(
            304, "invalid_request", "unauthorized", "forbidden", "not_found", "unavailable"
        ),
        response_headers=[
            ResponseHeader(
                name="ETag",
                value='W/"12-0"',  # an example: documents the header as a string
                description="The view's version and viewer: send it back in If-None-Match",
                required=True,
                documentation_only=True,
            )
        ],
    )
    async def get_game(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        ctx: NamedDependency[AppContext],
        token: SeatToken = None,
        if_none_match: Annotated[
            str | None,
            HeaderParameter(
                name="If-None-Match",
                required=False,
                description="The ``ETag`` of the view you hold: 304 while it is current",
            ),
        ] = None,
    ) -> Response[View]:
        seat = await ctx.auth.seat_of(game_id, token_of(request), required=False)
        state = await ctx.service.state(game_id)
        viewer = seen_by(state, seat)
        etag = f'W/"{state.version}-{"s" if viewer is None else viewer}"'
        headers = {"ETag": etag, "Cache-Control": "no-cache"}
        # Weak comparison (RFC 9110 13.1.2): W/"12-0" and "12-0" name the same view.
        held = {tag.strip().removeprefix("W/") for tag in (if_none_match or "").split(",")}
        if etag.removeprefix("W/") in held or "*" in held:
            return Response(content=None, status_code=304, headers=headers)  # type: ignore[arg-type]
        return Response(view(state, viewer), headers=headers)

    @post(
        "/{game_id:str}/rematch",
        operation_id="createRematch",
        operation_class=with_links(**CREATED_LINKS),
        security=SEAT_REQUIRED,
        summary="Open the rematch of a finished game",
        description="Any person of the finished game (their seat token) may ask; everyone "
        "gets the same new table: the same rules and bots, and each person's seat kept for "
        "them for a while (claim it with the old token: see takeSeat). The old game records "
        "``RematchCreated`` with the new id, so every viewer and stream of it learns where "
        "to go. A private game's rematch is private too, with an invitation of its own in "
        "``invite`` (the same for everyone who asks): its old people claim their seats "
        "without it, anyone else needs it. 409 ``wrong_phase`` before the end.",
        status_code=201,
        responses=problems(
            *SEAT_REFUSALS,
            "wrong_phase",
            "quota_exceeded",
            *WRITE_LIMITS,
        ),
    )
    async def create_rematch(
        self, request: Request[Any, Any, Any], game_id: GameId, ctx: NamedDependency[AppContext]
    ) -> GameRef:
        await ctx.auth.seat_of(game_id, token_of(request), required=True)
        # A rematch is a new table like any other: it counts against the same quota (only
        # the request that makes it; the others find it made).
        result = await ctx.limiter.within_table_quota(
            request,
            partial(open_rematch, ctx.service, game_id),
            partial(rematch_made, ctx.service, game_id),
        )
        return GameRef(result.game_id, result.version, result.duplicate, None, result.invite)

    @post(
        "/{game_id:str}/abort",
        operation_id="abortTable",
        operation_class=DocumentedOperation,
        security=CREATOR_REQUIRED,
        summary="Close a table before its first card, as its creator",
        description="The table's creator (its ``creator_token``), seated or not, closes it "
        "(``GameAborted`` with ``seat`` null): before the first card of the game only (409 "
        "``too_late_to_abort`` after). A seated person aborts with the ``abort`` command.",
        status_code=200,
        responses=problems(
            *SEAT_REFUSALS,
            "too_late_to_abort",
            "game_over",
            *WRITE_LIMITS,
        ),
    )
    async def abort_table(
        self, request: Request[Any, Any, Any], game_id: GameId, ctx: NamedDependency[AppContext]
    ) -> GameRef:
        token = token_of(request)
        if token is None:
            raise Unauthorized("closing a table needs its creator token")
        await ctx.auth.verify_creator(game_id, token)
        result = await ctx.service.abort_table(game_id, token)
        return GameRef(result.game_id, result.version)
