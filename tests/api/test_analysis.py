"""A finished game's analysis: each real choice beside the strong bot's, with the chances."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
from support import all_events, create_game, problem_of, start_server

DECISIONS = {"Stood": "stand", "Begged": "beg", "GaveOne": "give_one", "PackRun": "run_pack"}


async def test_every_choice_of_a_finished_game_beside_the_bots(client: httpx.AsyncClient) -> None:
    game = (await create_game(client, ["heuristic", "random", "heuristic", "random"], target=5))[
        "game_id"
    ]
    answer = await client.get(f"/v1/games/{game}/analysis")
    assert answer.status_code == 200, answer.text
    analysis = answer.json()
    assert analysis["game_id"] == game and analysis["moves"]
    events = {e["version"]: e["event"] for e in await all_events(client, game)}
    versions = [move["version"] for move in analysis["moves"]]
    assert versions == sorted(versions)
    for move in analysis["moves"]:
        event = events[move["version"]]
        assert event["seat"] == move["seat"]
        played = move["played"]
        if event["type"] == "CardPlayed":
            assert played == {"type": "play", "seat": event["seat"], "card": event["card"]}
        else:
            assert played == {"type": DECISIONS[event["type"]], "seat": event["seat"]}
        assert 0.0 <= move["played_win_probability"] <= move["best_win_probability"] <= 1.0
    again = await client.get(f"/v1/games/{game}/analysis")
    assert again.json() == analysis  # kept: the same answer, not searched anew


async def test_a_game_in_progress_is_not_analysed(client: httpx.AsyncClient) -> None:
    game = (await create_game(client, [None, "heuristic", "heuristic", "heuristic"]))["game_id"]
    problem_of(await client.get(f"/v1/games/{game}/analysis"), 409, "game_not_finished")


async def test_shutdown_ends_an_analysis_in_flight(redis_url: str, tmp_path: Path) -> None:
    """SIGTERM while a long analysis is searched: it is answered 503 ``unavailable`` at once
    and the server exits, where it held the request, and the server, until it was done."""
    settings = {"ALLFOURS_SHUTDOWN_GRACE_S": "30", "ALLFOURS_MAX_BOT_TARGET": "99"}
    server = await start_server(redis_url, tmp_path, settings)
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30.0) as client:
            # A game to 99: its analysis takes about ten seconds, which the exit must not wait
            # for (the search running in the worker is ended with it).
            game = (await create_game(client, ["heuristic"] * 4, target=99))["game_id"]
            asked = asyncio.create_task(client.get(f"/v1/games/{game}/analysis"))
            await asyncio.sleep(0.5)  # in a worker now: a game to 21 takes seconds
            assert not asked.done()
            stopping = time.monotonic()
            assert await server.stop(grace_s=30) == 0, server.log_tail()
            assert time.monotonic() - stopping < 5
            problem_of(await asked, 503, "unavailable")
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
