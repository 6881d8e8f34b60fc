"""The Litestar application factory: routes, errors, OpenAPI, metrics and the lifespan that
connects to Redis. Settings come from the environment (``server.settings``)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, NoReturn

import msgspec
from litestar import Litestar, Request, Response
from litestar.datastructures import State
from litestar.di import Provide
from litestar.exceptions import NotFoundException, ValidationException
from litestar.utils.scope.state import ScopeState

from server.api.auth import SeatAuth
from server.api.context import AppContext
from server.api.contract.openapi import StrictStructSchemaPlugin
from server.api.contract.problems import EXCEPTION_HANDLERS
from server.api.edge.cors import cors_config
from server.api.edge.layers import wrap_edges
from server.api.edge.metrics import Metrics, metrics_endpoint, request_metrics
from server.api.edge.rate_limit import RateLimiter
from server.api.edge.request_guard import (
    check_content_type,
    check_new_table,
    check_shapes,
    is_creation,
    key_given_twice,
)
from server.api.edge.stream_cap import limit_streams
from server.api.routes.analysis import AnalysisController
from server.api.routes.command_lane import command_lane
from server.api.routes.commands import CommandsController
from server.api.routes.docs_page import spec_at_root
from server.api.routes.games import GamesController
from server.api.routes.health import HealthController
from server.api.routes.hints import HintsController
from server.api.routes.history import HistoryController
from server.api.routes.leaderboard import LeaderboardController
from server.api.routes.matchmaking import MatchmakingController
from server.api.routes.names import NamesController
from server.api.routes.players import PlayersController, SeatReissueController
from server.api.routes.seats import SeatsController
from server.api.routes.streams import StreamController
from server.api.routes.verification import VerificationController
from server.api.routes.web import not_found_page, wants_a_page, web_router
from server.api.spec import openapi_config
from server.clock import system_clock
from server.deadlines import DeadlineSweeper
from server.lobby import Lobby
from server.players.accounts import PlayerAccounts
from server.players.games import PlayerGames
from server.players.matchmaker import Matchmaker
from server.players.matchmaking import MatchQueue
from server.players.projection import PlayerProjection
from server.players.ratings import Ratings, logged_events
from server.players.upkeep import Upkeep
from server.service import Analyses, GameService, TableOptions, Thinker
from server.settings import Settings, from_env
from server.store import connect_store

_log = logging.getLogger("allfours.api")


def _context(state: State) -> AppContext:
    ctx: AppContext = state.ctx
    return ctx


async def check_body_strictly(request: Request[Any, Any, Any]) -> None:
    """Refuse a body that breaks its documented schema, before Litestar converts it.

    Litestar converts request bodies in msgspec's lax mode (``"14"`` becomes 14, ``0``
    becomes false), so bodies the spec calls invalid would be accepted. Checking strictly
    first keeps the server to its spec, by JSON Schema's rules (``14.0`` is an integer);
    a key given twice is refused; malformed JSON is left to Litestar's own error."""
    field = request.route_handler.parsed_data_field
    if field is None:
        return
    body = await request.body()  # kept by the request: the handler reads it again
    twice = key_given_twice(body)
    if twice is not None:
        raise ValidationException(
            detail=f"Validation failed for {request.method} {request.url.path}",
            extra=[
                {"message": f"the key {twice!r} is given twice", "key": twice, "source": "body"}
            ],
        )
    try:
        # The common case in one typed pass (msgspec's JSON decoding is strict already). The
        # value decoded is handed to Litestar as the request's JSON: its own lax decoding and
        # conversion then pass the typed value through instead of decoding the body again.
        ScopeState.from_scope(request.scope).json = _decoder_of(field.annotation).decode(body)
        return
    except msgspec.ValidationError:
        pass  # maybe only integral floats such as 14.0, which JSON Schema calls integers
    except msgspec.DecodeError:
        return
    except RecursionError:
        _too_deep(request)
    try:
        value = _integral_floats_as_ints(msgspec.json.decode(body))
        msgspec.convert(value, type=field.annotation, strict=True)
    except msgspec.ValidationError as exc:
        message, _, where = str(exc).partition(" - at `$")
        key = where.rstrip("`").lstrip(".") or "data"
        raise ValidationException(
            detail=f"Validation failed for {request.method} {request.url.path}",
            extra=[{"message": message, "key": key, "source": "body"}],
        ) from None
    except msgspec.DecodeError:
        return
    except RecursionError:
        _too_deep(request)


@functools.cache
def _decoder_of(annotation: Any) -> msgspec.json.Decoder[Any]:
    """One decoder per body type: building one costs 60 times a small body's decoding."""
    return msgspec.json.Decoder(annotation)


def _too_deep(request: Request[Any, Any, Any]) -> NoReturn:
    raise ValidationException(
        detail=f"Validation failed for {request.method} {request.url.path}",
        extra=[{"message": "the body is nested too deeply", "key": "data"}],
    ) from None


def _integral_floats_as_ints(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral_floats_as_ints(item) for item in value]
    if isinstance(value, dict):
        return {key: _integral_floats_as_ints(item) for key, item in value.items()}
    return value


