"""Answers that contradicted the published contract, each checked against a real server: request
ids on every answer, ``HEAD`` wherever ``GET`` is, ``Allow`` naming both, a malformed
``Last-Event-ID`` refused, and every documented header readable by a page on another origin."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from support import (
    ROOT,
    SSE,
    ServerProcess,
    bearer,
    create_game,
    problem_of,
    sse_frames,
    start_server,
    take_seat,
)

from server.api.edge.cors import EXPOSED_HEADERS

SPEC: dict[str, Any] = json.loads((ROOT / "openapi" / "openapi.json").read_text())
ORIGIN = "http://127.0.0.1:1"  # a page's origin: never contacted, only named
SAFELISTED = {"cache-control", "content-language", "content-length", "content-type"}
SAFELISTED |= {"expires", "last-modified", "pragma"}
"""Response headers every page may read, exposed or not (the Fetch standard's safelist)."""
OPERATIONS_PATHS = ["/livez", "/readyz", "/metrics", "/docs", "/docs/openapi.json", "/openapi.json"]
"""``GET`` paths outside the spec's operations that a client or an operator may call."""


@pytest.fixture(scope="module")
async def finished(server: ServerProcess) -> str:
    """A game played out by four bots: every ``GET`` of it answers 200, the replay too."""
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
        game_id: str = (await create_game(client, ["random"] * 4))["game_id"]
        return game_id


def get_paths(game_id: str, player_id: str) -> list[str]:
    """Every ``GET`` path of the spec that anyone may read, for ``game_id``, and the
    operations endpoints (a seat's own reads, such as its hints, need its token; a player's
    own, its key)."""
    paths = [
        path
        for path, item in SPEC["paths"].items()
        if "get" in item
        and item["get"].get("security") not in ([{"seatToken": []}], [{"playerKey": []}])
    ]
    assert {"/v1/games", "/v1/games/{game_id}", "/v1/games/{game_id}/stream"} <= set(paths)
    named = [path.replace("{game_id}", game_id).replace("{player_id}", player_id) for path in paths]
    return named + OPERATIONS_PATHS


# ---------------------------------------------------------------------------------------------
# X-Request-ID


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/no/such/path", 404),
        ("POST", "/v1/nothing-here", 404),
        ("DELETE", "/v1/games", 405),
        ("PUT", "/livez", 405),
        ("GET", "/v1/games/no-such-game", 404),
        ("GET", "/livez", 200),
    ],
)
async def test_every_answer_echoes_the_request_id(
    client: httpx.AsyncClient, method: str, path: str, status: int
) -> None:
    echoed = await client.request(method, path, headers={"X-Request-ID": "trace-77"})
    assert echoed.status_code == status, echoed.text
    assert echoed.headers["x-request-id"] == "trace-77"
    made = await client.request(method, path)
    assert len(made.headers["x-request-id"]) >= 8, made.headers


# ---------------------------------------------------------------------------------------------
# HEAD and Allow


async def test_head_answers_wherever_get_does_without_a_body(
    client: httpx.AsyncClient, finished: str
) -> None:
    made = await client.post("/v1/players", json={"name": "Header Reader"})
    for path in get_paths(finished, made.json()["player_id"]):
        got = await client.get(path) if not path.endswith("/stream") else None
        head = await client.head(path, timeout=5)
        assert head.content == b"", path
        assert head.headers["x-request-id"], path
        if got is None:  # a stream never ends: its HEAD must, with the stream's headers
            assert head.status_code == 200, path
            assert head.headers["content-type"].startswith(SSE), head.headers
            continue
        assert head.status_code == got.status_code == 200, (path, head.status_code)
        assert head.headers["content-type"] == got.headers["content-type"], path
        assert head.headers.get("etag") == got.headers.get("etag"), path
        if path != "/metrics":  # the only body that changes from one request to the next
            assert head.headers["content-length"] == str(len(got.content)), path


