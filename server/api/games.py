"""The game endpoints: thin handlers over ``GameService``; the rules live in ``domain``."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency
from litestar.params import FromQuery, HeaderParameter, JSONBody, Parameter, QueryParameter

from domain import (
    Abort,
    Beg,
    ComeBack,
    GiveOne,
    Leave,
    Play,
    PlayerCommand,
    Resign,
    RunPack,
    SeatCommand,
    Stand,
    State,
    StepAway,
    View,
    view,
)
from server.api.auth import token_of
from server.api.context import AppContext
from server.api.docs import (
    CREATED_LINKS,
    SEAT_LINKS,
    DocumentedOperation,
    problems,
    with_links,
)
from server.api.models import (
    AbortCommand,
    AddBot,
    BegCommand,
    ComeBackCommand,
    CommandAccepted,
    CommandBody,
    CreateGame,
    EventPage,
    GameRef,
    GiveOneCommand,
    LeaveCommand,
    PlayCommand,
    ResignCommand,
    RunPackCommand,
    SeatGranted,
    StandCommand,
    StepAwayCommand,
    TakeSeat,
)
from server.codec import decode_event, redact_bytes
from server.errors import (
    Forbidden,
    GameNotFinished,
    GameNotFound,
    SeatMismatch,
    Unauthorized,
)
from server.lobby import GamePage, Status
from server.rematch import open_rematch, rematch_made
from server.replay.archive import read_archived
from server.replay.format import EventEnvelope, Replay, replay_of_log

GameId = Annotated[str, Parameter(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="The game's id")]
SeatPath = Annotated[int, Parameter(ge=0, le=3, description="Seat 0..3, counterclockwise")]
IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        min_length=1,
        max_length=200,
        description="A client-chosen key that makes a write safe to retry. The same key with "
        "the same body returns the first outcome (``duplicate: true``) instead of acting "
        "twice; the same key with another body is refused (409 ``idempotency_key_reused``). "
        "A command's keys belong to its seat (two seats may use the same keys); creation keys "
        "are shared by every client. A refused request stores nothing, so its retry is decided "
        "anew. Keys are kept as long as the game. After a 503 (or a lost answer) the write may "
        "have been applied: retry with the same key to learn its outcome.",
    ),
]
SeatingKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        min_length=1,
        max_length=200,
        description="A random client-chosen key: a retry with the same key and body after a "
        "lost answer returns the same seat token. The key works as a secret (whoever sends "
        "it again gets the token): use a random one of at least 16 characters.",
    ),
]
SeatToken = Annotated[
    str | None,
    QueryParameter(
        name="token",
        required=False,
        description="The seat token for clients that cannot send ``Authorization: Bearer`` "
        "(browsers' EventSource). Prefer the header.",
    ),
]
MAX_VERSION = 2**53 - 1
"""The largest version a client may name: every JSON client holds it exactly, and it stays
well inside the store's 64-bit stream ids (a larger one made Redis refuse the read: a 503)."""
After = Annotated[
    int, Parameter(ge=0, le=MAX_VERSION, description="Only events after this version")
]

SEAT_REQUIRED: list[dict[str, list[str]]] = [{"seatToken": []}]
SEAT_OPTIONAL: list[dict[str, list[str]]] = [{"seatToken": []}, {}]
"""Reads work without a token too (as a spectator); with one, as that seat."""
CREATOR_REQUIRED: list[dict[str, list[str]]] = [{"creatorToken": []}]
HOST_REQUIRED: list[dict[str, list[str]]] = [{"creatorToken": []}, {"seatToken": []}]
"""The table's creator, or a person seated at it."""

_SIMPLE_COMMANDS: dict[type[Any], type[Stand | Beg | GiveOne | RunPack | SeatCommand]] = {
    StandCommand: Stand,
    BegCommand: Beg,
    GiveOneCommand: GiveOne,
    RunPackCommand: RunPack,
    StepAwayCommand: StepAway,
    ComeBackCommand: ComeBack,
    LeaveCommand: Leave,
    ResignCommand: Resign,
    AbortCommand: Abort,
}


