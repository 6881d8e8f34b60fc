"""The operator's toolbox against a real server and Redis: archive and serve back, expire,
rebuild the lobby, check; and archiving's safety (a game that grows meanwhile, runs twice,
a run killed between its steps)."""

from __future__ import annotations

import gzip
import json
from random import Random

import httpx
import pytest
from support import check_finished_log, create_game, drive, replay_of, take_seat
from toolbox_support import Toolbox

from server.lobby import Lobby
from server.ops.archive import Archiver
from server.ops.games import load
from server.store import connect_store
from server.store.keys import cmds_key, events_key, seats_key, secret_key

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

BOTS = ["random", "heuristic", "random", "heuristic"]


def game_keys(game_id: str) -> list[str]:
    return [
        events_key(game_id),
        cmds_key(game_id),
        seats_key(game_id),
        secret_key(game_id),
        secret_key(game_id, "token-key"),
    ]


async def finished_games(client: httpx.AsyncClient, n: int) -> dict[str, bytes]:
    """``n`` games of four bots, played out: id -> the replay's bytes as served live."""
    replays = {}
    for _ in range(n):
        game_id = (await create_game(client, BOTS, target=3))["game_id"]
        response = await client.get(f"/v1/games/{game_id}/replay")
        assert response.status_code == 200, response.text
        replays[game_id] = response.content
    return replays


async def test_archive_and_serve_back_byte_identical(toolbox: Toolbox) -> None:
    async with httpx.AsyncClient(base_url=toolbox.server.url, timeout=20.0) as client:
        live = await finished_games(client, 3)
        waiting = (await create_game(client, [None, None, None, None]))["game_id"]
        status, report = await toolbox.run("archive", "--older-than", "0")
        assert status == 0, report
        assert sorted(report["archived"]) == sorted(live) and not report["failed"], report
        for game_id, served in live.items():
            assert not await toolbox.redis.exists(*game_keys(game_id))
            file = toolbox.archive_dir / f"{game_id}.replay.json.gz"
            assert gzip.decompress(file.read_bytes()) == served
            # Served back from the file: the same bytes, and a whole, fair game.
            again = await client.get(f"/v1/games/{game_id}/replay")
            assert again.status_code == 200 and again.content == served
            _, events = await replay_of(client, game_id)
            check_finished_log(events)
        # Archived games leave the lobby; a game not finished stays, in Redis and listed.
        finished = (await client.get("/v1/games", params={"status": "finished"})).json()
        assert not {g["game_id"] for g in finished["games"]} & set(live)
        assert (await client.get(f"/v1/games/{waiting}")).status_code == 200
        listed = (await client.get("/v1/games", params={"status": "open"})).json()["games"]
        assert waiting in {g["game_id"] for g in listed}
        # A second run finds nothing to do and harms nothing.
        status, report = await toolbox.run("archive", "--older-than", "0")
        assert status == 0 and report["archived"] == [] and report["kept"] == [], report
        for game_id, served in live.items():
            assert (await client.get(f"/v1/games/{game_id}/replay")).content == served


async def test_only_games_older_than_the_age_are_archived(toolbox: Toolbox) -> None:
    async with httpx.AsyncClient(base_url=toolbox.server.url, timeout=20.0) as client:
        live = await finished_games(client, 1)
        status, report = await toolbox.run("archive", "--older-than", "3600")
        assert status == 0 and report["archived"] == [], report
        assert await toolbox.redis.exists(events_key(next(iter(live))))


async def test_a_game_that_grows_meanwhile_is_not_removed(toolbox: Toolbox) -> None:
    """The file is written from the log as read; if the stream grew since, the removal script
    refuses and the game stays whole in Redis (a later run archives the longer log)."""
    async with httpx.AsyncClient(base_url=toolbox.server.url, timeout=20.0) as client:
        game_id = next(iter(await finished_games(client, 1)))
    store = connect_store(toolbox.redis_url)
    try:
        archiver = Archiver(store, Lobby(store), toolbox.archive_dir, 0)
        game = await load(store, game_id)
        # Someone appends after the archive read the log (a copy of the last entry).
        last = await toolbox.redis.xrange(events_key(game_id), count=1, min=f"{len(game.stored)}")
        await toolbox.redis.xadd(events_key(game_id), last[0][1], id=f"{len(game.stored) + 1}-0")
        assert await archiver.archive(game) is False
        assert await toolbox.redis.exists(events_key(game_id), secret_key(game_id)) == 2
        assert await toolbox.redis.xlen(events_key(game_id)) == len(game.stored) + 1
    finally:
        await store.aclose()


