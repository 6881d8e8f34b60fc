"""The table lifecycle against real ``allfours serve`` processes over HTTP, with short clocks (the
few tests here that wait in real time): an abandoned seat reaches the end, an instance killed
with deadlines pending loses none, and leave / resign / abort / expiry / rematch / a lost
seating answer, as an outside client sees them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from multi_support import Fleet, start_fleet, stop_fleet
from support import (
    LeakChecker,
    all_events,
    bearer,
    check_finished_log,
    create_game,
    problem_of,
    replay_of,
    take_seat,
)

from domain import (
    Begged,
    CardPlayed,
    GameAborted,
    GameEnded,
    RematchCreated,
    SeatAway,
    Stood,
    TurnTimedOut,
)

SHORT = {
    "ALLFOURS_TABLE_EXPIRY_S": "2",
    "ALLFOURS_SWEEP_INTERVAL_S": "0.1",
    "ALLFOURS_MIN_TURN_SECONDS": "1",  # one-second clocks: the timeouts come within the test
    "ALLFOURS_IDLE_EXPIRY_S": "2",  # a table everyone left is closed within the test
}


@pytest.fixture(scope="module")
async def pair(
    standalone_redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Fleet]:
    """Two instances on the session's Redis, tables expiring after 2 s."""
    fleet = await start_fleet(standalone_redis_url, tmp_path_factory.mktemp("pair"), 2, SHORT)
    yield fleet
    fleet.check_alive()
    await stop_fleet(fleet)


async def wait_for(client: httpx.AsyncClient, game_id: str, phase: str, within_s: float) -> Any:
    """Poll the spectator's view until the game is in ``phase`` (or fail after ``within_s``)."""
    deadline = time.monotonic() + within_s
    while True:
        view = (await client.get(f"/v1/games/{game_id}")).json()
        if view["phase"] == phase:
            return view
        assert time.monotonic() < deadline, f"still {view['phase']} after {within_s}s"
        await asyncio.sleep(0.1)


async def test_an_abandoned_seat_is_timed_out_then_the_game_pauses_and_closes_as_idle(
    pair: Fleet,
) -> None:
    client = pair.clients[0]
    game = (
        await create_game(
            client, [None, "heuristic", "heuristic", "heuristic"], target=10, turn_seconds=1
        )
    )["game_id"]  # to 10: kicks alone never end it before ann's first turn (to 3 a Jack may)
    await take_seat(client, game, 0, "ann")
    view = (await client.get(f"/v1/games/{game}")).json()
    assert view["to_act"] == 0 and isinstance(view["deadline"], int)
    # ann closes her browser. Two turns time out (about a second each), then she is away: with
    # nobody left at the table the game pauses (no bot plays her seat), and two seconds later
    # (ALLFOURS_IDLE_EXPIRY_S) the other instance's sweeper closes it as idle.
    await wait_for(pair.clients[1], game, "ended", within_s=15)
    _, log = await replay_of(client, game)
    check_finished_log(log)
    timeouts = [e for e in log if isinstance(e, TurnTimedOut)]
    assert len(timeouts) == 2 and all(e.seat == 0 for e in timeouts)
    assert any(isinstance(e, SeatAway) and e.reason == "timed_out" for e in log)
    away = next(i for i, e in enumerate(log) if isinstance(e, SeatAway))
    ann_moves = [e for e in log[away:] if getattr(e, "seat", None) == 0]
    assert not any(isinstance(e, CardPlayed | Stood | Begged) for e in ann_moves)
    closed = next(e for e in log if isinstance(e, GameAborted))
    assert closed.reason == "idle" and closed.at - log[away].at >= 2_000
    late = [e.at - e.deadline for e in timeouts]
    assert all(0 <= ms < 2_000 for ms in late), late  # fired within two seconds of the deadline