def domain_command(body: CommandBody, seat: int) -> PlayerCommand | SeatCommand:
    if body.seat is not None and body.seat != seat:
        raise SeatMismatch(f"the body names seat {body.seat}, the path seat {seat}")
    if isinstance(body, PlayCommand):
        return Play(seat, body.card)
    return _SIMPLE_COMMANDS[type(body)](seat)


def seen_by(state: State, seat: int | None) -> int | None:
    """Whom a verified seat token shows the game to: its seat, or the spectator's view once
    its person has left the seat (the bot's hand is not theirs to see)."""
    if seat is None:
        return None
    player = state.players[seat]
    return seat if player is not None and player.person_present else None


def envelopes(
    first_version: int, datas: Sequence[bytes], viewer: int | None
) -> tuple[EventEnvelope, ...]:
    """Stored events as ``viewer`` may see them, numbered from ``first_version``."""
    return tuple(
        EventEnvelope(first_version + i, decode_event(redact_bytes(data, viewer)))
        for i, data in enumerate(datas)
    )


class GamesController(Controller):
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
        idempotency_key: IdempotencyKey = None,
    ) -> GameRef:
        made_already = (
            None if idempotency_key is None else partial(ctx.service.created_with, idempotency_key)
        )
        result = await ctx.limiter.within_table_quota(
            request,
            partial(ctx.service.create_game, data.rules, data.bots, idempotency_key),
            made_already,
        )
        return GameRef(result.game_id, result.version, result.duplicate, result.creator_token)

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
        cursor: Annotated[
            str | None,
            Parameter(
                pattern=r"^[0-9]{1,16}:[A-Za-z0-9_-]{1,64}$",
                required=False,
                description="``next_cursor`` of the previous page",
            ),
        ] = None,
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
        "/{game_id:str}/seats/{seat:int}",
        operation_id="takeSeat",
        operation_class=with_links(**SEAT_LINKS),
        security=SEAT_OPTIONAL,
        summary="Take an open seat, take over a seat left or away, or claim a rematch seat",
        description="Returns the seat token, once: keep it. With an ``Idempotency-Key`` (use "
        "a random one of at least 16 characters: it works as a secret), a retry after a lost "
        "answer returns the same token (``duplicate: true``); the server keeps only the "
        "token's hash and derives the token again from the key and a secret of the game. A "
        "seat whose person left, or who is away, may be taken over by a new person. On a "
        "rematch table, a seat is kept for the person who held it in the old game until the "
        "table's ``reserved_until``: claim it by sending that old seat token as "
        "``Authorization: Bearer``; anyone else gets 409 ``seat_reserved`` until then.",
        status_code=201,
        responses=problems(
            "invalid_request",
            "unauthorized",
            "forbidden",
            "not_found",
            "seat_taken",
            "seat_reserved",
            "name_taken",
            "invalid_name",
            "game_over",
            "no_game",
            "idempotency_key_reused",
            "payload_too_large",
            "unsupported_media_type",
            "rate_limited",
            "unavailable",
            "busy",
        ),
    )
    async def take_seat(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        seat: SeatPath,
        data: JSONBody[TakeSeat],
        ctx: NamedDependency[AppContext],
        idempotency_key: SeatingKey = None,
    ) -> SeatGranted:
        claim = await self._rematch_claim(ctx, game_id, seat, token_of(request))
        grant = await ctx.service.take_seat(
            game_id, seat, data.name, idempotency_key=idempotency_key, claim=claim
        )
        return SeatGranted(grant.game_id, grant.seat, grant.token, grant.version, grant.duplicate)

    @staticmethod
    async def _rematch_claim(ctx: AppContext, game_id: str, seat: int, old: str | None) -> bool:
        """Whether ``old`` proves its bearer held ``seat`` in the game this table is a
        rematch of (no token: no claim; a token that proves nothing: 401/403)."""
        if old is None:
            return False
        state = await ctx.service.state(game_id)
        if state.rematch_of is None:
            raise Forbidden("this table is no rematch: seat tokens of other games mean nothing")
        await ctx.auth.seat_of(state.rematch_of, old, required=True)
        ctx.auth.claim_seat(state.rematch_of, seat, old)
        return True

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
        "to go. 409 ``wrong_phase`` before the end.",
        status_code=201,
        responses=problems(
            "invalid_request",
            "unauthorized",
            "forbidden",
            "not_found",
            "wrong_phase",
            "rematch_exists",
            "payload_too_large",
            "unsupported_media_type",
            "rate_limited",
            "quota_exceeded",
            "unavailable",
            "busy",
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
        return GameRef(result.game_id, result.version, result.duplicate)

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
            "invalid_request",
            "unauthorized",
            "forbidden",
            "not_found",
            "seat_taken",
            "seat_reserved",
            "game_over",
            "payload_too_large",
            "unsupported_media_type",
            "rate_limited",
            "unavailable",
            "busy",
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
            "invalid_request",
            "unauthorized",
            "forbidden",
            "not_found",
            "too_late_to_abort",
            "game_over",
            "payload_too_large",
            "unsupported_media_type",
            "rate_limited",
            "unavailable",
            "busy",
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

    @post(
        "/{game_id:str}/seats/{seat:int}/commands",
        operation_class=DocumentedOperation,
        operation_id="sendCommand",
        security=SEAT_REQUIRED,
        summary="Act for a seat: stand, beg, give one, run the pack or play a card",
        description="Needs the seat's token. The response holds the events the command "
        "stored (bots' replies and the next deal included), as this seat may see them.",
        status_code=200,
        responses=problems(
            "invalid_request",
            "seat_mismatch",
            "unauthorized",
            "forbidden",
            "not_found",
            "not_your_turn",
            "wrong_phase",
            "card_not_in_hand",
            "must_follow_suit",
            "undertrump_forbidden",
            "give_one_forbidden",
            "game_over",
            "not_a_person",
            "already_away",
            "not_away",
            "too_late_to_abort",
            "version_conflict",
            "idempotency_key_reused",
            "unknown_card",
            "payload_too_large",
            "unsupported_media_type",
            "rate_limited",
            "unavailable",
            "busy",
        ),
    )
    async def send_command(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        seat: SeatPath,
        data: JSONBody[CommandBody],
        ctx: NamedDependency[AppContext],
        idempotency_key: IdempotencyKey = None,
    ) -> CommandAccepted:
        token = token_of(request)
        claim = ctx.auth.claim_seat(game_id, seat, token)
        assert token is not None
        command = domain_command(data, seat)
        kind = type(data).__struct_config__.tag
        outcome = "error"
        try:
            with ctx.metrics.store_latency.time():
                result = await ctx.service.play(
                    game_id,
                    command,
                    # Keys are the client's: two seats may well both count 1, 2, 3... (and
                    # the service scopes them to the token that holds the seat).
                    command_id=None if idempotency_key is None else f"seat{seat}:{idempotency_key}",
                    expected_version=data.expected_version,
                    token=token,  # checked where the command is stored, in the same step
                )
            outcome = "duplicate" if result.duplicate else "ok"
        except (Unauthorized, Forbidden) as exc:
            outcome = exc.code
            raise
        except Exception as exc:
            outcome = getattr(exc, "code", "error")
            # Any refusal (a rule, a version conflict, a reused key) may tell something about
            # the seat: only its holder hears it. Anyone else learns only that the token is bad.
            await ctx.auth.verify(claim, token)
            raise
        finally:
            ctx.metrics.count_command(str(kind), outcome)
        if result.duplicate:
            # What was recorded when the command was first decided: its events and the state
            # they made, not a later one (the seat may have moved on, or changed hands).
            count = result.version - result.first_version + 1
            events = await ctx.service.read_events(game_id, result.first_version - 1, count)
            stored = [e.data for e in events]
            state = await ctx.service.state_at(game_id, result.version)
        else:
            stored = list(result.stored)
            state = await ctx.service.state_after(game_id, result.version)
        viewer = seen_by(state, seat)
        return CommandAccepted(
            game_id=game_id,
            first_version=result.first_version,
            version=result.version,
            duplicate=result.duplicate,
            events=envelopes(result.first_version, stored, viewer),
            view=view(state, viewer),
        )

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
        viewer = seen_by(await ctx.service.state(game_id), seat)
        stored = await ctx.service.read_events(game_id, after, limit)
        if not stored:
            return EventPage(game_id, (), after)
        page = envelopes(stored[0].version, [e.data for e in stored], viewer)
        return EventPage(game_id, page, stored[-1].version)

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
