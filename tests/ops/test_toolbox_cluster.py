"""The toolbox's pieces on a Redis Cluster: finding games on every master, and archiving one
game (its removal script touches the game's keys and its slot's due-index, all in one slot).
Only the games made here are archived: the session's cluster is shared with other tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from support import ServerProcess, create_game, start_server

from server.lobby import Lobby
from server.ops.archive import Archiver
from server.ops.games import game_ids, load
from server.replay.archive import read_archived
from server.store import connect_store
from server.store.keys import events_key, secret_key

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


@pytest.fixture
async def cluster_server(cluster_redis_url: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    process = await start_server(cluster_redis_url, tmp_path)
    yield process
    assert await process.stop() == 0, process.log_tail()


async def test_archive_one_game_on_a_cluster(
    cluster_server: ServerProcess, cluster_redis_url: str, tmp_path: Path
) -> None:
    async with httpx.AsyncClient(base_url=cluster_server.url, timeout=20.0) as client:
        games = [(await create_game(client, ["random"] * 4, target=3))["game_id"] for _ in range(6)]
        served = {g: (await client.get(f"/v1/games/{g}/replay")).content for g in games}
    store = connect_store(cluster_redis_url)
    try:
        found = {game_id async for game_id in game_ids(store.redis)}
        assert set(games) <= found
        archiver = Archiver(store, Lobby(store), tmp_path / "archive", 0)
        for game_id in games:
            assert await archiver.archive(await load(store, game_id))
            assert not await store.redis.exists(events_key(game_id), secret_key(game_id))
            archived = read_archived(tmp_path / "archive", game_id)
            assert archived is not None and len(archived.events) > 0
        assert not set(games) & set(await Lobby(store).listed())
    finally:
        await store.aclose()
    server = await start_server(
        cluster_redis_url, tmp_path / "again", {"ALLFOURS_ARCHIVE_DIR": str(tmp_path / "archive")}
    )
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=20.0) as client:
            for game_id in games:
                again = await client.get(f"/v1/games/{game_id}/replay")
                assert again.status_code == 200 and again.content == served[game_id]
    finally:
        assert await server.stop() == 0, server.log_tail()
