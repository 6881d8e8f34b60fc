"""Matchmaking: join the queue (alone or with a partner), poll your ticket (the poll is the
heartbeat), leave, and the public counts. Seating is the matchmaker's (every instance runs
its pass); a seated player asks reissueSeatToken for the seat's token, so no token is ever
handed out here."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, delete, get, post
from litestar.di import NamedDependency
from litestar.exceptions import ValidationException
from litestar.params import JSONBody

from server.api.context import AppContext
from server.api.contract.openapi import WRITE_LIMITS, DocumentedOperation, problems
from server.api.contract.player_models import JoinQueue, QueueStats, Ticket
from server.api.routes.params import PLAYER_REQUIRED
from server.api.routes.players import player_key_of
from server.players.matching import band_of
from server.players.matchmaking import Queued
from server.players.matchmaking import Ticket as QueueTicket


def ticket_of(queued: Queued, now_ms: int) -> Ticket:
    """The answer for a standing: a match not yet made shows as waiting (its table is being
    made: a moment later it is seated)."""
    seat, ticket = queued.seat, queued.ticket
    counts = {"waiting": queued.waiting, "playing": queued.playing}
    if ticket is None:
        return Ticket("idle", None, None, None, band_of(0), None, None, False, **counts)
    band = band_of(now_ms - ticket.since)
    if queued.status == "seated" and seat is not None:
        return Ticket(
            "seated",
            ticket.since,
            ticket.partner,
            ticket.bots_after_s,
            band,
            seat.game_id,
            seat.seat,
            seat.rated,
            **counts,
        )
    rated = True if seat is None else seat.rated
    return Ticket(
        "waiting",
        ticket.since,
        ticket.partner,
        ticket.bots_after_s,
        band,
        None,
        None,
        rated,
        **counts,
    )


class MatchmakingController(Controller):
    path = "/v1/matchmaking"
    tags = ("players",)

    @post(
        "/",
        operation_class=DocumentedOperation,
        operation_id="joinQueue",
        security=PLAYER_REQUIRED,
        summary="Join the matchmaking queue",
        description="Four people are seated at a new rated table, matched by rating within a "
        "band that widens while they wait. Two players who name each other as ``partner`` "
        "are seated as partners. With ``bots_after_s``, after that wait you are seated with "
        "bots instead (unrated). Joining again while queued returns the current ticket "
        "unchanged (leave first to change it). Poll getTicket at least every "
        "``ALLFOURS_QUEUE_HEARTBEAT_S`` seconds (15 by default) or the ticket is dropped.",
        status_code=201,
        responses=problems("invalid_request", "unauthorized", "unavailable", *WRITE_LIMITS),
    )
    async def join_queue(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[JoinQueue],
        ctx: NamedDependency[AppContext],
    ) -> Ticket:
        player = await ctx.accounts.prove(player_key_of(request))
        if data.partner == player.player_id:
            raise ValidationException(
                detail="you cannot be your own partner",
                extra=[{"message": "names yourself", "key": "partner", "source": "body"}],
            )
        queue = ctx.matchmaker.queue
        now = ctx.matchmaker.clock()
        ticket = QueueTicket(player.name, now, data.partner, data.bots_after_s)
        await queue.join(player.player_id, ticket, now)
        return ticket_of(await queue.poll(player.player_id, now), now)

    @get(
        "/",
        operation_class=DocumentedOperation,
        operation_id="getTicket",
        security=PLAYER_REQUIRED,
        summary="Your matchmaking ticket (poll it: it is the heartbeat)",
        description="``waiting`` until a table is made, then ``seated`` with its "
        "``game_id`` and your ``seat`` (ask reissueSeatToken for the seat's token); "
        "``idle`` when not queued. Polling keeps the ticket: one not polled for "
        "``ALLFOURS_QUEUE_HEARTBEAT_S`` seconds is dropped.",
        responses=problems("invalid_request", "unauthorized", "unavailable"),
    )
    async def get_ticket(
        self, request: Request[Any, Any, Any], ctx: NamedDependency[AppContext]
    ) -> Ticket:
        player = await ctx.accounts.prove(player_key_of(request))
        now = ctx.matchmaker.clock()
        return ticket_of(await ctx.matchmaker.queue.poll(player.player_id, now), now)

    @delete(
        "/",
        operation_class=DocumentedOperation,
        operation_id="leaveQueue",
        security=PLAYER_REQUIRED,
        summary="Leave the matchmaking queue",
        description="A no-op when not queued, or when a table is already being made for you.",
        status_code=204,
        responses=problems("invalid_request", "unauthorized", "unavailable", *WRITE_LIMITS),
    )
    async def leave_queue(
        self, request: Request[Any, Any, Any], ctx: NamedDependency[AppContext]
    ) -> None:
        player = await ctx.accounts.prove(player_key_of(request))
        await ctx.matchmaker.queue.leave(player.player_id)

    @get(
        "/stats",
        operation_class=DocumentedOperation,
        operation_id="getQueueStats",
        summary="People waiting in the queue and playing at its tables",
        responses=problems("invalid_request", "unavailable"),
    )
    async def get_stats(self, ctx: NamedDependency[AppContext]) -> QueueStats:
        waiting, playing = await ctx.matchmaker.queue.stats()
        return QueueStats(waiting, playing)