async def test_an_instance_killed_with_deadlines_pending_loses_none(
    standalone_redis_url: str, tmp_path: Path
) -> None:
    fleet = await start_fleet(standalone_redis_url, tmp_path, 2, SHORT)
    try:
        games = []
        for _ in range(3):
            created = await create_game(
                fleet.clients[0], [None, "random", "random", "random"], turn_seconds=1
            )
            await take_seat(fleet.clients[0], created["game_id"], 0, "ann")
            games.append(created["game_id"])
        fleet.servers[0].proc.kill()  # kill -9, deadlines pending
        fleet.servers[0].proc.wait()
        deadline = time.monotonic() + 10
        for game in games:
            while True:
                events = await all_events(fleet.clients[1], game)
                if any(e["event"]["type"] == "TurnTimedOut" for e in events):
                    break
                assert time.monotonic() < deadline, "the survivor did not fire the deadline"
                await asyncio.sleep(0.1)
    finally:
        await fleet.aclose()
        for server in fleet.servers:
            if server.proc.poll() is None:
                await server.stop()


async def test_a_lost_seating_answer_and_leave_resign_abort(pair: Fleet) -> None:
    client = pair.clients[0]
    game = (await create_game(client, [None, None, "random", "random"]))["game_id"]
    key = {"Idempotency-Key": "lost-answer-0123456789"}
    first = await client.post(f"/v1/games/{game}/seats/0", json={"name": "ann"}, headers=key)
    again = await client.post(f"/v1/games/{game}/seats/0", json={"name": "ann"}, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.json()["token"] == first.json()["token"] and again.json()["duplicate"]
    other = {"Idempotency-Key": "someone-else-0123456789"}
    stranger = await client.post(f"/v1/games/{game}/seats/0", json={"name": "eve"}, headers=other)
    problem_of(stranger, 409, "seat_taken")
    ann = first.json()["token"]
    bob = await take_seat(client, game, 1, "bob")
    # bob leaves: the bot plays his seat; dee takes it over with a new token.
    left = await client.post(
        f"/v1/games/{game}/seats/1/commands", json={"type": "leave"}, headers=bearer(bob)
    )
    assert left.status_code == 200, left.text
    assert left.json()["view"]["seats"][1]["left"] is True
    assert left.json()["view"]["hand"] is None  # his token shows him the table as a spectator
    listed = (await client.get("/v1/games", params={"status": "in_progress"})).json()["games"]
    assert 1 in next(g for g in listed if g["game_id"] == game)["open_seats"]
    dee = await take_seat(client, game, 1, "dee")
    problem_of(await client.get(f"/v1/games/{game}", headers=bearer(bob)), 401, "unauthorized")
    view = (await client.get(f"/v1/games/{game}", headers=bearer(dee))).json()
    assert view["seats"][1]["name"] == "dee" and view["hand"]
    # A body naming another seat than the path's is refused.
    mismatch = await client.post(
        f"/v1/games/{game}/seats/0/commands",
        json={"type": "resign", "seat": 1},
        headers=bearer(ann),
    )
    problem_of(mismatch, 409, "seat_mismatch")
    resigned = await client.post(
        f"/v1/games/{game}/seats/0/commands", json={"type": "resign"}, headers=bearer(ann)
    )
    assert resigned.status_code == 200, resigned.text
    assert resigned.json()["view"]["end_reason"] == "resigned"
    assert resigned.json()["view"]["winner"] == 1
    _, log = await replay_of(client, game)
    assert next(e for e in log if isinstance(e, GameEnded)).reason == "resigned"

    table = (await create_game(client, [None, "random", None, "random"]))["game_id"]
    cal = await take_seat(client, table, 0, "cal")
    aborted = await client.post(
        f"/v1/games/{table}/seats/0/commands", json={"type": "abort"}, headers=bearer(cal)
    )
    assert aborted.status_code == 200, aborted.text
    assert aborted.json()["view"]["end_reason"] == "aborted"
    _, log = await replay_of(client, table)  # the seed is revealed, aborted or not
    assert any(isinstance(e, GameAborted) for e in log)


async def test_a_table_nobody_joins_is_listed_then_expires(pair: Fleet) -> None:
    client = pair.clients[1]
    game = (await create_game(client, [None, None, None, None]))["game_id"]
    open_games = (await client.get("/v1/games", params={"status": "open"})).json()["games"]
    assert next(g for g in open_games if g["game_id"] == game)["open_seats"] == [0, 1, 2, 3]
    view = await wait_for(client, game, "ended", within_s=8)
    assert view["end_reason"] == "expired" and view["seed"]
    open_games = (await client.get("/v1/games", params={"status": "open"})).json()["games"]
    assert game not in [g["game_id"] for g in open_games]


async def test_a_rematch_keeps_the_seats_for_the_people(pair: Fleet) -> None:
    client = pair.clients[0]
    game = (await create_game(client, [None, "heuristic", None, "random"]))["game_id"]
    ann = await take_seat(client, game, 0, "ann")
    cal = await take_seat(client, game, 2, "cal")
    early = await client.post(f"/v1/games/{game}/rematch", headers=bearer(ann))
    problem_of(early, 409, "wrong_phase")
    await client.post(
        f"/v1/games/{game}/seats/2/commands", json={"type": "resign"}, headers=bearer(cal)
    )
    asked = await client.post(f"/v1/games/{game}/rematch", headers=bearer(ann))
    assert asked.status_code == 201, asked.text
    new = asked.json()["game_id"]
    again = await pair.clients[1].post(f"/v1/games/{game}/rematch", headers=bearer(cal))
    assert again.json()["game_id"] == new
    old_view = (await client.get(f"/v1/games/{game}")).json()
    assert old_view["rematch"] == new  # everyone watching the old game learns the new id
    _, log = await replay_of(client, game)
    assert [e.game_id for e in log if isinstance(e, RematchCreated)] == [new]
    stranger = await client.post(f"/v1/games/{new}/seats/0", json={"name": "eve"})
    problem_of(stranger, 409, "seat_reserved")
    wrong = await client.post(f"/v1/games/{new}/seats/0", json={"name": "cal"}, headers=bearer(cal))
    problem_of(wrong, 403, "forbidden")  # cal's old token is for seat 2, not seat 0
    claimed = await client.post(
        f"/v1/games/{new}/seats/0", json={"name": "ann"}, headers=bearer(ann)
    )
    assert claimed.status_code == 201, claimed.text
    assert claimed.json()["token"] != ann


async def test_no_card_leaks_in_lifecycle_events_and_views(pair: Fleet) -> None:
    client = pair.clients[0]
    # To 10: kicks alone never end it before the people's commands below (to 3 a Jack may).
    game = (await create_game(client, [None, None, "random", "random"], turn_seconds=1, target=10))[
        "game_id"
    ]
    tokens = {seat: await take_seat(client, game, seat, f"p{seat}") for seat in (0, 1)}
    stepped = await client.post(
        f"/v1/games/{game}/seats/1/commands", json={"type": "step_away"}, headers=bearer(tokens[1])
    )
    # On a slow machine seat 1's one-second clock may have run out twice already (away by timeout).
    if stepped.status_code != 200:
        problem_of(stepped, 409, "already_away")
    left = await client.post(
        f"/v1/games/{game}/seats/0/commands", json={"type": "leave"}, headers=bearer(tokens[0])
    )
    assert left.status_code == 200, left.text
    await wait_for(client, game, "ended", within_s=15)
    _, full = await replay_of(client, game)
    checker = LeakChecker()
    for viewer in (None, 1):
        headers = {} if viewer is None else bearer(tokens[viewer])
        page = await client.get(f"/v1/games/{game}/events", params={"limit": 1000}, headers=headers)
        assert page.status_code == 200, page.text
        checker.record_envelopes(viewer, page.text, "events")
    assert any(isinstance(e, SeatAway) for e in full)
    assert checker.violations(full) == []
