"""Seat tokens, idempotent retries, expected versions, and two clients racing for one turn,
against real ``allfours serve`` processes (two instances on one Redis for the races)."""

from __future__ import annotations

import asyncio
import random
import uuid
from typing import Any

import httpx
import pytest
from support import (
    all_events,
    bearer,
    check_finished_log,
    command_body,
    create_game,
    moves_in,
    problem_of,
    replay_of,
    take_seat,
    view_of,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

RULE_CODES = {"not_your_turn", "wrong_phase", "card_not_in_hand", "must_follow_suit", "game_over"}


async def version_of(client: httpx.AsyncClient, game_id: str) -> int:
    version: int = (await view_of(client, game_id))["version"]
    return version


async def test_missing_wrong_and_other_seat_tokens_are_refused(client: httpx.AsyncClient) -> None:
    game = (await create_game(client, [None, None, "heuristic", "heuristic"]))["game_id"]
    tokens = {seat: await take_seat(client, game, seat, f"p{seat}") for seat in (0, 1)}
    before = await version_of(client, game)
    to_act = (await view_of(client, game))["to_act"]
    assert to_act in tokens
    action = command_body((await view_of(client, game, tokens[to_act]))["legal_actions"][0])
    url = f"/v1/games/{game}/seats/{to_act}/commands"
    other = 1 - to_act
    forged = tokens[to_act].rsplit(".", 1)[0] + "." + "A" * 43

    refused = {
        "missing": await client.post(url, json=action),
        "not bearer": await client.post(url, json=action, headers={"Authorization": "Basic eDp5"}),
        "empty bearer": await client.post(url, json=action, headers={"Authorization": "Bearer"}),
        "garbage": await client.post(url, json=action, headers=bearer("not-a-seat-token")),
        "forged": await client.post(url, json=action, headers=bearer(forged)),
        "forged in query": await client.post(url, json=action, params={"token": forged}),
        # A genuine token in the URL is not accepted for a write: URLs end up in logs.
        "genuine in query": await client.post(url, json=action, params={"token": tokens[to_act]}),
    }
    for case, response in refused.items():
        body = problem_of(response, 401, "unauthorized")
        assert body["instance"] == url, case
    forbidden = {
        "other seat": await client.post(url, json=action, headers=bearer(tokens[other])),
        "a bot's seat": await client.post(
            f"/v1/games/{game}/seats/2/commands", json=action, headers=bearer(tokens[to_act])
        ),
    }
    for response in forbidden.values():
        problem_of(response, 403, "forbidden")

    # Reads: a seat token gives that seat's view; a false one is refused, never downgraded to
    # a spectator's view.
    assert (await view_of(client, game, tokens[other]))["viewer"] == other
    for path in (f"/v1/games/{game}", f"/v1/games/{game}/events", f"/v1/games/{game}/stream"):
        problem_of(await client.get(path, headers=bearer(forged)), 401, "unauthorized")
        problem_of(await client.get(path, params={"token": "x.9.y"}), 401, "unauthorized")
    assert await version_of(client, game) == before, "a refused command changed the game"
    accepted = await client.post(url, json=action, headers=bearer(tokens[to_act]))
    assert accepted.status_code == 200, accepted.text


async def test_a_token_is_forbidden_on_another_game(client: httpx.AsyncClient) -> None:
    first = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    second = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    token = await take_seat(client, first, 0, "ann")
    own = await take_seat(client, second, 0, "bob")
    before = await version_of(client, second)
    action = command_body((await view_of(client, second, own))["legal_actions"][0])
    problem_of(
        await client.post(
            f"/v1/games/{second}/seats/0/commands", json=action, headers=bearer(token)
        ),
        403,
        "forbidden",
    )
    for path in (f"/v1/games/{second}", f"/v1/games/{second}/events", f"/v1/games/{second}/stream"):
        problem_of(await client.get(path, headers=bearer(token)), 403, "forbidden")
        problem_of(await client.get(path, params={"token": token}), 403, "forbidden")
    assert await version_of(client, second) == before


async def test_two_clients_racing_for_one_turn_one_wins(
    client: httpx.AsyncClient, second_client: httpx.AsyncClient
) -> None:
    """Two clients with the same seat token, each on its own server instance, send a command
    for the same turn at the same time, every turn of a whole game: exactly one is applied,
    the other is refused (409), and the log stays a lawful game."""
    rng = random.Random(4)
    game = (await create_game(client, [None, "heuristic", "random", "heuristic"]))["game_id"]
    token = await take_seat(client, game, 0, "ann")
    url = f"/v1/games/{game}/seats/0/commands"
    wins = 0
    losers: list[str] = []
    async with asyncio.timeout(90):
        for turn in range(500):
            view = await view_of(client, game, token)
            if view["phase"] == "ended":
                break
            assert view["to_act"] == 0, view
            legal = view["legal_actions"]
            # The same card twice, unconditionally: once played it is gone for this hand
            # (not the hand's last card: the next hand could deal it again), so the second
            # must be refused by the rules.
            same_card = turn % 2 == 1 and legal[0]["type"] == "play" and len(view["hand"]) > 1
            if same_card:
                bodies = [command_body(legal[0])] * 2
            else:
                # Different moves, both conditional on the version seen.
                first, second = rng.sample(legal, 2) if len(legal) > 1 else (legal[0], legal[0])
                bodies = [
                    command_body(first, expected_version=view["version"]),
                    command_body(second, expected_version=view["version"]),
                ]
            responses = await asyncio.gather(
                client.post(url, json=bodies[0], headers=bearer(token)),
                second_client.post(url, json=bodies[1], headers=bearer(token)),
            )
            statuses = sorted(r.status_code for r in responses)
            assert statuses == [200, 409], [r.text for r in responses]
            winner = next(r for r in responses if r.status_code == 200).json()
            assert winner["first_version"] == view["version"] + 1 and not winner["duplicate"]
            loser = next(r for r in responses if r.status_code == 409)
            code = problem_of(loser, 409, loser.json()["code"])["code"]
            if same_card:
                assert code in RULE_CODES, code
            else:
                assert code == "version_conflict", code
                assert loser.json()["current_version"] >= winner["version"]
            losers.append(code)
            wins += 1
        else:
            raise AssertionError("the game did not end")
    _, full_log = await replay_of(client, game)
    check_finished_log(full_log)
    assert sum(moves_in(full_log, 0).values()) == wins
    assert "version_conflict" in losers and set(losers) - {"version_conflict"}


async def test_an_idempotency_key_retry_returns_the_first_outcome(
    client: httpx.AsyncClient, second_client: httpx.AsyncClient
) -> None:
    game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    token = await take_seat(client, game, 0, "ann")
    view = await view_of(client, game, token)
    assert view["to_act"] == 0
    url = f"/v1/games/{game}/seats/0/commands"
    key = {"Idempotency-Key": f"retry-{uuid.uuid4()}", **bearer(token)}
    body = command_body(view["legal_actions"][0])
    first = await client.post(url, json=body, headers=key)
    assert first.status_code == 200, first.text
    assert not first.json()["duplicate"]
    after_first = await version_of(client, game)

    def outcome(response: httpx.Response) -> dict[str, Any]:
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()
        assert data["duplicate"] is True
        data.pop("duplicate")
        return data

    expected = first.json()
    expected.pop("duplicate")
    # The same retry, on this instance and on another one; then the key reused for another
    # command (a client bug): refused, never mistaken for a retry nor acted on.
    assert outcome(await client.post(url, json=body, headers=key)) == expected
    assert outcome(await second_client.post(url, json=body, headers=key)) == expected
    # Any other request: even one the game would refuse is reported as the key's misuse.
    other = {"type": "beg"} if body["type"] != "beg" else {"type": "stand"}
    problem_of(await client.post(url, json=other, headers=key), 409, "idempotency_key_reused")
    assert await version_of(client, game) == after_first, "a retry acted twice"
    log = await all_events(client, game, token)
    assert len(log) == after_first


async def test_an_idempotency_key_creates_one_game(client: httpx.AsyncClient) -> None:
    headers = {"Idempotency-Key": f"create-{uuid.uuid4()}"}
    body = {"bots": [None, "random", None, "random"]}
    first = await client.post("/v1/games", json=body, headers=headers)
    again = await client.post("/v1/games", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert (first.json()["duplicate"], again.json()["duplicate"]) == (False, True)
    reused = await client.post(
        "/v1/games", json={"bots": [None, None, None, "random"]}, headers=headers
    )
    problem_of(reused, 409, "idempotency_key_reused")
    assert first.json()["game_id"] == again.json()["game_id"]
    assert first.json()["version"] == again.json()["version"]
    assert len(await all_events(client, first.json()["game_id"])) == first.json()["version"]


async def test_idempotency_keys_belong_to_a_seat(client: httpx.AsyncClient) -> None:
    """Two seats that happen to choose the same key act independently: a key is only ever
    matched against the same seat's earlier commands."""
    game = (await create_game(client, [None, None, "random", "random"]))["game_id"]
    tokens = {seat: await take_seat(client, game, seat, f"p{seat}") for seat in (0, 1)}
    acted: list[int] = []
    for _ in range(60):
        view = await view_of(client, game)
        seat = view["to_act"]
        if view["phase"] == "ended" or len(acted) == 2:
            break
        mine = await view_of(client, game, tokens[seat])
        keyed = seat not in acted  # each seat's first move uses the key "1"
        response = await client.post(
            f"/v1/games/{game}/seats/{seat}/commands",
            json=mine["legal_actions"][0],  # sent back as listed, seat included
            headers={**bearer(tokens[seat]), **({"Idempotency-Key": "1"} if keyed else {})},
        )
        assert response.status_code == 200, response.text
        assert response.json()["duplicate"] is False
        if keyed:
            acted.append(seat)
    assert sorted(acted) == [0, 1]


async def test_expected_version_mismatch_is_a_conflict_with_the_current_version(
    client: httpx.AsyncClient,
) -> None:
    game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    token = await take_seat(client, game, 0, "ann")
    view = await view_of(client, game, token)
    current = view["version"]
    url = f"/v1/games/{game}/seats/0/commands"
    action = view["legal_actions"][0]
    for stale in (current - 1, current + 1, 0, -3):
        response = await client.post(
            url, json=command_body(action, expected_version=stale), headers=bearer(token)
        )
        problem = problem_of(response, 409, "version_conflict")
        assert problem["current_version"] == current
    assert await version_of(client, game) == current
    response = await client.post(
        url, json=command_body(action, expected_version=current), headers=bearer(token)
    )
    assert response.status_code == 200, response.text
    assert response.json()["first_version"] == current + 1
