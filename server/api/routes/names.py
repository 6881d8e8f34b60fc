"""Checking a seat name before sitting down: a page asks before it creates a table, so a name
the policy refuses leaves no table behind (the policy is ``server.names``, the one takeSeat
applies; whether it looks like a neighbour's is known only at a table)."""

from __future__ import annotations

from litestar import Controller, post
from litestar.params import JSONBody

from server.api.contract.models import NameCheck
from server.api.contract.openapi import WRITE_LIMITS, DocumentedOperation, problems
from server.names import check_name


class NamesController(Controller):
    path = "/v1/names"
    tags = ("names",)

    @post(
        "/check",
        operation_id="checkName",
        operation_class=DocumentedOperation,
        summary="Check a seat name against the name policy",
        description="204 when the name may be shown at a table; 400 ``invalid_name`` with a "
        "``detail`` in words when it may not (the same check takeSeat makes). It says nothing "
        "of other seats' names: a lookalike of a neighbour's is refused by takeSeat (409 "
        "``name_taken``).",
        status_code=204,
        responses=problems("invalid_request", "invalid_name", *WRITE_LIMITS),
    )
    async def check_name(self, data: JSONBody[NameCheck]) -> None:
        check_name(data.name)
