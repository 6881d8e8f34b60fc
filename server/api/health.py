"""Probes: ``/livez`` (the process answers) and ``/readyz`` (and so does Redis)."""

from __future__ import annotations

import asyncio
from typing import Any

from litestar import Controller, Request, Response, get

from server.api.context import AppContext
from server.api.docs import DocumentedOperation, problems
from server.api.models import Health
from server.api.problems import problem_response
from server.store import StoreError

READY_TIMEOUT_S = 2.0


class HealthController(Controller):
    tags = ("operations",)
    include_in_schema = True

    @get(
        "/livez",
        operation_class=DocumentedOperation,
        operation_id="livez",
        summary="Liveness: no dependencies checked",
        responses=problems(),
    )
    async def livez(self) -> Health:
        return Health("ok")

    @get(
        "/readyz",
        operation_class=DocumentedOperation,
        operation_id="readyz",
        summary="Readiness: Redis answers",
        description="503 ``unavailable`` (problem details, with ``Retry-After``) while Redis "
        "is unreachable or the instance is shutting down.",
        responses=problems(503),
    )
    async def readyz(self, request: Request[Any, Any, Any], ctx: AppContext) -> Response[Health]:
        detail = None
        if ctx.shutting_down.is_set():
            detail = "the instance is shutting down"
        else:
            try:
                # Bounded: a hung Redis (stopped, not dead) must fail the probe, not hang it.
                async with asyncio.timeout(READY_TIMEOUT_S):
                    await ctx.store.ping()
            except (StoreError, TimeoutError):
                detail = "the event store is unavailable"
        if detail is not None:
            problem = problem_response(request, 503, "unavailable", detail, retry_after=1)
            return problem  # type: ignore[return-value]
        return Response(Health("ok"))
