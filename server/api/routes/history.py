"""A game's log: its events as the caller may see them, and a finished game's whole replay
(from the store, or from its archive file)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get
from litestar.di import NamedDependency
from litestar.params import Parameter

from server.api.auth import token_of
from server.api.context import AppContext
from server.api.contract.models import (
    EventPage,
)
from server.api.contract.openapi import (
    DocumentedOperation,
    problems,
)
from server.api.routes.params import SEAT_OPTIONAL, After, GameId, SeatToken
from server.api.routes.viewing import envelopes, seen_by
from server.codec import decode_event
from server.errors import (
    GameNotFinished,
    GameNotFound,
)
from server.replay.archive import read_archived
from server.replay.format import Replay, replay_of_log


class HistoryController(Controller):
    """The log of a game."""

    path = "/v1/games"
    tags = ("games",)

    @get(
        "/{game_id:str}/events",
        operation_class=DocumentedOperation,
        operation_id="listEvents",
        security=SEAT_OPTIONAL,
        summary="The event log as the caller may see it",
        description="Events after version ``after``, at most ``limit``. Other seats' cards "
        "and the stock are always blanked out (null) here, even after the end: once the game "
        "is over, ``getReplay`` has the whole log, every hand and the stock included.",
        responses=problems(
            "invalid_request", "unauthorized", "forbidden", "not_found", "unavailable"
        ),
    )
    async def list_events(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        ctx: NamedDependency[AppContext],
        after: After = 0,
        limit: Annotated[int, Parameter(ge=1, le=1000)] = 200,
        token: SeatToken = None,
    ) -> EventPage:
        seat = await ctx.auth.seat_of(game_id, token_of(request), required=False)
        state = await ctx.service.state(game_id)
        viewer = seen_by(state, seat)
        stored = await ctx.service.read_events(game_id, after, limit)
        if not stored:
            return EventPage(game_id, (), after, state.version)
        page = envelopes(stored[0].version, [e.data for e in stored], viewer)
        last = stored[-1].version
        # (events stored after the state was read may be in the page: the version is their last)
        return EventPage(game_id, page, last, max(state.version, last))

    @get(
        "/{game_id:str}/replay",
        operation_class=DocumentedOperation,
        operation_id="getReplay",
        summary="A finished game's full log and seed",
        description="Every event unredacted (every hand and the stock) and the seed, for replay "
        "viewers and for checking the deals. Check a replay without our code: the recipe is "
        "``docs/REPLAY_VERIFICATION.md`` in the repository, with test vectors served by "
        "``getReplayVerification`` (``GET /v1/replay-verification``). 409 "
        "``game_not_finished`` until the game is over (aborted and expired games included: "
        "the seed is revealed at every end).",
        responses=problems("invalid_request", "not_found", "game_not_finished", "unavailable"),
    )
    async def get_replay(self, game_id: GameId, ctx: NamedDependency[AppContext]) -> Replay:
        try:
            state = await ctx.service.state(game_id)
        except GameNotFound:
            # Archived (``allfours archive``): the same replay, from its file.
            archived = read_archived(ctx.settings.archive_dir, game_id)
            if archived is None:
                raise
            return archived
        if state.seed is None:
            raise GameNotFinished("the full log is published when the game is over")
        stored = await ctx.service.read_events(game_id)
        log = ((e.version, decode_event(e.data)) for e in stored)
        return replay_of_log(game_id, state.seed, state.seed_commitment, log)
