"""A seat token after Redis is restored to an older backup: the token that held the seat
before the restore must not act once someone else holds the seat in the restored store (an
in-memory token cache once survived the restore, and an old holder's command was accepted)."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest
from support import bearer, create_game, problem_of, start_server, take_seat, view_of

from server.redis_server import EmbeddedRedis

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


async def restore(redis: EmbeddedRedis, backup: Path) -> None:
    """Stop Redis, put the backup's files in place of its data, start it again."""
    await redis.stop()
    shutil.rmtree(redis.data_dir)
    shutil.copytree(backup, redis.data_dir)
    await redis.start()


async def test_a_token_from_before_a_restore_does_not_act(tmp_path: Path) -> None:
    redis = EmbeddedRedis(tmp_path / "redis")
    await redis.start()
    server = await start_server(redis.tcp_url, tmp_path / "server")
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=20.0) as client:
            game_id = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
            # The backup: the table with seat 0 still open.
            await redis.stop()
            backup = tmp_path / "backup"
            shutil.copytree(redis.data_dir, backup)
            await redis.start()
            # Ann takes the seat and acts: the server sees her token as good.
            ann = await take_seat(client, game_id, 0, "Ann")
            assert (await view_of(client, game_id, ann))["viewer"] == 0
            away = await client.post(
                f"/v1/games/{game_id}/seats/0/commands",
                json={"type": "step_away"},
                headers=bearer(ann),
            )
            assert away.status_code == 200, away.text
            # Redis goes back to the backup; Bob takes the seat in the restored game.
            await restore(redis, backup)
            bob = await take_seat(client, game_id, 0, "Bob")
            # Ann's token is worth nothing now: neither to read as seat 0 nor to act.
            problem_of(
                await client.get(f"/v1/games/{game_id}", headers=bearer(ann)), 401, "unauthorized"
            )
            for body in ({"type": "step_away"}, {"type": "leave"}):
                refused = await client.post(
                    f"/v1/games/{game_id}/seats/0/commands", json=body, headers=bearer(ann)
                )
                problem_of(refused, 401, "unauthorized")
            seat = (await view_of(client, game_id, bob))["seats"][0]
            assert seat["name"] == "Bob" and not seat["away"], seat
    finally:
        assert await server.stop() == 0, server.log_tail()
        await redis.close()