def _not_found(request: Request[Any, Any, Any], exc: NotFoundException) -> Response[Any]:
    """A miss: a page for a browser outside the API (the client says "page not found"), the
    usual problem for everyone else."""
    if wants_a_page(request):
        return not_found_page()
    return EXCEPTION_HANDLERS[Exception](request, exc)


def create_app(settings: Settings | None = None) -> Litestar:
    settings = settings or from_env()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        if settings.redis_url is None:
            raise RuntimeError("REDIS_URL is not set: start through `allfours serve`")
        store = connect_store(settings.redis_url)
        lobby = Lobby(store, clock=system_clock)
        ratings = Ratings(store, partial(logged_events, store), clock=system_clock)
        players = PlayerProjection(PlayerGames(store, lobby), ratings)
        service = GameService(
            store,
            lobby,
            cache_size=settings.cache_size,
            clock=system_clock,
            table_expiry_ms=settings.table_expiry_s * 1000 if settings.table_expiry_s else None,
            rematch_hold_ms=settings.rematch_hold_s * 1000,
            takeover_grace_ms=settings.takeover_grace_s * 1000,
            table=TableOptions(
                pause_when_absent=settings.pause_when_absent,
                away_pace_ms=int(settings.away_pace_s * 1000),
                idle_expiry_ms=settings.idle_expiry_s * 1000 if settings.idle_expiry_s else None,
                stand_in=settings.stand_in,
            ),
            thinker=Thinker(settings.bot_workers, settings.bot_timeout_s),
            players=players,
        )
        matchmaker = Matchmaker(
            MatchQueue(store),
            service,
            ratings,
            clock=system_clock,
            heartbeat_ms=int(settings.queue_heartbeat_s * 1000),
        )
        sweeper = DeadlineSweeper(
            service, store, clock=system_clock, interval_s=settings.sweep_interval_s
        )
        app.state.ctx = AppContext(
            settings=settings,
            store=store,
            service=service,
            auth=SeatAuth(store),
            limiter=RateLimiter(
                store,
                settings.rate_limit,
                settings.rate_window_s,
                tables_per_hour=settings.tables_per_hour,
                players_per_hour=settings.players_per_hour,
                clock=system_clock,
            ),
            metrics=Metrics.shared(),
            accounts=PlayerAccounts(store, clock=system_clock, on_named=ratings.rename),
            players=players,
            matchmaker=matchmaker,
            analyses=Analyses(service, store),
        )
        upkeep = Upkeep(
            [
                ("rating upkeep", 30.0, partial(ratings.look_over, lobby)),
                ("matchmaking", settings.match_interval_s, matchmaker.run_once),
                ("matchmaking tables", 10.0, matchmaker.look_over_tables),
            ]
        )
        # Everything built so far lives as long as the process: keep it out of the
        # collector's way, and collect the young generation less often. Full collections of
        # a large heap were the pauses that set SSE delivery's tail latency.
        gc.collect()
        gc.freeze()
        gc.set_threshold(20_000, 50, 100)
        service.thinker.warm()
        sweeping = asyncio.create_task(sweeper.run(), name="deadline-sweeper")
        upkeeping = asyncio.create_task(upkeep.run(), name="player-upkeep")
        try:
            yield
        finally:
            sweeper.stop()
            upkeep.stop()
            app.state.ctx.begin_shutdown()
            try:
                await asyncio.wait_for(sweeping, timeout=settings.shutdown_grace_s)
            except TimeoutError:
                _log.warning("the deadline sweeper did not stop in time")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(upkeeping, timeout=settings.shutdown_grace_s)
            service.thinker.close()
            await store.aclose()

    async def before_request(request: Request[Any, Any, Any]) -> None:
        ctx = _context(request.app.state)
        check_content_type(request)
        check_shapes(request)
        await ctx.limiter.check(request)
        await check_body_strictly(request)
        if is_creation(request):
            await check_new_table(
                request,
                max_bot_target=settings.max_bot_target,
                min_turn_seconds=settings.min_turn_seconds,
            )

    counted = settings.metrics != "off"
    app = Litestar(
        route_handlers=[
            GamesController,
            HintsController,
            PlayersController,
            SeatReissueController,
            LeaderboardController,
            MatchmakingController,
            AnalysisController,
            SeatsController,
            CommandsController,
            HistoryController,
            NamesController,
            StreamController,
            HealthController,
            VerificationController,
            *([metrics_endpoint(settings.metrics_token)] if counted else []),
            spec_at_root,
            web_router,
        ],
        lifespan=[lifespan],
        dependencies={"ctx": Provide(_context, sync_to_thread=False)},
        exception_handlers={
            **EXCEPTION_HANDLERS,  # type: ignore[dict-item]
            NotFoundException: _not_found,
        },
        before_request=before_request,
        plugins=[StrictStructSchemaPlugin()],
        request_max_body_size=settings.max_body_bytes,
        cors_config=cors_config(settings.cors_origins),
        middleware=[request_metrics] if counted else [],
        openapi_config=openapi_config(),
        logging_config=None,  # logs are configured by `configure_logging` (JSON lines)
        debug=False,
    )
    app.asgi_handler = limit_streams(
        command_lane(app.asgi_handler, settings.max_body_bytes, counted=counted),
        settings.max_streams_per_address,
    )
    return wrap_edges(app, settings.access_log)
