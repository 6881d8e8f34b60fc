"""Redis dies in the middle of a game: the API answers 503 ``unavailable`` with
``Retry-After`` and ``/readyz`` fails, the process stays up; Redis comes back (same port, same
AOF): the game goes on from where it was, nothing lost, and a spectator's stream that stayed
open through it all delivers every event once.

Uses a Redis of its own (``EmbeddedRedis``), never the shared test Redis.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from support import (
    Follower,
    LeakChecker,
    SeatPlayer,
    ServerProcess,
    all_events,
    bearer,
    check_finished_log,
    command_body,
    create_game,
    problem_of,
    replay_of,
    start_server,
    take_seat,
    view_of,
)

from server.redis_server import EmbeddedRedis

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


@pytest.fixture
async def own_redis(tmp_path: Path) -> AsyncIterator[EmbeddedRedis]:
    """TCP on a fixed port (kept across restarts), AOF with ``appendfsync always``."""
    redis = EmbeddedRedis(tmp_path / "redis", port=0, appendfsync="always")
    await redis.start()
    yield redis
    await redis.close()


@pytest.fixture
async def outage_server(own_redis: EmbeddedRedis, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    server = await start_server(own_redis.tcp_url, tmp_path / "server")
    yield server
    assert await server.stop() == 0, server.log_tail()


async def test_redis_down_mid_game_then_back(
    own_redis: EmbeddedRedis, outage_server: ServerProcess
) -> None:
    rng = random.Random(11)
    leaks = LeakChecker()
    async with (
        httpx.AsyncClient(base_url=outage_server.url, timeout=10.0) as client,
        httpx.AsyncClient(base_url=outage_server.url, timeout=10.0) as watcher,
        asyncio.timeout(120),
    ):
        game = (await create_game(client, [None, "heuristic", "random", "heuristic"]))["game_id"]
        token = await take_seat(client, game, 0, "ann")
        spectator = Follower(watcher, game, None, None, leaks)
        watching = asyncio.create_task(spectator.follow())
        url = f"/v1/games/{game}/seats/0/commands"
        for _ in range(3):
            view = await view_of(client, game, token)
            response = await client.post(
                url, json=command_body(rng.choice(view["legal_actions"])), headers=bearer(token)
            )
            assert response.status_code == 200, response.text
        view = await view_of(client, game, token)
        logged_before = await all_events(client, game, token)
        assert len(logged_before) == view["version"]
        action = command_body(view["legal_actions"][0])

        own_redis.kill()  # SIGKILL: only what was fsynced survives (everything, with `always`)

        for response in (
            await client.post(url, json=action, headers=bearer(token)),
            await client.get(f"/v1/games/{game}", headers=bearer(token)),
            await client.get(f"/v1/games/{game}/events"),
            await client.post("/v1/games", json={}),
            await client.get("/readyz"),
        ):
            problem = problem_of(response, 503, "unavailable")
            assert int(response.headers["retry-after"]) >= 1
            assert problem["retry_after"] == int(response.headers["retry-after"])
        assert (await client.get("/livez")).status_code == 200
        outage_server.check_alive()

        await own_redis.restart()  # same port, same data directory: the AOF is replayed

        assert (await client.get("/readyz")).status_code == 200
        assert await all_events(client, game, token) == logged_before, "events were lost"
        # The command refused during the outage was not applied: it goes through now, next.
        response = await client.post(url, json=action, headers=bearer(token))
        assert response.status_code == 200, response.text
        assert response.json()["first_version"] == view["version"] + 1

        player = SeatPlayer.make(client, game, 0, token, leaks, rng)
        await player.play()
        await watching
        _, full_log = await replay_of(client, game)
        check_finished_log(full_log)
        assert [f.id for f in spectator.frames] == list(range(1, len(full_log) + 1))
        assert spectator.stats.connections == 1, "the spectator's stream was cut"
        assert leaks.violations(full_log) == []
