"""Live SSE frames written straight from the hub's delivery (``server/api/edge/wire.py``) on
a real ``allfours serve``: a spectator's and a seat's streams of a game played live get every
event once, in order, redacted for them exactly as the log says, and the server counts those
writes as direct (``allfours_sse_writes_total{path="direct"}``), so the fast path is the one
taken. Slow readers falling back to the task's path are covered by the abuse suites."""

from __future__ import annotations

import asyncio
import json
import random
import re

import httpx
from support import all_events, create_game, drive, sse_frames, take_seat

_DIRECT = re.compile(r'^allfours_sse_writes_total\{path="direct"\} ([0-9.e+]+)$', re.M)


async def direct_writes(client: httpx.AsyncClient) -> float:
    found = _DIRECT.search((await client.get("/metrics")).text)
    return float(found.group(1)) if found else 0.0


async def test_live_frames_go_out_directly_each_once_in_order_and_redacted(
    client: httpx.AsyncClient,
) -> None:
    before = await direct_writes(client)
    created = await create_game(client, [None, None, None, None], target=3)
    game = created["game_id"]
    tokens = {seat: await take_seat(client, game, seat, f"Wire {seat}") for seat in range(4)}
    path = f"/v1/games/{game}/stream"
    seen: dict[int | None, list[tuple[int, str]]] = {None: [], 1: []}

    async def follow(viewer: int | None) -> None:
        headers = {} if viewer is None else {"Authorization": f"Bearer {tokens[viewer]}"}
        async for frame in sse_frames(client, path, headers=headers):
            assert frame.id is not None
            seen[viewer].append((frame.id, frame.data))

    followers = [asyncio.create_task(follow(v)) for v in seen]
    await asyncio.sleep(0.3)  # both streams caught up (and parked) before the play starts
    assert await drive(client, game, tokens, lambda _: False, random.Random(5)) is None
    logs = {v: await all_events(client, game, None if v is None else tokens[v]) for v in seen}
    for _ in range(300):  # the last frames may still be on their way
        if all(len(seen[v]) >= len(logs[v]) for v in seen):
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)  # and nothing more comes
    for follower in followers:
        follower.cancel()
    await asyncio.gather(*followers, return_exceptions=True)

    for viewer, frames in seen.items():
        log = logs[viewer]
        assert [version for version, _ in frames] == [e["version"] for e in log]
        assert [version for version, _ in frames] == list(range(1, len(log) + 1))
        assert [json.loads(data) for _, data in frames] == [e["event"] for e in log]
    await asyncio.sleep(0.2)  # the streams' ends are counted as their handlers finish
    assert await direct_writes(client) > before