async def test_a_run_killed_before_delisting_is_finished_by_the_next(toolbox: Toolbox) -> None:
    async with httpx.AsyncClient(base_url=toolbox.server.url, timeout=20.0) as client:
        game_id = next(iter(await finished_games(client, 1)))
        # As if killed after the file and the removal, before the lobby: keys gone, listed.
        status, _ = await toolbox.run("archive", "--older-than", "0")
        assert status == 0
        summary = {"game_id": game_id, "status": "finished", "created_at": 1}
        await toolbox.redis.hset("allfours:{lobby}:games", game_id, json.dumps(summary))
        await toolbox.redis.zadd("allfours:{lobby}:status:finished", {game_id: 1})
        # A temporary file of a killed write is left aside, never served.
        (toolbox.archive_dir / f".{game_id}.replay.json.gz.1.tmp").write_bytes(b"partial")
        status, report = await toolbox.run("archive", "--older-than", "0")
        assert status == 0 and report["delisted"] == [game_id], report
        assert not await toolbox.redis.hexists("allfours:{lobby}:games", game_id)
        assert (await client.get(f"/v1/games/{game_id}/replay")).status_code == 200


async def test_expire_sets_a_ttl_on_finished_games_records(toolbox: Toolbox) -> None:
    async with httpx.AsyncClient(base_url=toolbox.server.url, timeout=20.0) as client:
        game_id = (await create_game(client, [None, "random", "random", "random"], target=1))[
            "game_id"
        ]
        seated = await client.post(
            f"/v1/games/{game_id}/seats/0",
            json={"name": "Ann"},
            headers={"Idempotency-Key": "expire-seat-key-0123"},
        )
        assert seated.status_code == 201, seated.text
        assert (
            await drive(client, game_id, {0: seated.json()["token"]}, lambda _: False, Random(1))
            is None
        )
        waiting = (await create_game(client, [None, None, None, None]))["game_id"]
        await take_seat(client, waiting, 0, "Bo")
        status, report = await toolbox.run("expire", "--older-than", "0", "--ttl", "600")
        assert status == 0 and report["expiring"] == [game_id], report
        for key in (cmds_key(game_id), seats_key(game_id), secret_key(game_id, "token-key")):
            assert 0 < await toolbox.redis.ttl(key) <= 600, key
        # The log and the seed stay: the game is still read and replayed.
        assert await toolbox.redis.ttl(events_key(game_id)) == -1
        assert await toolbox.redis.ttl(secret_key(game_id)) == -1
        assert (await client.get(f"/v1/games/{game_id}/replay")).status_code == 200
        # A game not finished keeps everything.
        assert await toolbox.redis.ttl(seats_key(waiting)) == -1
        # Run again: nothing new to expire, and the TTLs are not pushed back.
        status, report = await toolbox.run("expire", "--older-than", "0", "--ttl", "6000")
        assert status == 0 and report["expiring"] == [], report
        assert await toolbox.redis.ttl(cmds_key(game_id)) <= 600


async def test_rebuild_lobby_from_the_streams(toolbox: Toolbox) -> None:
    async with httpx.AsyncClient(base_url=toolbox.server.url, timeout=20.0) as client:
        game_id = next(iter(await finished_games(client, 1)))
        before = (await client.get("/v1/games", params={"status": "finished"})).json()["games"]
        await toolbox.redis.delete(
            "allfours:{lobby}:games",
            "allfours:{lobby}:status:finished",
            "allfours:{lobby}:status:open",
        )
        await toolbox.redis.zadd("allfours:{lobby}:status:open", {"ghost": 1})
        status, report = await toolbox.run("rebuild-lobby")
        assert status == 0 and report == {"listed": 1, "removed": 1}, report
        after = (await client.get("/v1/games", params={"status": "finished"})).json()["games"]
        # The same listing; created_at from the log's first event (within the request).
        assert [dict(g, created_at=0) for g in after] == [dict(g, created_at=0) for g in before]
        assert after[0]["game_id"] == game_id
        assert abs(after[0]["created_at"] - before[0]["created_at"]) < 1_000
        assert (await client.get("/v1/games", params={"status": "open"})).json()["games"] == []


async def test_check_reports_every_damaged_game(toolbox: Toolbox) -> None:
    async with httpx.AsyncClient(base_url=toolbox.server.url, timeout=20.0) as client:
        good, lost_seed, unlisted = await finished_games(client, 3)
        status, report = await toolbox.run("check")
        assert status == 0 and report == {"games": 3, "problems": {}}, report
        await toolbox.redis.delete(secret_key(lost_seed))
        await toolbox.redis.hdel("allfours:{lobby}:games", unlisted)
        await toolbox.redis.zrem("allfours:{lobby}:status:finished", unlisted)
        await toolbox.redis.xadd(events_key("garbled"), {"e": b"not json"}, id="1-0")
        await toolbox.redis.xadd(events_key("gappy"), {"e": b"{}"}, id="2-0")
        status, report = await toolbox.run("check")
        assert status == 1
        problems = report["problems"]
        assert set(problems) == {lost_seed, unlisted, "garbled", "gappy"}, problems
        assert any("secret" in p for p in problems[lost_seed])
        assert any("lobby" in p for p in problems[unlisted])
        assert any("does not fold" in p for p in problems["garbled"])
        assert good not in problems
