"""Probes: ``/livez`` (is this process worth keeping?) and ``/readyz`` (should it get traffic?).

- ``/readyz`` answers 503 while Redis does not answer (each probe pings it), the bot workers
  are starting (the first table's bots would wait for them) or the instance is shutting down:
  take it out of the load balancer, it recovers by itself.
- ``/livez`` answers 200 while the process serves requests, *unless* Redis has been unreachable
  for longer than ``ALLFOURS_REDIS_DOWN_LIMIT_S`` (default 60 s, 0 = never): then 503, so that a
  process manager restarts an instance that is up but useless, rather than trusting it forever.
  A short outage (a Redis restart, a failover) never fails it.

The outage clock is per process: it starts at the first failed ping (by either probe) and stops
at the first answered one. ``/livez`` pings Redis at most once a second, so it stays cheap.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency

from server.api.context import AppContext
from server.api.contract.models import Health
from server.api.contract.openapi import DocumentedOperation, problems
from server.api.contract.problems import problem_response
from server.store import StoreError

READY_TIMEOUT_S = 2.0
LIVE_TIMEOUT_S = 1.0
"""How long ``/livez`` waits for Redis (less than probes' own timeouts, 2-3 s)."""
LIVE_CHECK_EVERY_S = 1.0
"""``/livez`` asks Redis at most this often (it stays as cheap as it was under load)."""


class RedisOutage:
    """Since when this process has seen Redis unreachable (None: it answered last time)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.since: float | None = None
        self.checked_at: float | None = None

    def due(self) -> bool:
        """Whether the last check is older than :data:`LIVE_CHECK_EVERY_S`; if so, the
        caller is to check now (and the next callers are not, meanwhile)."""
        now = self.clock()
        if self.checked_at is not None and now - self.checked_at < LIVE_CHECK_EVERY_S:
            return False
        self.checked_at = now
        return True

    def observe(self, *, answered: bool) -> None:
        """Record one check of Redis."""
        now = self.clock()
        self.checked_at = now
        if answered:
            self.since = None
        elif self.since is None:
            self.since = now

    def down_for(self) -> float:
        """How long Redis has been unreachable (0 if it answered last time)."""
        return 0.0 if self.since is None else self.clock() - self.since


def _outage(request: Request[Any, Any, Any]) -> RedisOutage:
    state = request.app.state
    outage: RedisOutage | None = state.get("redis_outage")
    if outage is None:
        outage = state["redis_outage"] = RedisOutage()
    return outage


async def _redis_answers(ctx: AppContext, within_s: float) -> bool:
    try:
        # Bounded: a hung Redis (stopped, not dead) must fail the probe, not hang it.
        async with asyncio.timeout(within_s):
            await ctx.store.ping()
    except (StoreError, TimeoutError):
        return False
    return True


class HealthController(Controller):
    tags = ("operations",)
    include_in_schema = True

    @get(
        "/livez",
        operation_class=DocumentedOperation,
        operation_id="livez",
        summary="Liveness: the process serves, and Redis has not been gone too long",
        description="503 ``unavailable`` once Redis has been unreachable for longer than "
        "``ALLFOURS_REDIS_DOWN_LIMIT_S`` (default 60 s; 0 turns the check off): restart the "
        "instance then. A shorter outage only fails ``/readyz``.",
        responses=problems(503),
    )
    async def livez(
        self, request: Request[Any, Any, Any], ctx: NamedDependency[AppContext]
    ) -> Response[Health]:
        limit = ctx.settings.redis_down_limit_s
        if limit > 0:
            outage = _outage(request)
            if outage.due():
                outage.observe(answered=await _redis_answers(ctx, LIVE_TIMEOUT_S))
            down_for = outage.down_for()
            if down_for > limit:
                detail = f"the event store has been unreachable for {down_for:.0f} s"
                problem = problem_response(request, 503, "unavailable", detail, retry_after=1)
                return problem  # type: ignore[return-value]
        return Response(Health("ok"))

    @get(
        "/readyz",
        operation_class=DocumentedOperation,
        operation_id="readyz",
        summary="Readiness: Redis answers and the bot workers are up",
        description="503 ``unavailable`` (problem details, with ``Retry-After``) while Redis "
        "is unreachable, the instance's bot workers are starting (about a second after it "
        "starts) or the instance is shutting down.",
        responses=problems(503),
    )
    async def readyz(
        self, request: Request[Any, Any, Any], ctx: NamedDependency[AppContext]
    ) -> Response[Health]:
        detail = None
        if ctx.shutting_down.is_set():
            detail = "the instance is shutting down"
        elif not ctx.service.thinker.ready:
            detail = "the bot workers are starting"
        else:
            answered = await _redis_answers(ctx, READY_TIMEOUT_S)
            _outage(request).observe(answered=answered)
            if not answered:
                detail = "the event store is unavailable"
        if detail is not None:
            problem = problem_response(request, 503, "unavailable", detail, retry_after=1)
            return problem  # type: ignore[return-value]
        return Response(Health("ok"))
