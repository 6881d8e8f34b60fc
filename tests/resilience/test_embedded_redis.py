"""The embedded Redis of ``allfours serve`` (no ``REDIS_URL``) heals itself and is never shared:

- SIGKILLed mid-game, it is restarted on its data: ``/readyz`` comes back to 200 by itself and
  nothing acknowledged is lost; if it cannot come back within ``ALLFOURS_REDIS_DOWN_LIMIT_S``,
  the server exits with status 1 (for its process manager to restart it);
- a second server on the same data directory refuses to start, and harms nothing;
- a redis-server left running by a SIGKILLed server is stopped before a new one starts, so two
  never write the same append-only file.

Processes are judged by what /proc says (``resilience_support``), not by the server's own files.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from pathlib import Path

import httpx
import pytest
from resilience_support import (
    eventually,
    redis_servers_in,
    running,
    spawn_embedded,
    start_embedded,
)
from support import (
    LeakChecker,
    SeatPlayer,
    ServerProcess,
    all_events,
    bearer,
    check_finished_log,
    command_body,
    create_game,
    replay_of,
    take_seat,
    view_of,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

BOTS = ["random", "heuristic", "random", "heuristic"]


async def create_games_until(client: httpx.AsyncClient, stop: asyncio.Event) -> list[str]:
    """Create all-bot games (each played to its end in the creating append) until ``stop``;
    the ids of those acknowledged with 201. Refusals (503 while Redis is down) are retried."""
    acknowledged: list[str] = []
    while not stop.is_set():
        try:
            response = await client.post("/v1/games", json={"bots": BOTS, "rules": {"target": 7}})
        except httpx.TransportError:
            await asyncio.sleep(0.01)
            continue
        if response.status_code == 201:
            acknowledged.append(response.json()["game_id"])
        else:
            assert response.status_code == 503, response.text
            await asyncio.sleep(0.01)
    return acknowledged


async def check_games_stored(client: httpx.AsyncClient, games: list[str]) -> None:
    for game in games:
        _, log = await replay_of(client, game)
        check_finished_log(log)


async def test_a_crashed_redis_is_restarted_with_its_data(
    data_dir: Path, tmp_path: Path, servers: list[ServerProcess]
) -> None:
    server = await start_embedded(data_dir, tmp_path / "server")
    servers.append(server)
    rng = random.Random(5)
    async with httpx.AsyncClient(base_url=server.url, timeout=10.0) as client:
        game = (await create_game(client, [None, "heuristic", "random", "heuristic"]))["game_id"]
        token = await take_seat(client, game, 0, "ann")
        for _ in range(3):
            view = await view_of(client, game, token)
            response = await client.post(
                f"/v1/games/{game}/seats/0/commands",
                json=command_body(rng.choice(view["legal_actions"])),
                headers=bearer(token),
            )
            assert response.status_code == 200, response.text
        logged_before = await all_events(client, game, token)

        stop = asyncio.Event()
        writing = asyncio.create_task(create_games_until(client, stop))
        await asyncio.sleep(0.5)
        (crashed,) = redis_servers_in(data_dir)
        os.kill(crashed, signal.SIGKILL)  # not asked to stop: a crash
        await eventually(lambda: not running(crashed), 5, "redis-server dies")

        # Back by itself, and for good: once 200, /readyz stays 200.
        deadline = time.monotonic() + 15
        while (await client.get("/readyz")).status_code != 200:
            assert time.monotonic() < deadline, f"never ready again:\n{server.log_tail()}"
            await asyncio.sleep(0.05)
        for _ in range(20):
            assert (await client.get("/readyz")).status_code == 200
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.5)
        stop.set()
        acknowledged = await writing

        (restarted,) = redis_servers_in(data_dir)
        assert restarted != crashed
        assert len(acknowledged) > 2, "the writer never got through"
        await check_games_stored(client, acknowledged)  # nothing acknowledged was lost
        assert await all_events(client, game, token) == logged_before
        player = SeatPlayer.make(client, game, 0, token, LeakChecker(), rng)
        await player.play()
        _, full_log = await replay_of(client, game)
        check_finished_log(full_log)

    server.check_alive()
    assert "redis-server restarted" in server.log_tail(200)
    assert await server.stop() == 0, server.log_tail()
    assert redis_servers_in(data_dir) == []


async def test_a_redis_that_cannot_come_back_stops_the_server(
    data_dir: Path, tmp_path: Path, servers: list[ServerProcess]
) -> None:
    server = await start_embedded(
        data_dir, tmp_path / "server", {"ALLFOURS_REDIS_DOWN_LIMIT_S": "2"}
    )
    servers.append(server)
    (pid,) = redis_servers_in(data_dir)
    # The append-only file replaced by garbage: the running redis goes on writing the old
    # (now unlinked) file, a restarted one refuses to load this one.
    garbage = data_dir / "garbage"
    garbage.write_text("this is not an append-only file\n")
    garbage.replace(data_dir / "appendonly.aof")
    killed_at = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    try:
        code = await asyncio.to_thread(server.proc.wait, 30)
    except Exception:
        raise AssertionError(f"still running 30 s later:\n{server.log_tail()}") from None
    assert code == 1, server.log_tail()
    assert time.monotonic() - killed_at >= 2  # it did try for the time allowed
    assert "could not be restarted within 2 s" in server.log_tail(200)
    assert redis_servers_in(data_dir) == []


async def test_a_second_server_on_the_same_data_directory_is_refused(
    data_dir: Path, tmp_path: Path, servers: list[ServerProcess]
) -> None:
    first = await start_embedded(data_dir, tmp_path / "first")
    servers.append(first)
    (redis_pid,) = redis_servers_in(data_dir)
    redis_log = (data_dir / "redis.log").read_bytes()

    second = spawn_embedded(data_dir, tmp_path / "second")
    servers.append(second)
    try:
        code = await asyncio.to_thread(second.proc.wait, 20)
    except Exception:
        raise AssertionError(f"the second server runs:\n{second.log_tail()}") from None
    assert code == 1
    (message,) = second.log_path.read_text().splitlines()  # one line, no traceback
    assert str(data_dir) in message and "in use by another allfours serve" in message
    assert f"pid {first.proc.pid}" in message

    # Nothing was touched: same redis-server, socket still there, its log not truncated.
    assert redis_servers_in(data_dir) == [redis_pid]
    assert (data_dir / "redis.sock").exists()
    assert (data_dir / "redis.log").read_bytes().startswith(redis_log)
    async with httpx.AsyncClient(base_url=first.url, timeout=10.0) as client:
        for _ in range(5):
            assert (await client.get("/readyz")).status_code == 200
        game = (await client.post("/v1/games", json={"bots": BOTS})).json()["game_id"]
        await check_games_stored(client, [game])
    assert await first.stop() == 0, first.log_tail()


@pytest.mark.parametrize("stale_state", ["running", "frozen"])
async def test_a_redis_left_by_a_killed_server_is_stopped_before_a_new_one(
    data_dir: Path, tmp_path: Path, servers: list[ServerProcess], stale_state: str
) -> None:
    first = await start_embedded(data_dir, tmp_path / "first")
    servers.append(first)
    async with httpx.AsyncClient(base_url=first.url, timeout=10.0) as client:
        games = [(await create_game(client, BOTS))["game_id"] for _ in range(3)]
    (stale,) = redis_servers_in(data_dir)
    first.proc.kill()  # SIGKILL: no shutdown, its redis-server is left running
    first.proc.wait()
    await asyncio.sleep(0.2)
    assert running(stale), "the setup expects the killed server's redis-server to outlive it"
    if stale_state == "frozen":
        os.kill(stale, signal.SIGSTOP)  # hung: it will not even answer

    second = await start_embedded(data_dir, tmp_path / "second")
    servers.append(second)
    assert not running(stale)
    (serving,) = redis_servers_in(data_dir)  # one, never two, on the append-only file
    assert serving != stale
    async with httpx.AsyncClient(base_url=second.url, timeout=10.0) as client:
        await check_games_stored(client, games)
    assert "left running by an earlier server" in second.log_tail(200)
    assert await second.stop() == 0, second.log_tail()
    assert redis_servers_in(data_dir) == []
