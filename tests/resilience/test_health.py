"""``/livez`` tells the truth: a short Redis outage fails only ``/readyz``, but an instance whose
Redis has been gone longer than ``ALLFOURS_REDIS_DOWN_LIMIT_S`` is not alive in any useful
sense, and says so (503), until Redis answers again.

Uses a Redis of its own (``EmbeddedRedis``), never the shared test Redis.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest
from support import ServerProcess, problem_of, spawn_server, start_server

from server.api.routes.health import LIVE_CHECK_EVERY_S, RedisOutage
from server.redis_server import EmbeddedRedis

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]

LIMIT_S = 1.5


async def test_livez_fails_once_redis_has_been_gone_longer_than_the_limit(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    redis = EmbeddedRedis(tmp_path / "redis", port=0)
    await redis.start()
    try:
        server = await start_server(
            redis.tcp_url, tmp_path / "server", {"ALLFOURS_REDIS_DOWN_LIMIT_S": str(LIMIT_S)}
        )
        servers.append(server)
        async with httpx.AsyncClient(base_url=server.url, timeout=5.0) as client:
            assert (await client.get("/livez")).status_code == 200

            redis.kill()
            gone_at = time.monotonic()
            problem_of(await client.get("/readyz"), 503, "unavailable")
            assert (await client.get("/livez")).status_code == 200  # a short outage: alive
            while (response := await client.get("/livez")).status_code == 200:
                assert time.monotonic() - gone_at < LIMIT_S + 5, "/livez never failed"
                await asyncio.sleep(0.1)
            assert time.monotonic() - gone_at >= LIMIT_S  # not before the limit
            problem = problem_of(response, 503, "unavailable")
            assert "unreachable" in problem["detail"]
            assert (await client.get("/livez")).status_code == 503  # and it stays so

            await redis.restart()  # back: alive again within a check (at most 1 s apart)
            back_at = time.monotonic()
            while (await client.get("/livez")).status_code != 200:
                assert time.monotonic() - back_at < 3, "/livez still fails with Redis back"
                await asyncio.sleep(0.1)
            assert (await client.get("/readyz")).status_code == 200
        assert await server.stop() == 0, server.log_tail()
    finally:
        await redis.close()


async def test_livez_checks_nothing_but_the_process_when_the_limit_is_off(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    redis = EmbeddedRedis(tmp_path / "redis", port=0)
    await redis.start()
    try:
        server = await start_server(
            redis.tcp_url, tmp_path / "server", {"ALLFOURS_REDIS_DOWN_LIMIT_S": "0"}
        )
        servers.append(server)
        redis.kill()
        async with httpx.AsyncClient(base_url=server.url, timeout=5.0) as client:
            for _ in range(3):
                assert (await client.get("/livez")).status_code == 200
                await asyncio.sleep(0.5)
        assert await server.stop() == 0, server.log_tail()
    finally:
        await redis.close()


def test_the_outage_clock() -> None:
    now = [100.0]
    outage = RedisOutage(clock=lambda: now[0])
    assert outage.due() and not outage.due()  # one check at a time, then not for a while
    outage.observe(answered=False)
    now[0] += 5
    assert outage.down_for() == 5
    outage.observe(answered=False)  # still down: counted from the first failure
    now[0] += LIVE_CHECK_EVERY_S
    assert outage.due() and outage.down_for() == 5 + LIVE_CHECK_EVERY_S
    outage.observe(answered=True)
    assert outage.down_for() == 0


async def test_readyz_waits_for_the_bot_workers(
    redis_url: str, tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """A new instance is not ready before its bot worker is up (it logs when): the first
    table's search bots waited for the worker's start, and its first seat answered in 0.7 s.
    Until then ``/readyz`` is 503 ``unavailable``, saying why."""
    server = spawn_server(
        redis_url, tmp_path / "server", {"ALLFOURS_LOG_LEVEL": "info", "ALLFOURS_BOT_WORKERS": "1"}
    )
    servers.append(server)
    refusals = set()
    async with httpx.AsyncClient(base_url=server.url, timeout=5.0) as client:
        for _ in range(600):
            server.check_alive()
            try:
                response = await client.get("/readyz")
            except httpx.TransportError:  # not listening yet
                await asyncio.sleep(0.01)
                continue
            if response.status_code == 200:
                break
            refusals.add(problem_of(response, 503, "unavailable")["detail"])
            await asyncio.sleep(0.01)
        else:
            raise AssertionError(f"never ready:\n{server.log_tail()}")
    assert "1 bot worker(s) up in" in server.log_path.read_text(), server.log_tail()
    assert refusals <= {"the bot workers are starting"}, refusals
    assert await server.stop() == 0, server.log_tail()
