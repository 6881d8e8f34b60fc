"""Requests that used to get through or crash, each replayed against a real server: a lobby
cursor of non-ASCII digits, a ``text/plain`` body from a cross-site form, invisible or copied
seat names, an all-bot game with a huge target, a flood of new tables, a flood of streams."""

from __future__ import annotations

import asyncio
import contextlib
import json

import httpx
import pytest
from support import SSE, ServerProcess, create_game, problem_of, take_seat

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


async def test_a_cursor_of_non_ascii_digits_is_a_400(client: httpx.AsyncClient) -> None:
    for cursor in ("\u0661\u0662\u0663:abc", "\uff11\uff12\uff13:abc", "123:abc\n", "12:", ":abc"):
        response = await client.get("/v1/games", params={"cursor": cursor})
        problem_of(response, 400, "invalid_request")
    assert (await client.get("/v1/games", params={"cursor": "123:abc"})).status_code == 200


async def test_a_text_plain_body_is_refused_with_415(client: httpx.AsyncClient) -> None:
    """A cross-site form may post ``text/plain`` without a preflight: it must not act."""
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {"Content-Type": content_type} if content_type else {}
        response = await client.post(
            "/v1/games", content=json.dumps({"bots": [None] * 4}), headers=headers
        )
        problem_of(response, 415, "unsupported_media_type")
    game = await create_game(client, [None, None, None, None])
    seat = await client.post(
        f"/v1/games/{game['game_id']}/seats/0",
        content=b'{"name": "Ann"}',
        headers={"Content-Type": "text/plain;charset=UTF-8"},
    )
    problem_of(seat, 415, "unsupported_media_type")
    assert (await client.get(f"/v1/games/{game['game_id']}")).json()["seats"][0]["name"] is None
    # JSON with its parameters is fine; a body-less POST needs no type.
    ok = await client.post(
        "/v1/games", content=b"{}", headers={"Content-Type": "application/json; charset=utf-8"}
    )
    assert ok.status_code == 201, ok.text


@pytest.mark.parametrize(
    "name",
    [
        "Ann\u200b",  # zero-width space
        "\u202eennA",  # right-to-left override
        "A\u2066nn",  # bidi isolate
        "\ufeffAnn",  # byte-order mark
        "An\u00adn",  # soft hyphen
        "   ",  # blank
        "\u3164",  # Hangul filler: a letter that draws nothing
        "Ann\u200d",  # zero-width joiner
    ],
)
async def test_invisible_characters_in_a_name_are_refused(
    client: httpx.AsyncClient, name: str
) -> None:
    game = await create_game(client, [None, None, None, None])
    response = await client.post(f"/v1/games/{game['game_id']}/seats/0", json={"name": name})
    problem = problem_of(response, 400, "invalid_name")
    assert problem["detail"].startswith("a name may "), problem


async def test_a_copy_of_another_seats_name_is_refused(client: httpx.AsyncClient) -> None:
    game = await create_game(client, [None, None, None, "heuristic"])
    game_id = game["game_id"]
    await take_seat(client, game_id, 0, "Ann Lee")
    fullwidth = "\uff21\uff4e\uff4e \uff2c\uff45\uff45"  # Ann Lee in full-width letters
    for copy in ("Ann Lee", "ann lee", "ANN  LEE", fullwidth, "heuristic bot"):
        response = await client.post(f"/v1/games/{game_id}/seats/1", json={"name": copy})
        problem_of(response, 409, "name_taken")
    await take_seat(client, game_id, 1, "Ann Leigh")
    players = (await client.get(f"/v1/games/{game_id}")).json()["seats"]
    assert [p["name"] for p in players][:2] == ["Ann Lee", "Ann Leigh"]


async def test_an_all_bot_game_has_a_capped_target(client: httpx.AsyncClient) -> None:
    """A game of four bots is written whole by the request that creates it: at target 99 one
    client could add about 95 MB of Redis a minute."""
    bots = ["random"] * 4
    response = await client.post("/v1/games", json={"bots": bots, "rules": {"target": 99}})
    problem = problem_of(response, 409, "target_too_high")
    assert "21" in problem["detail"]
    assert (await client.post("/v1/games", json={"bots": bots, "rules": {"target": 21}})).is_success
    # A table people play is not capped (they play it at their own pace).
    people = await client.post("/v1/games", json={"bots": [None] * 4, "rules": {"target": 99}})
    assert people.status_code == 201, people.text
    # A target written as a float is the same target (the body is read that way too).
    floated = await client.post("/v1/games", json={"bots": bots, "rules": {"target": 85.0}})
    problem_of(floated, 409, "target_too_high")


async def test_an_all_bot_game_seats_no_searching_bot(client: httpx.AsyncClient) -> None:
    """Its whole game would be searched in the request that creates it: seconds of a bot
    worker for one request. A table with a person may seat them."""
    for level in ("strong", "master"):
        response = await client.post(
            "/v1/games", json={"bots": ["random", level, "random", "random"]}
        )
        problem = problem_of(response, 409, "search_needs_a_person")
        assert "people" in problem["detail"]
    with_person = await client.post(
        "/v1/games", json={"bots": [None, "strong", "master", "strong"]}
    )
    assert with_person.status_code == 201, with_person.text


