"""Probes: ``/livez`` (the process answers) and ``/readyz`` (and so does Redis)."""

from __future__ import annotations

from litestar import Controller, Response, get

from server.api.context import AppContext
from server.api.models import Health
from server.store import StoreError


class HealthController(Controller):
    tags = ("operations",)
    include_in_schema = True

    @get("/livez", operation_id="livez", summary="Liveness: no dependencies checked")
    async def livez(self) -> Health:
        return Health("ok")

    @get(
        "/readyz",
        operation_id="readyz",
        summary="Readiness: Redis answers",
        description="503 with status ``unavailable`` while Redis is unreachable or the "
        "instance is shutting down.",
    )
    async def readyz(self, ctx: AppContext) -> Response[Health]:
        if ctx.shutting_down.is_set():
            return Response(Health("unavailable"), status_code=503, headers={"Retry-After": "1"})
        try:
            await ctx.store.ping()
        except StoreError:
            return Response(Health("unavailable"), status_code=503, headers={"Retry-After": "1"})
        return Response(Health("ok"))
