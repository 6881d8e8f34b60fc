"""Who may shape a table, against real servers: its creator (the creator token) and the people
seated at it seat bots; only the creator closes it before its first card; a rematch is always
the table the game recorded and no public creation can take or block its id; every table a
client causes, rematches included, counts against its address's quota; a turn clock has a
floor and the lobby shows it; an away seat is its person's for a grace period."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support import (
    ServerProcess,
    bearer,
    create_game,
    problem_of,
    seat_command,
    start_server,
    take_seat,
    view_of,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def _forged_creator(game: str) -> str:
    return f"{game}.creator.{'A' * 43}"


async def _bot(
    client: httpx.AsyncClient, game: str, seat: int, token: str | None, **headers: str
) -> httpx.Response:
    auth = bearer(token) if token else {}
    return await client.post(
        f"/v1/games/{game}/seats/{seat}/bot", json={"kind": "random"}, headers={**auth, **headers}
    )


async def test_only_the_creator_or_a_seated_person_seats_a_bot(client: httpx.AsyncClient) -> None:
    created = await create_game(client, [None, None, None, None])
    game, creator = created["game_id"], created["creator_token"]
    assert creator.startswith(f"{game}.creator.")
    other = (await create_game(client, [None, None, None, None]))["creator_token"]
    problem_of(await _bot(client, game, 1, None), 401, "unauthorized")
    problem_of(await _bot(client, game, 1, _forged_creator(game)), 401, "unauthorized")
    problem_of(await _bot(client, game, 1, f"{game}.1.{'A' * 43}"), 401, "unauthorized")
    problem_of(await _bot(client, game, 1, other), 403, "forbidden")
    assert (await view_of(client, game))["seats"][1]["name"] is None  # nothing was seated
    assert (await _bot(client, game, 1, creator)).status_code == 201
    ann = await take_seat(client, game, 0, "ann")
    assert (await _bot(client, game, 2, ann)).status_code == 201
    await seat_command(client, game, 0, "leave", ann)
    # Ann's seat is open again: her old token seats no bot.
    problem_of(await _bot(client, game, 3, ann), 403, "forbidden")
    assert [s["bot"] for s in (await view_of(client, game))["seats"]] == [
        None,
        "random",
        "random",
        None,
    ]


async def test_a_bot_seated_without_a_level_is_the_heuristic(client: httpx.AsyncClient) -> None:
    """addBot's ``kind`` may be left out: the spec says the heuristic, and so it is."""
    created = await create_game(client, [None, None, None, None])
    game = created["game_id"]
    seated = await client.post(
        f"/v1/games/{game}/seats/1/bot", json={}, headers=bearer(created["creator_token"])
    )
    assert seated.status_code == 201, seated.text
    assert (await view_of(client, game))["seats"][1]["bot"] == "heuristic"


async def test_the_creator_closes_the_table_before_its_first_card(
    client: httpx.AsyncClient,
) -> None:
    created = await create_game(client, [None, None, "random", "random"])
    game, creator = created["game_id"], created["creator_token"]
    await take_seat(client, game, 0, "ann")
    url = f"/v1/games/{game}/abort"
    problem_of(await client.post(url), 401, "unauthorized")
    problem_of(await client.post(url, headers=bearer(_forged_creator(game))), 401, "unauthorized")
    problem_of(await client.post(url, headers=bearer(f"{game}.0.x")), 401, "unauthorized")
    assert (await view_of(client, game))["phase"] == "seating"
    closed = await client.post(url, headers=bearer(creator))
    assert closed.status_code == 200, closed.text
    view = await view_of(client, game)
    assert view["phase"] == "ended" and view["end_reason"] == "aborted"
    events = (await client.get(f"/v1/games/{game}/events")).json()["events"]
    aborted = [e["event"] for e in events if e["event"]["type"] == "GameAborted"]
    assert aborted == [{**aborted[0], "reason": "aborted", "seat": None}]
    problem_of(await client.post(url, headers=bearer(creator)), 409, "game_over")


