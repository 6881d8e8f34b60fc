"""The published spec is the whole contract: every field a response always holds is required
and described, and every operation lists the problem codes it can answer, under the status
each code really comes with."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from litestar import Request

from domain import VIOLATION_CODES, RuleViolation
from server.api.contract.problems import PROBLEM_CODES, STATUS_OF, _to_problem

SPEC = json.loads((Path(__file__).parents[2] / "openapi" / "openapi.json").read_text())
SCHEMAS: dict[str, Any] = SPEC["components"]["schemas"]
REQUEST_BODIES = {
    name for name, schema in SCHEMAS.items() if schema.get("additionalProperties") is False
}
RESPONSE_SCHEMAS = sorted(set(SCHEMAS) - REQUEST_BODIES - {"Rules"})


@pytest.mark.parametrize("name", RESPONSE_SCHEMAS)
def test_every_field_of_what_the_server_sends_is_required_and_described(name: str) -> None:
    schema = SCHEMAS[name]
    properties = schema.get("properties", {})
    if name != "Problem":  # a problem leaves out what does not apply (its only optional fields)
        assert sorted(schema.get("required", [])) == sorted(properties), name
    for field, prop in properties.items():
        assert "$ref" in prop or prop.get("description"), f"{name}.{field} has no description"


def test_the_view_documents_the_clock_and_the_lifecycle() -> None:
    view = SCHEMAS["View"]["properties"]
    for field in ("deadline", "seat_actions", "end_reason", "rematch", "expires_at"):
        assert view[field]["description"], field
    assert (
        "milliseconds" in view["deadline"]["description"].lower()
        or "ms" in (view["deadline"]["description"])
    )
    assert "kicks[0]" in view["trump"]["description"]  # what trump is while begging
    for field in ("away", "left"):
        assert SCHEMAS["SeatView"]["properties"][field]["description"]


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op)
        for path, item in SPEC["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "responses" in op
    ]


@pytest.mark.parametrize(("path", "method", "op"), _operations())
def test_each_operation_lists_its_problem_codes_under_their_status(
    path: str, method: str, op: dict[str, Any]
) -> None:
    for status, response in op["responses"].items():
        listed = re.findall(r"``([a-z_]+)``", response.get("description", ""))
        codes = [c for c in listed if c in PROBLEM_CODES]
        if not status.startswith(("4", "5")) or status in ("405",):
            continue
        assert codes, f"{method} {path} {status}: no codes listed"
        for code in codes:
            assert STATUS_OF[code] == int(status), (method, path, status, code)


def test_every_code_has_its_status_and_the_rules_codes_really_get_it() -> None:
    assert set(STATUS_OF) == set(PROBLEM_CODES)
    request: Request[Any, Any, Any] = Request({"type": "http", "path": "/x", "headers": []})
    for code in VIOLATION_CODES:
        response = _to_problem(request, RuleViolation(code, "x"))
        assert response.status_code == STATUS_OF[code], code


@pytest.mark.parametrize(("path", "method", "op"), _operations())
def test_every_answer_documents_its_headers(path: str, method: str, op: dict[str, Any]) -> None:
    for status, response in op["responses"].items():
        headers = response.get("headers", {})
        assert "X-Request-ID" in headers, (method, path, status)
        if status in ("429", "503"):
            assert "Retry-After" in headers, (method, path, status)
        if status == "401":
            assert "WWW-Authenticate" in headers, (method, path, status)
    if op.get("operationId") == "getGame":
        assert "ETag" in op["responses"]["200"]["headers"]