async def test_table_creations_have_an_hourly_quota_per_address(
    quota_server: ServerProcess,
) -> None:
    me = {"X-Forwarded-For": "198.19.7.1"}
    async with httpx.AsyncClient(base_url=quota_server.url, timeout=10.0) as client:
        for _ in range(3):
            assert (await client.post("/v1/games", json={}, headers=me)).status_code == 201
        refused = await client.post("/v1/games", json={"bots": ["random"] * 4}, headers=me)
        problem = problem_of(refused, 429, "quota_exceeded")
        assert 1 <= int(refused.headers["retry-after"]) <= 3600
        assert problem["retry_after"] == int(refused.headers["retry-after"])
        other = await client.post("/v1/games", json={}, headers={"X-Forwarded-For": "198.19.7.2"})
        assert other.status_code == 201, other.text


async def test_only_new_tables_use_up_the_quota(quota_server: ServerProcess) -> None:
    """Retries answered as duplicates and refused creations are not counted; a retry still
    gets its table once the quota is used up."""
    me = {"X-Forwarded-For": "198.19.7.3"}
    keyed = {**me, "Idempotency-Key": "quota-key-1-0123456789"}
    async with httpx.AsyncClient(base_url=quota_server.url, timeout=10.0) as client:
        first = await client.post("/v1/games", json={}, headers=keyed)
        assert first.status_code == 201, first.text
        for _ in range(3):
            again = await client.post("/v1/games", json={}, headers=keyed)
            assert again.status_code == 201 and again.json()["duplicate"], again.text
            reused = await client.post("/v1/games", json={"bots": ["random"] * 4}, headers=keyed)
            problem_of(reused, 409, "idempotency_key_reused")
        for _ in range(2):
            assert (await client.post("/v1/games", json={}, headers=me)).status_code == 201
        problem_of(await client.post("/v1/games", json={}, headers=me), 429, "quota_exceeded")
        late = await client.post("/v1/games", json={}, headers=keyed)
        assert late.status_code == 201, late.text
        assert late.json() == {**first.json(), "duplicate": True}
        unknown = {**me, "Idempotency-Key": "quota-key-2-0123456789"}
        problem_of(await client.post("/v1/games", json={}, headers=unknown), 429, "quota_exceeded")


async def test_open_streams_are_capped_per_address(quota_server: ServerProcess) -> None:
    me = {"X-Forwarded-For": "198.19.8.1"}
    async with httpx.AsyncClient(base_url=quota_server.url, timeout=10.0) as client:
        game = (await client.post("/v1/games", json={}, headers=me)).json()["game_id"]
        path = f"/v1/games/{game}/stream"
        async with contextlib.AsyncExitStack() as streams:
            for _ in range(2):
                response = await streams.enter_async_context(client.stream("GET", path, headers=me))
                assert response.status_code == 200
                assert response.headers["content-type"].startswith(SSE)
            third = await client.get(path, headers=me)
            problem_of(third, 429, "too_many_streams")
            assert int(third.headers["retry-after"]) >= 1
            # Another address is not affected.
            async with client.stream(
                "GET", path, headers={"X-Forwarded-For": "198.19.8.2"}
            ) as other:
                assert other.status_code == 200
        # Closed streams free their places.
        await asyncio.sleep(0.3)
        async with client.stream("GET", path, headers=me) as again:
            assert again.status_code == 200


async def test_two_people_racing_for_one_name_on_two_instances(
    client: httpx.AsyncClient, second_client: httpx.AsyncClient
) -> None:
    """The names are checked as of the version the seating is stored at: of two seatings
    with one name at once, on two instances, exactly one gets it."""
    for round_ in range(5):
        game_id = (await create_game(client, [None, None, None, None]))["game_id"]
        name = f"Twin {round_}"
        answers = await asyncio.gather(
            client.post(f"/v1/games/{game_id}/seats/1", json={"name": name}),
            second_client.post(f"/v1/games/{game_id}/seats/2", json={"name": name}),
        )
        assert sorted(a.status_code for a in answers) == [201, 409], [a.text for a in answers]
        problem_of(next(a for a in answers if a.status_code == 409), 409, "name_taken")
        seats = (await client.get(f"/v1/games/{game_id}")).json()["seats"]
        assert [s["name"] for s in seats].count(name) == 1


async def _raw(server: ServerProcess, request: bytes) -> bytes:
    host, port = server.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(request)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()


@pytest.mark.parametrize("host", [b"a:b", b"a:99999", b"a:", b"x@y:z", b"[::1]:p"])
async def test_a_host_whose_port_is_no_number_is_a_400(server: ServerProcess, host: bytes) -> None:
    """No URL can be made of it: every answer naming the request's path was a bare 500 (an
    outside review: a refused command, with ``Host: a:b``)."""
    request = b"GET /v1/games/nope HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n"
    head, _, body = (await _raw(server, request)).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 "), head
    assert json.loads(body)["code"] == "invalid_request"


async def test_a_host_with_a_port_or_none_is_served(server: ServerProcess) -> None:
    for host in (b"localhost:8000", b"[::1]:8000", b"[::1]", b"localhost"):
        request = b"GET /livez HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n"
        assert (await _raw(server, request)).startswith(b"HTTP/1.1 200 "), host
