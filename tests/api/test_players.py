"""Player identities against a real server and Redis: made without a password, proved by the
key alone (a forged or stale key learns nothing), renamed under the name policy; a seat taken
with the key is linked to the player, listed in their games on any device, and its token can
be issued again there (the old one then stops working); private tables refuse strangers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from support import bearer, create_game, problem_of, take_seat, view_of

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


async def new_player(client: httpx.AsyncClient, name: str) -> dict[str, Any]:
    response = await client.post("/v1/players", json={"name": name})
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


async def seat_with_key(
    client: httpx.AsyncClient, game: str, seat: int, player: dict[str, Any], **body: Any
) -> httpx.Response:
    return await client.post(
        f"/v1/games/{game}/seats/{seat}",
        json={"name": player["name"], **body},
        headers=bearer(player["key"]),
    )


async def test_an_identity_is_made_proved_and_renamed(client: httpx.AsyncClient) -> None:
    ann = await new_player(client, "Ann")
    assert ann["player_id"].startswith("p") and ann["key"].startswith(ann["player_id"] + ".")
    me = (await client.get("/v1/players/me", headers=bearer(ann["key"]))).json()
    assert me == {
        "player_id": ann["player_id"],
        "name": "Ann",
        "created_at": ann["created_at"],
        "rating": {"rating": 1500, "games": 0, "wins": 0},
    }
    renamed = await client.patch(
        "/v1/players/me", json={"name": "Ann Marie"}, headers=bearer(ann["key"])
    )
    assert renamed.status_code == 200 and renamed.json()["name"] == "Ann Marie"
    profile = (await client.get(f"/v1/players/{ann['player_id']}")).json()
    assert profile["name"] == "Ann Marie" and profile["history"] == []
    assert "key" not in profile and ann["key"] not in str(profile)
    refused = await client.patch(
        "/v1/players/me", json={"name": "evil\u202eman"}, headers=bearer(ann["key"])
    )
    problem_of(refused, 400, "invalid_name")
    assert (await client.get("/v1/players/me", headers=bearer(ann["key"]))).json()["name"] == (
        "Ann Marie"
    )


async def test_forged_and_missing_keys_learn_nothing(client: httpx.AsyncClient) -> None:
    ann = await new_player(client, "Bea")
    forged = f"{ann['player_id']}.player.{'A' * 43}"
    for key in (forged, "p0000000000000000.player.x", "nonsense", ann["key"] + "x"):
        answer = await client.get("/v1/players/me", headers=bearer(key))
        body = problem_of(answer, 401, "unauthorized")
        assert "Bea" not in answer.text and body.get("detail")
        problem_of(
            await client.get("/v1/players/me/games", headers=bearer(key)), 401, "unauthorized"
        )
    problem_of(await client.get("/v1/players/me"), 401, "unauthorized")
    # Every request a player key proves: a forged key of the right shape, or a seat token
    # in its place, gets the same 401 and learns nothing (no ticket, no game, no token).
    game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    assert (await seat_with_key(client, game, 0, ann)).status_code == 201
    requests = [
        ("PATCH", "/v1/players/me", {"name": "Mallory"}),
        ("POST", f"/v1/games/{game}/seats/0/token", None),
        ("POST", "/v1/matchmaking", {"partner": None, "bots_after_s": None}),
        ("GET", "/v1/matchmaking", None),
        ("DELETE", "/v1/matchmaking", None),
    ]
    for method, path, body in requests:
        for key in (forged, f"{game}.0.{'A' * 43}"):
            answer = await client.request(method, path, json=body, headers=bearer(key))
            problem_of(answer, 401, "unauthorized")
            for secret in ('"token"', '"hand"', '"game_id"', "Bea", '"waiting"', '"status":"'):
                assert secret not in answer.text, (method, path, answer.text)
    me = (await client.get("/v1/players/me", headers=bearer(ann["key"]))).json()
    assert me["name"] == "Bea"  # nothing a forged key sent changed anything
    problem_of(await client.get("/v1/players/p0123456789abcdef"), 404, "not_found")
    problem_of(await client.get("/v1/players/not-an-id"), 400, "invalid_request")


async def test_a_seat_follows_its_player_to_another_device(client: httpx.AsyncClient) -> None:
    cy = await new_player(client, "Cy")
    game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    seated = await seat_with_key(client, game, 0, cy)
    assert seated.status_code == 201, seated.text
    first_token = seated.json()["token"]
    # Another device: only the key (the recovery code) came along.
    mine = (await client.get("/v1/players/me/games", headers=bearer(cy["key"]))).json()
    assert [g["game_id"] for g in mine["games"]] == [game]
    assert mine["games"][0]["player_ids"][0] == cy["player_id"]
    assert (await view_of(client, game))["seats"][0]["player"] == cy["player_id"]
    reissued = await client.post(f"/v1/games/{game}/seats/0/token", headers=bearer(cy["key"]))
    assert reissued.status_code == 201, reissued.text
    token = reissued.json()["token"]
    assert token != first_token
    assert (await view_of(client, game, token))["viewer"] == 0
    stale = await client.get(f"/v1/games/{game}", headers=bearer(first_token))
    problem_of(stale, 401, "unauthorized")
    assert "hand" not in stale.text
    # The stale token is refused everywhere a seat token works, before anything is read.
    for method, path, body in [
        ("GET", f"/v1/games/{game}/seats/0/hints", None),
        ("GET", f"/v1/games/{game}/events?after=0", None),
        ("POST", f"/v1/games/{game}/seats/0/commands", {"type": "stand"}),
    ]:
        answer = await client.request(method, path, json=body, headers=bearer(first_token))
        problem_of(answer, 401, "unauthorized")
        for secret in ('"hand"', '"hands"', '"legal_actions"', "duplicate", "reused"):
            assert secret not in answer.text, (path, answer.text)
    # Nobody else gets a token for it: not another player, not a forged key.
    dee = await new_player(client, "Dee")
    problem_of(
        await client.post(f"/v1/games/{game}/seats/0/token", headers=bearer(dee["key"])),
        403,
        "forbidden",
    )
    problem_of(
        await client.post(
            f"/v1/games/{game}/seats/0/token",
            headers=bearer(f"{cy['player_id']}.player.{'B' * 43}"),
        ),
        401,
        "unauthorized",
    )
    problem_of(
        await client.post(f"/v1/games/{game}/seats/1/token", headers=bearer(cy["key"])),
        403,
        "forbidden",
    )


async def test_my_games_page_newest_first(client: httpx.AsyncClient) -> None:
    eve = await new_player(client, "Eve")
    games = []
    for _ in range(3):
        game = (await create_game(client, [None, None, None, None]))["game_id"]
        assert (await seat_with_key(client, game, 2, eve)).status_code == 201
        games.append(game)
    first = (await client.get("/v1/players/me/games?limit=2", headers=bearer(eve["key"]))).json()
    assert [g["game_id"] for g in first["games"]] == games[::-1][:2]
    rest = (
        await client.get(
            f"/v1/players/me/games?limit=2&cursor={first['next_cursor']}",
            headers=bearer(eve["key"]),
        )
    ).json()
    assert [g["game_id"] for g in rest["games"]] == games[:1] and rest["next_cursor"] is None


async def test_private_tables_refuse_strangers(client: httpx.AsyncClient) -> None:
    made = await client.post("/v1/games", json={"private": True})
    assert made.status_code == 201, made.text
    game, invite, creator = (
        made.json()["game_id"],
        made.json()["invite"],
        made.json()["creator_token"],
    )
    assert invite.startswith(f"{game}.invite.")
    listed = (await client.get("/v1/games?status=open&limit=100")).json()["games"]
    assert game not in [g["game_id"] for g in listed]
    stranger = await client.post(f"/v1/games/{game}/seats/1", json={"name": "Stranger"})
    problem_of(stranger, 403, "forbidden")
    wrong = await client.post(
        f"/v1/games/{game}/seats/1",
        json={"name": "Stranger", "invite": f"{game}.invite.{'C' * 32}"},
    )
    problem_of(wrong, 403, "forbidden")
    assert [s["name"] for s in (await view_of(client, game))["seats"]] == [None] * 4
    friend = await client.post(
        f"/v1/games/{game}/seats/1", json={"name": "Friend", "invite": invite}
    )
    assert friend.status_code == 201, friend.text
    stranger_bot = await client.post(f"/v1/games/{game}/seats/2/bot", json={"kind": "random"})
    problem_of(stranger_bot, 401, "unauthorized")
    host_bot = await client.post(
        f"/v1/games/{game}/seats/2/bot", json={"kind": "random"}, headers=bearer(creator)
    )
    assert host_bot.status_code == 201, host_bot.text


async def test_a_forged_player_key_takes_no_seat(client: httpx.AsyncClient) -> None:
    """The key is proved before the seat is looked at."""
    game = (await create_game(client, [None, None, None, None]))["game_id"]
    forged = await client.post(
        f"/v1/games/{game}/seats/0",
        json={"name": "Forger"},
        headers=bearer(f"p{'0' * 16}.player.{'D' * 43}"),
    )
    problem_of(forged, 401, "unauthorized")
    assert await take_seat(client, game, 0, "Honest")


async def test_a_stream_of_a_reissued_token_shows_no_new_cards(client: httpx.AsyncClient) -> None:
    """The token a stolen or lost device holds stops showing the seat everywhere: a stream it
    opened before the re-issue ends before the seat's next cards, instead of receiving them
    (a re-issue is no event, so the stream checks its token before it shows new cards)."""
    import asyncio
    import json

    from support import sse_frames

    eve = await new_player(client, "Eve")
    game = (
        await create_game(client, [None, "heuristic", "heuristic", "heuristic"], turn_seconds=None)
    )["game_id"]
    seated = await seat_with_key(client, game, 0, eve)
    old = seated.json()["token"]
    seen: list[tuple[str | None, Any]] = []
    opened = asyncio.Event()

    async def follow() -> None:
        async for frame in sse_frames(
            client, f"/v1/games/{game}/stream", params={"token": old, "view_each": "true"}
        ):
            seen.append((frame.event, json.loads(frame.data)))
            opened.set()

    following = asyncio.create_task(follow())
    await asyncio.wait_for(opened.wait(), 10)
    new = (await client.post(f"/v1/games/{game}/seats/0/token", headers=bearer(eve["key"]))).json()[
        "token"
    ]
    before = len(seen)
    view = await view_of(client, game, new)
    for _ in range(200):  # play the seat on the new device into the next hand
        if view["hand_number"] >= 2 or view["phase"] == "ended":
            break
        if view["to_act"] == 0 and view["legal_actions"]:
            answer = await client.post(
                f"/v1/games/{game}/seats/0/commands",
                json=view["legal_actions"][0],
                headers=bearer(new),
            )
            assert answer.status_code == 200, answer.text
            view = answer.json()["view"]
        else:
            await asyncio.sleep(0.02)
            view = await view_of(client, game, new)
    assert view["hand_number"] >= 2
    await asyncio.wait_for(following, 10)  # the old stream ended by itself
    later_deals = [data for event, data in seen[before:] if event == "Dealt" and data["hand"] >= 2]
    assert later_deals == []  # it never reached the next deal, let alone its cards
    assert not [d for e, d in seen if e == "view" and d.get("hand_number", 0) >= 2 and d["hand"]]
