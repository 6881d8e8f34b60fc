"""The committed spec is the app's spec, and it documents what a client generator needs."""

from __future__ import annotations

import json
from typing import Any

import httpx
import msgspec
import pytest
from support import PROBLEM, ROOT, SSE

from server.api.app import create_app
from server.settings import Settings

SPEC_PATH = ROOT / "openapi" / "openapi.json"
METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


@pytest.fixture(scope="module")
def exported() -> dict[str, Any]:
    """What ``allfours openapi`` prints, as data (no Redis needed to build the spec)."""
    spec = create_app(Settings(redis_url="redis://unused")).openapi_schema.to_schema()
    exported: dict[str, Any] = json.loads(json.dumps(msgspec.to_builtins(spec)))
    return exported


@pytest.fixture(scope="module")
def committed() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SPEC_PATH.read_text())
    return loaded


def operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in spec["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def test_committed_spec_is_what_the_app_exports(
    exported: dict[str, Any], committed: dict[str, Any]
) -> None:
    assert committed == exported, (
        "openapi/openapi.json drifted from the code: run "
        "`uv run allfours openapi > openapi/openapi.json` and review the diff"
    )


def test_every_operation_has_an_id_and_documents_problems(committed: dict[str, Any]) -> None:
    ops = operations(committed)
    assert len(ops) >= 11
    ids = [op.get("operationId") for _, _, op in ops]
    assert all(ids), [(m, p) for m, p, op in ops if not op.get("operationId")]
    assert len(set(ids)) == len(ids), ids
    for method, path, op in ops:
        problems = {
            status: response
            for status, response in op["responses"].items()
            if PROBLEM in response.get("content", {})
        }
        assert problems, f"{method} {path} documents no application/problem+json response"
        for status, response in problems.items():
            assert int(status) >= 400, (method, path, status)
            schema = response["content"][PROBLEM]["schema"]
            assert schema == {"$ref": "#/components/schemas/Problem"}, (method, path, status)
            assert "application/json" not in response["content"], (method, path, status)


def test_every_post_documents_the_request_guards_problems(committed: dict[str, Any]) -> None:
    """The request guard answers any POST with a body too large (413) or not JSON (415),
    before its handler runs: a client generator must see both on every POST."""
    posts = [(path, op) for method, path, op in operations(committed) if method == "POST"]
    assert len(posts) >= 5
    for path, op in posts:
        for status, code in (("413", "payload_too_large"), ("415", "unsupported_media_type")):
            assert status in op["responses"], (path, status)
            assert code in op["responses"][status]["description"], (path, status)


def test_problem_schema_has_the_rfc_9457_members_and_a_code(committed: dict[str, Any]) -> None:
    problem = committed["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status", "code"}
    assert {"detail", "instance", "current_version", "retry_after"} <= set(problem["properties"])


def test_stream_is_documented_as_server_sent_events(committed: dict[str, Any]) -> None:
    stream = committed["paths"]["/v1/games/{game_id}/stream"]["get"]
    assert stream["operationId"] == "streamEvents"
    ok = stream["responses"]["200"]["content"]
    assert list(ok) == [SSE]
    # The schema is the type of each message's data, as a client generator reads it (not a
    # frame whose payload hides in contentSchema, which generators ignore): the events, under
    # their discriminator, a view, or the resync's {}.
    data = ok[SSE]["schema"]
    events, *others = data["oneOf"]
    assert {ref["$ref"].rsplit("/", 1)[1] for ref in others} == {"View", "Resync"}
    variants = {ref["$ref"].rsplit("/", 1)[1] for ref in events["oneOf"]}
    assert {"Dealt", "CardPlayed", "SeedRevealed", "GameCreated"} <= variants
    assert events["discriminator"]["propertyName"] == "type"
    params = {p["name"] for p in stream["parameters"]}
    assert {"game_id", "after", "token", "Last-Event-ID"} <= params


def test_request_bodies_refuse_unknown_properties_as_the_server_does(
    committed: dict[str, Any],
) -> None:
    schemas = committed["components"]["schemas"]
    for name in ("CreateGame", "RuleChoices", "TakeSeat", "AddBot", "PlayCommand", "StandCommand"):
        assert schemas[name]["additionalProperties"] is False, name
    bots = schemas["CreateGame"]["properties"]["bots"]
    assert bots["items"] == {"oneOf": [{"$ref": "#/components/schemas/BotLevel"}, {"type": "null"}]}
    assert schemas["BotLevel"]["enum"] == ["random", "heuristic", "strong", "master"]


def test_links_lead_from_created_games_and_seats(committed: dict[str, Any]) -> None:
    def links(path: str, status: str) -> dict[str, Any]:
        found: dict[str, Any] = committed["paths"][path]["post"]["responses"][status]["links"]
        return found

    created = links("/v1/games", "201")
    assert {"getGame", "takeSeat", "addBot", "getReplay", "streamEvents"} <= set(created)
    assert created["getGame"]["parameters"] == {"game_id": "$response.body#/game_id"}
    seat = links("/v1/games/{game_id}/seats/{seat}", "201")
    assert seat["getGame"]["parameters"]["token"] == "$response.body#/token"
    assert seat["sendCommand"]["parameters"]["seat"] == "$response.body#/seat"
    ids = {op["operationId"] for _, _, op in operations(committed)}
    for _, _, op in operations(committed):
        for response in op["responses"].values():
            for target in response.get("links", {}).values():
                assert target["operationId"] in ids, target


@pytest.mark.e2e
async def test_the_running_server_serves_the_committed_spec(
    client: httpx.AsyncClient, committed: dict[str, Any]
) -> None:
    response = await client.get("/docs/openapi.json")
    assert response.status_code == 200
    assert response.json() == committed


def test_polling_is_documented(committed: dict[str, Any]) -> None:
    get_game = committed["paths"]["/v1/games/{game_id}"]["get"]
    assert "If-None-Match" in {p["name"] for p in get_game["parameters"]}
    assert get_game["responses"]["200"]["headers"]["ETag"]["required"] is True
    assert "304" in get_game["responses"]


def test_seat_token_is_a_bearer_security_scheme(committed: dict[str, Any]) -> None:
    """Client generators read auth from securitySchemes: commands need the token, reads take
    it optionally (spectators read without one)."""
    scheme = committed["components"]["securitySchemes"]["seatToken"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    by_id = {op["operationId"]: op for _, _, op in operations(committed)}
    assert by_id["sendCommand"]["security"] == [{"seatToken": []}]
    for read in ("getGame", "listEvents", "streamEvents"):
        assert {} in by_id[read]["security"] and {"seatToken": []} in by_id[read]["security"]


def test_problem_codes_are_an_enum_covering_every_error(committed: dict[str, Any]) -> None:
    from domain import VIOLATION_CODES
    from server import errors
    from server.api.contract.problems import PROBLEM_CODES

    enum = committed["components"]["schemas"]["Problem"]["properties"]["code"]["enum"]
    assert set(enum) == set(PROBLEM_CODES)
    assert set(VIOLATION_CODES) <= set(enum)
    service_errors = [
        cls
        for cls in vars(errors).values()
        if isinstance(cls, type)
        and issubclass(cls, errors.ServiceError)
        and cls is not errors.ServiceError
    ]
    assert service_errors and all(cls.code in enum for cls in service_errors)
