"""The command endpoint: a seat acts (moves and seat commands), authenticated before anything
is looked up, answered with what it stored as that seat may see it."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

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
    StepAway,
    view,
)
from server.api.auth import token_of
from server.api.context import AppContext
from server.api.contract.models import (
    AbortCommand,
    BegCommand,
    ComeBackCommand,
    CommandAccepted,
    CommandBody,
    GiveOneCommand,
    LeaveCommand,
    PlayCommand,
    ResignCommand,
    RunPackCommand,
    StandCommand,
    StepAwayCommand,
)
from server.api.contract.openapi import (
    WRITE_LIMITS,
    DocumentedOperation,
    problems,
)
from server.api.routes.params import SEAT_REQUIRED, GameId, IdempotencyKey, SeatPath
from server.api.routes.viewing import envelopes, seen_by
from server.errors import (
    Forbidden,
    SeatMismatch,
    Unauthorized,
)

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


class CommandsController(Controller):
    """A seat's commands."""

    path = "/v1/games"
    tags = ("games",)

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
            *WRITE_LIMITS,
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
        return await accept_command(ctx, game_id, seat, data, token_of(request), idempotency_key)


async def accept_command(
    ctx: AppContext,
    game_id: str,
    seat: int,
    data: CommandBody,
    token: str | None,
    idempotency_key: str | None,
) -> CommandAccepted:
    """``sendCommand`` once its request is read: the route above and the edge's lane for
    well-formed commands (``command_lane``) both answer with this."""
    claim = await ctx.auth.claim_seat(game_id, seat, token)
    assert token is not None
    kind = type(data).__struct_config__.tag
    try:
        # Verified before the command is decided, not only where it is stored: a forged
        # token's command decided first told the rules' verdict on the seat's cards by
        # the metrics' outcome and by its time (a legal card made the bots reply before
        # the append refused it), card by card the seat's hand (an outside review).
        await ctx.auth.verify(claim, token)
    except Unauthorized:
        ctx.metrics.count_command(str(kind), Unauthorized.code)
        raise
    command = domain_command(data, seat)
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
        # Any refusal (a rule, a version conflict, a reused key) may tell something about
        # the seat: only its holder hears it, or has it counted. A token replaced since it
        # was verified above learns only that it is bad.
        try:
            await ctx.auth.verify(claim, token)
        except Unauthorized as refused:
            outcome = refused.code
            raise
        outcome = getattr(exc, "code", "error")
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
