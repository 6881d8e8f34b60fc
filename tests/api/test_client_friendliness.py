"""What an outside client trips over: deep JSON, weak ETags, auth challenges, tokens in URLs."""

from __future__ import annotations

import httpx
from support import bearer, create_game, problem_of, take_seat


async def test_deeply_nested_json_is_a_bad_request_not_a_crash(client: httpx.AsyncClient) -> None:
    body = '{"rules":' + "[" * 5000 + "]" * 5000 + "}"
    response = await client.post(
        "/v1/games", content=body, headers={"content-type": "application/json"}
    )
    problem_of(response, 400, "invalid_request")


async def test_if_none_match_uses_weak_comparison(client: httpx.AsyncClient) -> None:
    game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    first = await client.get(f"/v1/games/{game}")
    etag = first.headers["etag"]
    assert etag.startswith('W/"')
    for tag in (etag, etag.removeprefix("W/"), f'"nope", {etag}'):
        again = await client.get(f"/v1/games/{game}", headers={"If-None-Match": tag})
        assert again.status_code == 304, tag


async def test_unauthorized_answers_carry_a_bearer_challenge(client: httpx.AsyncClient) -> None:
    game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    response = await client.post(f"/v1/games/{game}/seats/0/commands", json={"type": "stand"})
    problem_of(response, 401, "unauthorized")
    assert response.headers["www-authenticate"].startswith("Bearer")


async def test_a_token_in_the_url_only_works_for_reads(client: httpx.AsyncClient) -> None:
    game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    token = await take_seat(client, game, 0, "ann")
    seen = await client.get(f"/v1/games/{game}", params={"token": token})
    assert seen.json()["viewer"] == 0
    action = (await client.get(f"/v1/games/{game}", headers=bearer(token))).json()
    write = await client.post(
        f"/v1/games/{game}/seats/0/commands",
        json=action["legal_actions"][0] if action["legal_actions"] else {"type": "stand"},
        params={"token": token},
    )
    problem_of(write, 401, "unauthorized")


async def test_a_page_of_events_tells_a_poller_where_the_game_is(
    client: httpx.AsyncClient,
) -> None:
    """A poller asking past the end got ``{"events": [], "next_after": <its after>}``, the same
    as one that is up to date, so it could wait forever for versions that do not exist (an
    outside trial): every page says the game's version now."""
    game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    await take_seat(client, game, 0, "Ann")
    version = (await client.get(f"/v1/games/{game}")).json()["version"]
    first = (await client.get(f"/v1/games/{game}/events", params={"limit": 2})).json()
    assert first["next_after"] == 2 and first["version"] == version > 2  # more to read now
    past = (await client.get(f"/v1/games/{game}/events", params={"after": 99_999})).json()
    assert past["events"] == [] and past["version"] == version < past["next_after"]
