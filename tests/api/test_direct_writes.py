"""Live SSE frames written straight from the hub's delivery (``server/api/edge/wire.py``) on
a real ``allfours serve``: a spectator's and a seat's streams of a game played live get every
event once, in order, redacted for them exactly as the log says, and the server counts those
writes as direct (``allfours_sse_writes_total{path="direct"}``), so the fast path is the one
taken. Slow readers falling back to the task's path are covered by the abuse suites."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import re
import weakref
from typing import Any

import httpx
from support import all_events, bearer, create_game, drive, sse_frames, take_seat

from server.api.edge.wire import WIRE_KEY, expose_wire

_DIRECT = re.compile(r'^allfours_sse_writes_total\{path="direct"\} ([0-9.e+]+)$', re.M)


async def direct_writes(client: httpx.AsyncClient) -> float:
    found = _DIRECT.search((await client.get("/metrics")).text)
    return float(found.group(1)) if found else 0.0


async def test_live_frames_go_out_directly_each_once_in_order_and_redacted(
    client: httpx.AsyncClient,
) -> None:
    before = await direct_writes(client)
    # Target 7: a game of 3 may end on its first kick, before any batch goes out directly.
    created = await create_game(client, [None, None, None, None], target=7)
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


async def test_view_streams_written_directly_show_each_moment_as_the_api_does(
    client: httpx.AsyncClient,
) -> None:
    """``view_each`` streams (the web client's) of two viewers: after every event its view, at
    that version, and the last one is the view the API gives that viewer."""
    before = await direct_writes(client)
    # Target 7: a game of 3 may end on its first kick, before any batch goes out directly.
    created = await create_game(client, [None, None, None, None], target=7)
    game = created["game_id"]
    tokens = {seat: await take_seat(client, game, seat, f"View {seat}") for seat in range(4)}
    path = f"/v1/games/{game}/stream"
    frames: dict[int | None, list[tuple[str | None, int | None, str]]] = {None: [], 2: []}

    async def follow(viewer: int | None) -> None:
        headers = {} if viewer is None else {"Authorization": f"Bearer {tokens[viewer]}"}
        params = {"view_each": "true"}
        async for frame in sse_frames(client, path, headers=headers, params=params):
            frames[viewer].append((frame.event, frame.id, frame.data))

    followers = [asyncio.create_task(follow(v)) for v in frames]
    await asyncio.sleep(0.3)
    assert await drive(client, game, tokens, lambda _: False, random.Random(8)) is None
    final = {
        v: (
            await client.get(f"/v1/games/{game}", headers={} if v is None else bearer(tokens[v]))
        ).json()
        for v in frames
    }
    for _ in range(300):
        if all(
            any(e == "view" and json.loads(d)["version"] == final[v]["version"] for e, _, d in got)
            for v, got in frames.items()
        ):
            break
        await asyncio.sleep(0.05)
    for follower in followers:
        follower.cancel()
    await asyncio.gather(*followers, return_exceptions=True)

    for viewer, got in frames.items():
        events = [(i, d) for e, i, d in got if e != "view"]
        views = [json.loads(d) for e, _, d in got if e == "view"]
        assert [i for i, _ in events] == list(range(1, final[viewer]["version"] + 1))
        # Each event is followed by the view after it.
        after = [json.loads(got[k + 1][2]) for k, (e, _, _) in enumerate(got[:-1]) if e != "view"]
        assert [v["version"] for v in after] == [i for i, _ in events]
        assert views[-1] == final[viewer]
    await asyncio.sleep(0.2)
    assert await direct_writes(client) > before


class ResponseCycle:
    """Shaped as uvicorn's response cycle: it holds the request's scope, and the ``send`` the
    app is given is its own method."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] = {"type": "http", "path": "/livez"}

    async def receive(self) -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(self, message: dict[str, Any]) -> None:
        pass


async def test_a_request_answered_leaves_no_cycle_for_the_garbage_collector() -> None:
    """The server's ``send`` is in the scope while the app runs (for the streams' direct
    writes) and gone when it returns: left there, the cycle's ``send`` and the scope it holds
    made every request (its scope, Litestar's state, the cycle) garbage that only a full
    collection frees, which the server runs rarely: its memory grew by about 500 KB a game
    in ``tests/bench/load.py``."""
    during: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        during.append(scope.get(WIRE_KEY) is send)

    gc.disable()  # freed by reference counting alone, as in the server between full passes
    try:
        cycle = ResponseCycle()
        gone = weakref.ref(cycle)
        await expose_wire(app)(cycle.scope, cycle.receive, cycle.send)  # type: ignore[arg-type]
        assert during == [True]
        assert WIRE_KEY not in cycle.scope
        del cycle
        assert gone() is None
    finally:
        gc.enable()