async def test_head_answers_not_modified_and_problems_as_get_does(
    client: httpx.AsyncClient, finished: str
) -> None:
    etag = (await client.get(f"/v1/games/{finished}")).headers["etag"]
    cached = await client.head(f"/v1/games/{finished}", headers={"If-None-Match": etag})
    assert cached.status_code == 304 and cached.headers["etag"] == etag
    missing = await client.head("/v1/games/no-such-game")
    assert missing.status_code == 404 and missing.content == b""
    assert missing.headers["content-type"].startswith("application/problem+json")


async def test_allow_lists_head_with_get_on_options_and_405(
    client: httpx.AsyncClient, finished: str
) -> None:
    view = f"/v1/games/{finished}"
    commands = f"/v1/games/{finished}/seats/0/commands"
    assert (await client.options("/v1/games")).headers["allow"] == "GET, HEAD, OPTIONS, POST"
    assert (await client.options(view)).headers["allow"] == "GET, HEAD, OPTIONS"
    refused = await client.delete(view)
    problem_of(refused, 405, "method_not_allowed")
    assert refused.headers["allow"] == "GET, HEAD, OPTIONS"
    # A path without GET has no HEAD either, and says so.
    for method in ("HEAD", "GET"):
        no_get = await client.request(method, commands)
        assert no_get.status_code == 405, (method, no_get.status_code)
        assert no_get.headers["allow"] == "OPTIONS, POST", no_get.headers


# ---------------------------------------------------------------------------------------------
# Last-Event-ID


@pytest.mark.parametrize("last_event_id", ["abc", "-5", "3.5", "1e3", "0x10", "12345678901234567"])
async def test_a_malformed_last_event_id_is_refused(
    client: httpx.AsyncClient, finished: str, last_event_id: str
) -> None:
    path = f"/v1/games/{finished}/stream"
    async with client.stream("GET", path, headers={"Last-Event-ID": last_event_id}) as response:
        if response.status_code == 200:  # the stream, which would never end
            pytest.fail(f"Last-Event-ID {last_event_id!r} was taken: {response.headers}")
        await response.aread()
    problem = problem_of(response, 400, "invalid_request")
    assert "last_event_id" in problem["detail"], problem


async def test_last_event_id_resumes_after_it_and_wins_over_after(
    client: httpx.AsyncClient, finished: str
) -> None:
    frames = sse_frames(
        client,
        f"/v1/games/{finished}/stream",
        headers={"Last-Event-ID": "3"},
        params={"after": 1},
    )
    first = await anext(frames)
    await frames.aclose()
    assert first.id == 4, first


# ---------------------------------------------------------------------------------------------
# CORS


@pytest.fixture(scope="module")
async def cors_server(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[ServerProcess]:
    process = await start_server(
        redis_url, tmp_path_factory.mktemp("cors"), {"ALLFOURS_CORS_ORIGINS": ORIGIN}
    )
    yield process
    assert await process.stop() == 0, process.log_tail()


def test_every_header_the_spec_documents_is_exposed() -> None:
    documented = {
        name.lower()
        for item in SPEC["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict)
        for response in operation.get("responses", {}).values()
        for name in response.get("headers", {})
    }
    assert "etag" in documented
    exposed = {h.lower() for h in EXPOSED_HEADERS}
    assert documented - SAFELISTED | {"x-request-id", "retry-after"} <= exposed


async def test_cross_origin_answers_expose_the_contract_headers(cors_server: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=cors_server.url, timeout=10) as client:
        game_id = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
        token = await take_seat(client, game_id, 0, "ann")
        answers = [
            await client.get(f"/v1/games/{game_id}", headers={"Origin": ORIGIN, **bearer(token)}),
            await client.get("/v1/games/no-such-game", headers={"Origin": ORIGIN}),
            await client.get("/nowhere", headers={"Origin": ORIGIN}),
        ]
    for answer in answers:
        assert answer.headers["access-control-allow-origin"] == ORIGIN, answer.headers
        exposed = {
            h.strip().lower() for h in answer.headers["access-control-expose-headers"].split(",")
        }
        assert {"etag", "x-request-id", "retry-after"} <= exposed, exposed
