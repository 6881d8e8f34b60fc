"""Matchmaking against three real server instances on one Redis: four people queued across
them are seated once at one rated table (each a distinct seat, their seat tokens re-issued
to them), partners on one team, leaving and closed tabs take a ticket out, a wait for bots
ends at an unrated table with bots, and a match whose instance died after taking it (its
Lua step run alone here) still becomes exactly one table, as do people queued through an
instance killed with SIGKILL."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support import ServerProcess, bearer, problem_of, start_server, view_of

from server.players.matchmaking import Match, MatchQueue, SeatRecord, Ticket
from server.service.game_ids import game_id_for_key
from server.store import connect_store

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

HEARTBEAT_S = 3


@pytest.fixture(scope="module")
async def servers(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[list[ServerProcess]]:
    env = {"ALLFOURS_QUEUE_HEARTBEAT_S": str(HEARTBEAT_S), "ALLFOURS_MATCH_INTERVAL_S": "0.3"}
    started = [
        await start_server(redis_url, tmp_path_factory.mktemp(f"mm{i}"), env) for i in range(3)
    ]
    yield started
    for process in started:
        process.check_alive()
        assert await process.stop() == 0, process.log_tail()


@pytest.fixture
async def clients(servers: list[ServerProcess]) -> AsyncIterator[list[httpx.AsyncClient]]:
    opened = [httpx.AsyncClient(base_url=s.url, timeout=10.0) for s in servers]
    yield opened
    for client in opened:
        await client.aclose()


async def new_player(client: httpx.AsyncClient, name: str) -> dict[str, Any]:
    response = await client.post("/v1/players", json={"name": name})
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


async def join(client: httpx.AsyncClient, player: dict[str, Any], **body: Any) -> dict[str, Any]:
    response = await client.post("/v1/matchmaking", json=body, headers=bearer(player["key"]))
    assert response.status_code == 201, response.text
    ticket: dict[str, Any] = response.json()
    return ticket


async def ticket_of(client: httpx.AsyncClient, player: dict[str, Any]) -> dict[str, Any]:
    response = await client.get("/v1/matchmaking", headers=bearer(player["key"]))
    assert response.status_code == 200, response.text
    ticket: dict[str, Any] = response.json()
    return ticket


async def until_seated(
    client: httpx.AsyncClient, player: dict[str, Any], within_s: float = 20.0
) -> dict[str, Any]:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        ticket = await ticket_of(client, player)
        if ticket["status"] == "seated":
            return ticket
        assert ticket["status"] == "waiting", ticket
        await asyncio.sleep(0.2)
    raise AssertionError(f"{player['name']} was not seated within {within_s}s")


async def seat_all(
    clients: list[httpx.AsyncClient], players: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    return list(
        await asyncio.gather(*(until_seated(clients[i % 3], p) for i, p in enumerate(players)))
    )


async def test_four_people_on_three_instances_are_seated_once_at_one_rated_table(
    clients: list[httpx.AsyncClient],
) -> None:
    players = [await new_player(clients[i % 3], f"Queuer {i}") for i in range(4)]
    for i, player in enumerate(players):
        ticket = await join(clients[i % 3], player)
        assert ticket["status"] == "waiting" and ticket["game_id"] is None
        assert ticket["band"] >= 100 and ticket["waiting"] >= 1
        again = await join(clients[(i + 1) % 3], player)  # idempotent: the same ticket
        assert again["waiting_since"] == ticket["waiting_since"]
    seated = await seat_all(clients, players)
    assert len({t["game_id"] for t in seated}) == 1
    assert sorted(t["seat"] for t in seated) == [0, 1, 2, 3]
    assert all(t["rated"] for t in seated)
    game = seated[0]["game_id"]
    tokens = {}
    for i, (player, ticket) in enumerate(zip(players, seated, strict=True)):
        response = await clients[(i + 2) % 3].post(
            f"/v1/games/{game}/seats/{ticket['seat']}/token", headers=bearer(player["key"])
        )
        assert response.status_code == 201, response.text
        tokens[ticket["seat"]] = response.json()["token"]
    # A rated table gives no hints, to the seat to act or anyone else.
    for seat, token in tokens.items():
        hints = await clients[0].get(f"/v1/games/{game}/seats/{seat}/hints", headers=bearer(token))
        problem_of(hints, 409, "rated_table")
    # And it seats only players: not a bot, even when a person at it asks.
    bot = await clients[0].post(
        f"/v1/games/{game}/seats/0/bot", json={"kind": "random"}, headers=bearer(tokens[1])
    )
    problem_of(bot, 409, "rated_table")
    view = await view_of(clients[0], game)
    assert {s["player"] for s in view["seats"]} == {p["player_id"] for p in players}
    assert view["rated"] is True
    stats = (await clients[1].get("/v1/matchmaking/stats")).json()
    assert stats["playing"] >= 4 and stats["waiting"] >= 0
    # Still there a while later: nobody is taken into a second table.
    await asyncio.sleep(1.0)
    later = [await ticket_of(clients[0], p) for p in players]
    assert [(t["game_id"], t["seat"]) for t in later] == [(t["game_id"], t["seat"]) for t in seated]


async def test_partners_are_seated_on_one_team(clients: list[httpx.AsyncClient]) -> None:
    ann, bob, cy, di = [await new_player(clients[0], n) for n in ("Pann", "Pbob", "Pcy", "Pdi")]
    await join(clients[0], ann, partner=bob["player_id"])
    await join(clients[1], cy)
    await join(clients[2], di)
    await asyncio.sleep(1.0)  # three people (a half party among them) make no table
    assert (await ticket_of(clients[0], cy))["status"] == "waiting"
    await join(clients[1], bob, partner=ann["player_id"])
    seated = await seat_all(clients, [ann, bob, cy, di])
    assert len({t["game_id"] for t in seated}) == 1
    assert seated[0]["seat"] % 2 == seated[1]["seat"] % 2
    assert seated[2]["seat"] % 2 == seated[3]["seat"] % 2 != seated[0]["seat"] % 2
    assert seated[0]["partner"] == bob["player_id"]


async def test_leaving_and_a_closed_tab_take_the_ticket_out(
    clients: list[httpx.AsyncClient],
) -> None:
    eve, fay = await new_player(clients[0], "Leaver"), await new_player(clients[1], "Closer")
    await join(clients[0], eve)
    left = await clients[1].delete("/v1/matchmaking", headers=bearer(eve["key"]))
    assert left.status_code == 204
    assert (await ticket_of(clients[2], eve))["status"] == "idle"
    again = await clients[1].delete("/v1/matchmaking", headers=bearer(eve["key"]))
    assert again.status_code == 204  # not queued: a no-op
    await join(clients[1], fay)
    await asyncio.sleep(HEARTBEAT_S + 2.0)  # never polled: the tab was closed
    idle = await ticket_of(clients[2], fay)
    assert idle["status"] == "idle" and idle["waiting_since"] is None and idle["game_id"] is None


async def test_refusals(clients: list[httpx.AsyncClient]) -> None:
    gus = await new_player(clients[0], "Refused")
    problem_of(await clients[0].post("/v1/matchmaking", json={}), 401, "unauthorized")
    problem_of(await clients[0].get("/v1/matchmaking"), 401, "unauthorized")
    forged = bearer(f"{gus['player_id']}.player.{'A' * 43}")
    problem_of(
        await clients[0].post("/v1/matchmaking", json={}, headers=forged), 401, "unauthorized"
    )
    for body in (
        {"bots_after_s": 5},
        {"bots_after_s": 601},
        {"partner": "nobody"},
        {"partner": gus["player_id"]},
        {"colour": "red"},
    ):
        refused = await clients[1].post("/v1/matchmaking", json=body, headers=bearer(gus["key"]))
        problem_of(refused, 400, "invalid_request")
    assert (await ticket_of(clients[0], gus))["status"] == "idle"


async def test_a_wait_for_bots_ends_at_an_unrated_table_with_bots(
    clients: list[httpx.AsyncClient],
) -> None:
    hal = await new_player(clients[2], "Botwaiter")
    ticket = await join(clients[2], hal, bots_after_s=10)
    assert ticket["bots_after_s"] == 10
    seated = await until_seated(clients[0], hal, within_s=25.0)
    assert seated["rated"] is False
    view = await view_of(clients[1], seated["game_id"])
    assert view["rated"] is False
    people = [s for s in view["seats"] if s.get("player")]
    assert [s["player"] for s in people] == [hal["player_id"]]
    assert sum(1 for s in view["seats"] if s.get("bot") == "strong") == 3


async def test_a_match_whose_instance_died_after_taking_it_becomes_one_table(
    clients: list[httpx.AsyncClient], redis_url: str
) -> None:
    players = [await new_player(clients[i % 3], f"Crashed {i}") for i in range(4)]
    store = connect_store(redis_url)
    try:
        queue = MatchQueue(store)
        now = int(time.time() * 1000)
        # Each waits for a partner who never comes, so no live pass matches them: the take
        # below is the only one, as an instance's would be right before it was killed.
        tickets = [Ticket(p["name"], now, partner="p0000000000000000") for p in players]
        for player, ticket in zip(players, tickets, strict=True):
            await queue.join(player["player_id"], ticket, now)
        match_id = f"mm-crash-{players[0]['player_id']}"
        game_id = game_id_for_key(match_id)
        match = Match(match_id, game_id, True, tuple((p["name"], p["player_id"]) for p in players))
        waiting = await queue.waiting()
        read = [
            (
                p["player_id"],
                waiting[p["player_id"]][0],
                SeatRecord(match_id, game_id, seat, True, t),
            )
            for seat, (p, t) in enumerate(zip(players, tickets, strict=True))
        ]
        assert await queue.take(match, read, now)
        assert not await queue.take(match, read, now)  # taken once only
        assert not await store.exists(game_id)  # no table yet: the instance "died" here
        assert (await ticket_of(clients[0], players[0]))["status"] == "waiting"
        seated = await seat_all(clients, players)  # any instance's pass finishes it
        assert {t["game_id"] for t in seated} == {game_id}
        assert [t["seat"] for t in seated] == [0, 1, 2, 3]
        view = await view_of(clients[2], game_id)
        assert [s["player"] for s in view["seats"]] == [p["player_id"] for p in players]
        assert await queue.pending(now + 60_000) == []
    finally:
        await store.aclose()


async def test_people_queued_through_an_instance_killed_with_sigkill_are_still_seated_once(
    clients: list[httpx.AsyncClient], redis_url: str, tmp_path: Path
) -> None:
    doomed = await start_server(
        redis_url,
        tmp_path / "doomed",
        {"ALLFOURS_QUEUE_HEARTBEAT_S": str(HEARTBEAT_S), "ALLFOURS_MATCH_INTERVAL_S": "0.3"},
    )
    try:
        async with httpx.AsyncClient(base_url=doomed.url, timeout=10.0) as on_doomed:
            players = [await new_player(on_doomed, f"Killed {i}") for i in range(2)]
            for player in players:
                await join(on_doomed, player)
        doomed.proc.send_signal(signal.SIGKILL)  # no shutdown hook runs: its timer just stops
        assert await asyncio.to_thread(doomed.proc.wait, 10) == -signal.SIGKILL
        for i in range(2):
            player = await new_player(clients[i], f"Survivor {i}")
            await join(clients[i], player)
            players.append(player)
        # Their tabs' heartbeats now reach the survivors (as a load balancer would send them).
        seated = await seat_all(clients, players)
        assert len({t["game_id"] for t in seated}) == 1
        assert sorted(t["seat"] for t in seated) == [0, 1, 2, 3]
        view = await view_of(clients[2], seated[0]["game_id"])
        assert {s["player"] for s in view["seats"]} == {p["player_id"] for p in players}
    finally:
        if doomed.proc.poll() is None:
            doomed.proc.kill()
            doomed.proc.wait()
