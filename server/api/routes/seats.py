"""The seat endpoints: a person takes a seat (or takes one over, or claims a rematch seat),
the creator or a seated person seats a bot."""

from __future__ import annotations

from functools import partial
from typing import Any

from litestar import Controller, Request, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from server.api.auth import token_of
from server.api.context import AppContext
from server.api.contract.models import (
    AddBot,
    GameRef,
    SeatGranted,
    TakeSeat,
)
from server.api.contract.openapi import (
    CREATED_LINKS,
    SEAT_LINKS,
    SEAT_REFUSALS,
    WRITE_LIMITS,
    problems,
    with_links,
)
from server.api.routes.params import (
    HOST_REQUIRED,
    PLAYER_REQUIRED,
    SEAT_OPTIONAL,
    GameId,
    SeatPath,
    SecretKey,
)
from server.errors import (
    Forbidden,
)
from server.players.keys import player_of
from server.tokens import claim_of


class SeatsController(Controller):
    """Seats of a table: people and bots."""

    path = "/v1/games"
    tags = ("games",)

    @post(
        "/{game_id:str}/seats/{seat:int}",
        operation_id="takeSeat",
        operation_class=with_links(**SEAT_LINKS),
        security=[*SEAT_OPTIONAL, *PLAYER_REQUIRED],
        summary="Take an open seat, take over a seat left or away, or claim a rematch seat",
        description="Returns the seat token, once: keep it. With an ``Idempotency-Key`` (use "
        "a random one of at least 16 characters: it works as a secret), a retry after a lost "
        "answer returns the same token (``duplicate: true``); the server keeps only the "
        "token's hash and derives the token again from the key and a secret of the game. A "
        "seat whose person left, or who is away, may be taken over by a new person. On a "
        "rematch table, a seat is kept for the person who held it in the old game until the "
        "table's ``reserved_until``: claim it by sending that old seat token as "
        "``Authorization: Bearer``; anyone else gets 409 ``seat_reserved`` until then. "
        "With a player key as ``Authorization: Bearer`` the seat is linked to that player "
        "(listMyGames lists the game; reissueSeatToken gives a fresh token on any device), "
        "and a rematch seat the player held is theirs to claim; a player holds one seat of a "
        "table (409 ``already_seated``: a seat they left is theirs to take back, no other). "
        "A retry after the seat's token was replaced (re-issued, or the seat taken over) is "
        "409 ``seat_taken``, never the dead token. A seat token of this table claims "
        "nothing here: 403, or 401 once its seat has passed to someone else. A private "
        "table needs its ``invite`` in the body (403 without it).",
        status_code=201,
        responses=problems(
            *SEAT_REFUSALS,
            "seat_taken",
            "already_seated",
            "seat_reserved",
            "name_taken",
            "invalid_name",
            "game_over",
            "no_game",
            "rated_table",
            "idempotency_key_reused",
            *WRITE_LIMITS,
        ),
    )
    async def take_seat(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        seat: SeatPath,
        data: JSONBody[TakeSeat],
        ctx: NamedDependency[AppContext],
        idempotency_key: SecretKey = None,
    ) -> SeatGranted:
        bearer = token_of(request)
        player_id = None
        if bearer is not None and player_of(bearer) is not None:
            player_id = (await ctx.accounts.prove(bearer)).player_id
            claim = await self._player_claim(ctx, game_id, seat, player_id)
        else:
            claim = await self._rematch_claim(ctx, game_id, seat, bearer)
        grant = await ctx.service.take_seat(
            game_id,
            seat,
            data.name,
            idempotency_key=idempotency_key,
            claim=claim,
            player_id=player_id,
            invite=data.invite,
        )
        return SeatGranted(grant.game_id, grant.seat, grant.token, grant.version, grant.duplicate)

    @staticmethod
    async def _rematch_claim(ctx: AppContext, game_id: str, seat: int, old: str | None) -> bool:
        """Whether ``old`` proves its bearer held ``seat`` in the game this table is a
        rematch of (no token: no claim; a token that proves nothing: 401/403)."""
        if old is None:
            return False
        claim = claim_of(old)
        if claim is not None and claim.game_id == game_id:
            # A token of this very table (one whose seat was since taken over, as often as
            # not): a dead one hears the 401 it gets everywhere, a live one what it is.
            await ctx.auth.verify(claim, old)
            if (await ctx.service.state(game_id)).players[claim.seat] is None:
                # Left before the start, and nobody sat there since: the token outlives it.
                raise Forbidden("this token's seat was left: take a seat without it")
            raise Forbidden(
                "this token holds a seat of this table already: take another without it"
            )
        state = await ctx.service.state(game_id)
        if state.rematch_of is None:
            raise Forbidden("this table is no rematch: seat tokens of other games mean nothing")
        await ctx.auth.seat_of(state.rematch_of, old, required=True)
        await ctx.auth.claim_seat(state.rematch_of, seat, old)
        return True

    @staticmethod
    async def _player_claim(ctx: AppContext, game_id: str, seat: int, player_id: str) -> bool:
        """Whether the player held ``seat`` in the game this table is a rematch of."""
        state = await ctx.service.state(game_id)
        if state.rematch_of is None:
            return False
        held = (await ctx.service.state(state.rematch_of)).players[seat]
        return held is not None and held.player == player_id

    @post(
        "/{game_id:str}/seats/{seat:int}/bot",
        operation_id="addBot",
        operation_class=with_links(**CREATED_LINKS),
        security=HOST_REQUIRED,
        summary="Seat a bot in an open seat",
        description="Only the table's creator (its ``creator_token``) or a person seated at "
        "it (their seat token) may: a stranger cannot fill a table made for friends.",
        status_code=201,
        responses=problems(
            *SEAT_REFUSALS,
            "seat_taken",
            "seat_reserved",
            "game_over",
            *WRITE_LIMITS,
        ),
    )
    async def add_bot(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        seat: SeatPath,
        data: JSONBody[AddBot],
        ctx: NamedDependency[AppContext],
    ) -> GameRef:
        await ctx.auth.require_host(game_id, token_of(request), partial(ctx.service.state, game_id))
        result = await ctx.service.add_bot(game_id, seat, data.kind)
        return GameRef(result.game_id, result.version)