async def test_the_creator_cannot_close_a_table_once_a_card_is_played(
    client: httpx.AsyncClient,
) -> None:
    created = await create_game(client, ["random", "random", "random", "random"], target=3)
    url = f"/v1/games/{created['game_id']}/abort"
    problem_of(await client.post(url, headers=bearer(created["creator_token"])), 409, "game_over")
    created = await create_game(client, [None, "random", "random", "random"], turn_seconds=None)
    game = created["game_id"]
    token = await take_seat(client, game, 0, "ann")
    while not (view := await view_of(client, game, token))["trick"] and not view["last_trick"]:
        action = view["legal_actions"][0]
        body = {k: v for k, v in action.items() if k != "seat"}
        sent = await client.post(
            f"/v1/games/{game}/seats/0/commands", json=body, headers=bearer(token)
        )
        assert sent.status_code == 200, sent.text
    late = await client.post(f"/v1/games/{game}/abort", headers=bearer(created["creator_token"]))
    problem_of(late, 409, "too_late_to_abort")


async def test_a_creation_key_retried_gives_the_same_creator_token(
    client: httpx.AsyncClient,
) -> None:
    key = {"Idempotency-Key": "ownership-creation-key-0123456789"}
    first = await client.post("/v1/games", json={}, headers=key)
    again = await client.post("/v1/games", json={}, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.json() == {**first.json(), "duplicate": True}
    fresh = await create_game(client, [None, None, None, None])
    assert first.json()["creator_token"] != fresh["creator_token"]


async def test_a_turn_clock_has_a_floor_and_the_lobby_shows_it(client: httpx.AsyncClient) -> None:
    for seconds in (1, 9):
        refused = await client.post("/v1/games", json={"rules": {"turn_seconds": seconds}})
        problem = problem_of(refused, 409, "clock_too_short")
        assert "at least 10" in problem["detail"]
    game = (await create_game(client, [None, None, None, None], turn_seconds=10))["game_id"]
    untimed = (await create_game(client, [None, None, None, None], turn_seconds=None))["game_id"]
    listed = {g["game_id"]: g for g in (await client.get("/v1/games?limit=100")).json()["games"]}
    assert listed[game]["turn_seconds"] == 10
    assert listed[untimed]["turn_seconds"] is None


async def _finish_by_resigning(client: httpx.AsyncClient, game: str, token: str) -> None:
    resigned = await client.post(
        f"/v1/games/{game}/seats/0/commands", json={"type": "resign"}, headers=bearer(token)
    )
    assert resigned.status_code == 200, resigned.text


async def _one_person_game(client: httpx.AsyncClient, **headers: str) -> tuple[str, str]:
    response = await client.post(
        "/v1/games", json={"bots": [None, "random", "random", "random"]}, headers=headers
    )
    assert response.status_code == 201, response.text
    game = response.json()["game_id"]
    seat = await client.post(f"/v1/games/{game}/seats/0", json={"name": "ann"}, headers=headers)
    assert seat.status_code == 201, seat.text
    return game, seat.json()["token"]


async def test_a_rematch_cannot_be_taken_or_blocked_by_a_public_creation(
    client: httpx.AsyncClient,
) -> None:
    game, token = await _one_person_game(client)
    # A stranger tries to take the rematch's id before the game ends, with both kinds of key.
    for key in (f"rematch:{game}", f"rematch-of:{game}:0"):
        squat = await client.post("/v1/games", json={}, headers={"Idempotency-Key": key})
        assert squat.status_code == 201, squat.text
        other = await client.post(
            "/v1/games", json={"bots": ["random"] * 4}, headers={"Idempotency-Key": key}
        )
        problem_of(other, 409, "idempotency_key_reused")
    squatted = {squat.json()["game_id"]}
    await _finish_by_resigning(client, game, token)
    asked = await client.post(f"/v1/games/{game}/rematch", headers=bearer(token))
    assert asked.status_code == 201, asked.text
    rematch = asked.json()["game_id"]
    assert rematch not in squatted and asked.json()["creator_token"] is None
    view = await view_of(client, rematch)
    assert view["rematch_of"] == game and view["reserved"] == [0]
    # The lobby offers a newcomer only what a newcomer may take: the kept seat is listed as
    # reserved (until when), never among the open seats.
    listed = (await client.get("/v1/games", params={"status": "open", "limit": 100})).json()
    (summary,) = [g for g in listed["games"] if g["game_id"] == rematch]
    assert summary["reserved"] == [0] and 0 not in summary["open_seats"]
    assert summary["reserved_until"] == view["reserved_until"]
    newcomer = await client.post(f"/v1/games/{rematch}/seats/0", json={"name": "zed"})
    problem_of(newcomer, 409, "seat_reserved")
    assert (await view_of(client, game))["rematch"] == rematch
    again = await client.post(f"/v1/games/{game}/rematch", headers=bearer(token))
    assert again.json()["game_id"] == rematch and again.json()["duplicate"] is True


async def test_a_rematch_chain_counts_against_the_same_quota(quota_server: ServerProcess) -> None:
    """claim -> resign -> rematch made a fresh table each time with a fresh token: each one
    counts now, and the quota refuses the fourth table of the hour however it is made."""
    me = {"X-Forwarded-For": "198.19.9.1"}
    async with httpx.AsyncClient(base_url=quota_server.url, timeout=10.0) as client:
        game, token = await _one_person_game(client, **me)  # table 1
        for _ in range(2):  # tables 2 and 3: rematches
            await _finish_by_resigning(client, game, token)
            asked = await client.post(f"/v1/games/{game}/rematch", headers={**me, **bearer(token)})
            assert asked.status_code == 201, asked.text
            game = asked.json()["game_id"]
            claimed = await client.post(
                f"/v1/games/{game}/seats/0", json={"name": "ann"}, headers={**me, **bearer(token)}
            )
            assert claimed.status_code == 201, claimed.text
            token = claimed.json()["token"]
        await _finish_by_resigning(client, game, token)
        refused = await client.post(f"/v1/games/{game}/rematch", headers={**me, **bearer(token)})
        problem_of(refused, 429, "quota_exceeded")
        problem_of(await client.post("/v1/games", json={}, headers=me), 429, "quota_exceeded")
        # Another address is not held back, and its rematch of this game counts for it alone.
        other = {"X-Forwarded-For": "198.19.9.2"}
        made = await client.post(f"/v1/games/{game}/rematch", headers={**other, **bearer(token)})
        assert made.status_code == 201, made.text
        # Once made, asking again makes no table: answered even past the quota.
        again = await client.post(f"/v1/games/{game}/rematch", headers={**me, **bearer(token)})
        assert again.status_code == 201 and again.json()["duplicate"] is True, again.text


@pytest.fixture
async def grace_server(redis_url: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    """A server with the default takeover grace (the other test servers take over at once)."""
    process = await start_server(redis_url, tmp_path, {"ALLFOURS_TAKEOVER_GRACE_S": "60"})
    yield process
    assert await process.stop() == 0, process.log_tail()


async def test_an_away_seat_is_its_persons_for_a_minute(grace_server: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=grace_server.url, timeout=10.0) as client:
        game = (await create_game(client, [None, None, "random", "random"], turn_seconds=10))[
            "game_id"
        ]
        ann = await take_seat(client, game, 0, "ann")
        await take_seat(client, game, 1, "carl")
        away = await seat_command(client, game, 0, "step_away", ann)
        stepped: Any = next(e for e in away["events"] if e["event"]["type"] == "SeatAway")
        seat = (await view_of(client, game))["seats"][0]
        assert seat["away"] and seat["takeover_at"] == stepped["event"]["at"] + 60_000
        watcher = await client.post(f"/v1/games/{game}/seats/0", json={"name": "watcher"})
        problem = problem_of(watcher, 409, "seat_taken")
        assert "come back" in problem["detail"]
        back = await client.post(
            f"/v1/games/{game}/seats/0/commands", json={"type": "come_back"}, headers=bearer(ann)
        )
        assert back.status_code == 200, back.text
        assert (await view_of(client, game))["seats"][0]["takeover_at"] is None
