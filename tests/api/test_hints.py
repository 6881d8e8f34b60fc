"""Hints for a seat: while it is to act, each of its legal actions with the master search's
chance to win, best first; for its token only (else a bare 401/403, nothing told)."""

from __future__ import annotations

from pathlib import Path

import httpx
from support import bearer, create_game, problem_of, start_server, take_seat, view_of


async def test_hints_rank_every_legal_action_for_the_seat_to_act(
    client: httpx.AsyncClient,
) -> None:
    game = (
        await create_game(client, [None, "heuristic", "heuristic", "heuristic"], turn_seconds=None)
    )["game_id"]
    token = await take_seat(client, game, 0, "ann")
    path = f"/v1/games/{game}/seats/0/hints"
    view = await view_of(client, game, token)
    assert view["to_act"] == 0  # a kick alone never ends a game to 14
    answer = await client.get(path, headers=bearer(token))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["version"] == view["version"] and body["seat"] == 0
    actions = [hint["action"] for hint in body["hints"]]
    assert sorted(map(str, actions)) == sorted(map(str, view["legal_actions"]))
    chances = [hint["win_probability"] for hint in body["hints"]]
    assert all(0.0 <= p <= 1.0 for p in chances) and chances == sorted(chances, reverse=True)

    # Someone else's seat, a forged token, none: told nothing.
    other = await take_seat(client, (await create_game(client, [None] * 4))["game_id"], 1, "bo")
    problem_of(await client.get(path, headers=bearer(other)), 403, "forbidden")
    problem_of(await client.get(path, headers=bearer(token[:-4] + "AAAA")), 401, "unauthorized")
    problem_of(await client.get(path), 401, "unauthorized")
    # The query's token, as the spec lists it: the seat's hints (a search of its own: the
    # chances differ), and a forged one told nothing.
    again = (await client.get(path, params={"token": token})).json()
    assert (again["version"], again["seat"]) == (body["version"], 0)
    assert sorted(str(hint["action"]) for hint in again["hints"]) == sorted(map(str, actions))
    forged = {"token": token[:-4] + "AAAA"}
    problem_of(await client.get(path, params=forged), 401, "unauthorized")


async def test_no_hints_while_the_seat_is_not_to_act(client: httpx.AsyncClient) -> None:
    game = (await create_game(client, [None, None, "heuristic", "heuristic"], turn_seconds=None))[
        "game_id"
    ]
    ann = await take_seat(client, game, 0, "ann")
    bo = await take_seat(client, game, 1, "bo")
    view = await view_of(client, game, ann)
    waiting = 1 if view["to_act"] == 0 else 0
    token = bo if waiting == 1 else ann
    answer = await client.get(f"/v1/games/{game}/seats/{waiting}/hints", headers=bearer(token))
    assert answer.status_code == 200 and answer.json()["hints"] == []


async def test_searches_too_slow_are_refused_and_bots_fall_back(
    redis_url: str, tmp_path: Path
) -> None:
    """With no time for a search (``ALLFOURS_BOT_TIMEOUT_S=0``) a hint is 503 ``bots_busy``
    with ``Retry-After``, never a 500, and the search bots' tables still play: the heuristic
    moves for them."""
    server = await start_server(redis_url, tmp_path, {"ALLFOURS_BOT_TIMEOUT_S": "0"})
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10.0) as client:
            game = (
                await create_game(client, [None, "strong", "strong", "strong"], turn_seconds=None)
            )["game_id"]
            token = await take_seat(client, game, 0, "ann")
            view = await view_of(client, game, token)
            assert view["to_act"] == 0  # a kick alone never ends a game to 14
            refused = await client.get(f"/v1/games/{game}/seats/0/hints", headers=bearer(token))
            problem_of(refused, 503, "bots_busy")
            assert refused.headers["Retry-After"] == "1"
            action = {k: v for k, v in view["legal_actions"][0].items() if k != "seat"}
            played = await client.post(
                f"/v1/games/{game}/seats/0/commands", json=action, headers=bearer(token)
            )
            assert played.status_code == 200, played.text
            assert played.json()["version"] > view["version"]
    finally:
        assert await server.stop() == 0, server.log_tail()
