"""Complete games against a real ``allfours serve`` process, played by HTTP clients that each
follow their own SSE stream (one of them dropped and resumed mid-game), with a spectator
watching; every stream, poll and response is then checked against the published replay.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Sequence
from typing import Any

import httpx
import msgspec
import pytest
from support import (
    Follower,
    Frame,
    LeakChecker,
    Poller,
    SeatPlayer,
    ServerProcess,
    all_events,
    bearer,
    check_finished_log,
    create_game,
    moves_in,
    redacted_json,
    replay_of,
    take_seat,
)

from domain import Event
from domain import view as domain_view

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


def assert_delivered_exactly_once(frames: Sequence[Frame], full_log: Sequence[Event]) -> None:
    """Versions 1..N, each once and in order, with the content the log holds."""
    assert [f.id for f in frames] == list(range(1, len(full_log) + 1))
    assert [f.event for f in frames] == [type(e).__name__ for e in full_log]


def assert_redacted_for(
    viewer: int | None, frames: Sequence[Frame], full_log: Sequence[Event]
) -> None:
    """Each frame is exactly its event as ``viewer`` may see it (no more, no less)."""
    for frame, event in zip(frames, full_log, strict=True):
        assert json.loads(frame.data) == redacted_json(event, viewer), (viewer, frame.id)


async def spectator_watch(
    client: httpx.AsyncClient, game_id: str, leaks: LeakChecker, **follow: Any
) -> tuple[Follower, Poller]:
    """A spectator: follows the stream and polls its view after every message."""
    follower = Follower(client, game_id, None, None, leaks, **follow)
    poller = Poller(client, game_id, None, None, leaks)

    async def on_frame(frame: Frame) -> None:
        assert frame.id is not None
        await poller.poll(frame.id)

    await follower.follow(on_frame)
    return follower, poller


async def finish_checks(
    client: httpx.AsyncClient,
    game_id: str,
    leaks: LeakChecker,
    followers: dict[int | None, Follower],
    pollers: dict[int | None, Poller],
    tokens: dict[int, str],
) -> list[Event]:
    """Everything the game's viewers were sent, judged against the replay."""
    replay, full_log = await replay_of(client, game_id)
    final = check_finished_log(full_log)
    for viewer, follower in followers.items():
        assert_delivered_exactly_once(follower.frames, full_log)
        assert_redacted_for(viewer, follower.frames, full_log)
        # The event log, paged, says the same as the stream.
        token = tokens.get(viewer) if viewer is not None else None
        page = await all_events(client, game_id, token)
        assert [e["version"] for e in page] == [f.id for f in follower.frames]
        assert [e["event"] for e in page] == [json.loads(f.data) for f in follower.frames]
    for viewer, poller in pollers.items():
        assert poller.versions, viewer
        assert set(poller.versions) <= set(range(1, len(full_log) + 1))
        # Poll once more: the final view, then 304 for as long as nothing changes.
        view = await poller.poll(len(full_log))
        assert view["version"] == len(full_log) and view["phase"] == "ended"
        assert view["seed"] == replay["seed"] and view["winner"] == final.winner
        # The fold of the replay is the state the server ended in: same view, to the letter.
        assert view == json.loads(msgspec.json.encode(domain_view(final, viewer)))
        before = poller.not_modified
        await poller.poll(len(full_log))
        assert poller.not_modified == before + 1, "an unchanged game must answer 304"
    assert leaks.violations(full_log) == []
    return full_log


async def test_four_people_play_a_complete_game_over_http_and_sse(server: ServerProcess) -> None:
    rng = random.Random(20261129)
    leaks = LeakChecker()
    clients = [httpx.AsyncClient(base_url=server.url, timeout=10.0) for _ in range(5)]
    try:
        async with asyncio.timeout(150):
            created = await create_game(clients[0], [None, None, None, None], target=11)
            game = created["game_id"]
            tokens = {
                seat: await take_seat(clients[seat], game, seat, f"player {seat}")
                for seat in range(4)
            }
            players = [
                SeatPlayer.make(clients[0], game, 0, tokens[0], leaks, rng),
                # Dropped twice, resumed with Last-Event-ID like a browser's EventSource.
                SeatPlayer.make(
                    clients[1], game, 1, tokens[1], leaks, rng, disconnect_after=(10, 30)
                ),
                # The token as a query parameter, as EventSource must send it.
                SeatPlayer.make(clients[2], game, 2, tokens[2], leaks, rng, token_in_query=True),
                SeatPlayer.make(clients[3], game, 3, tokens[3], leaks, rng),
            ]
            spectator = asyncio.create_task(
                spectator_watch(
                    clients[4], game, leaks, disconnect_after=(25,), resume_with="after"
                )
            )
            await asyncio.gather(*(player.play() for player in players))
            follower, poller = await spectator
            followers: dict[int | None, Follower] = {p.seat: p.follower for p in players}
            pollers: dict[int | None, Poller] = {p.seat: p.poller for p in players}
            followers[None], pollers[None] = follower, poller
            full_log = await finish_checks(clients[0], game, leaks, followers, pollers, tokens)
        assert players[1].follower.stats.connections == 3
        assert follower.stats.connections == 2
        assert all(p.commands > 0 for p in players)
        for p in players:
            # Every move of the seat in the log was sent by its client, once.
            assert p.sent == moves_in(full_log, p.seat), p.seat
        assert sum(p.poller.not_modified for p in players) > 0
    finally:
        for client in clients:
            await client.aclose()


async def test_one_person_and_three_bots_play_a_complete_game(server: ServerProcess) -> None:
    rng = random.Random(7)
    leaks = LeakChecker()
    async with (
        httpx.AsyncClient(base_url=server.url, timeout=10.0) as person,
        httpx.AsyncClient(base_url=server.url, timeout=10.0) as watcher,
        asyncio.timeout(120),
    ):
        created = await create_game(person, [None, "heuristic", "random", "heuristic"])
        game = created["game_id"]
        assert created["version"] == 4  # GameCreated and three bots seated
        token = await take_seat(person, game, 0, "ann")
        player = SeatPlayer.make(person, game, 0, token, leaks, rng, disconnect_after=(25,))
        spectator = asyncio.create_task(spectator_watch(watcher, game, leaks))
        await player.play()
        follower, poller = await spectator
        full_log = await finish_checks(
            person,
            game,
            leaks,
            {0: player.follower, None: follower},
            {0: player.poller, None: poller},
            {0: token},
        )
    assert player.sent == moves_in(full_log, 0)


async def test_a_game_of_four_bots_is_over_when_created(client: httpx.AsyncClient) -> None:
    created = await create_game(client, ["heuristic", "random", "heuristic", "random"])
    _, full_log = await replay_of(client, created["game_id"])
    assert created["version"] == len(full_log)
    check_finished_log(full_log)


async def test_an_idle_stream_sends_heartbeats_and_resumes_past_the_end(
    client: httpx.AsyncClient,
) -> None:
    """After the last event a stream stays open, with heartbeat comments (0.2 s apart here);
    resuming from the last version sends nothing again."""
    created = await create_game(client, ["random", "random", "random", "random"])
    game, last = created["game_id"], created["version"]
    heartbeats = 0
    async with (
        asyncio.timeout(5),
        client.stream(
            "GET", f"/v1/games/{game}/stream", headers={"Last-Event-ID": str(last)}
        ) as response,
    ):
        assert response.status_code == 200
        async for line in response.aiter_lines():
            assert not line.startswith(("id:", "data:", "event:")), line
            if line == ": heartbeat":
                heartbeats += 1
                if heartbeats == 2:
                    break
    assert heartbeats == 2


async def test_metrics_label_requests_by_path_template(client: httpx.AsyncClient) -> None:
    created = await create_game(client, [None, "random", "random", "random"])
    game = created["game_id"]
    assert (await client.get(f"/v1/games/{game}")).status_code == 200
    metrics = await client.get("/metrics")
    assert metrics.status_code == 200
    assert metrics.headers["content-type"].startswith("text/plain")
    assert 'path="/v1/games/{game_id}"' in metrics.text
    assert game not in metrics.text, "a game id as a label: one time series per game"
    assert "allfours_sse_subscribers" in metrics.text


async def test_if_none_match_takes_a_list_or_a_star(client: httpx.AsyncClient) -> None:
    game = (await create_game(client, [None, None, "random", "random"]))["game_id"]
    first = await client.get(f"/v1/games/{game}")
    etag = first.headers["etag"]
    for held in (etag, f'W/"0-s", {etag}', "*"):
        response = await client.get(f"/v1/games/{game}", headers={"If-None-Match": held})
        assert response.status_code == 304, held
        assert response.headers["etag"] == etag and response.content == b""
    # Another viewer's tag, or an older version's, is not this view.
    token = await take_seat(client, game, 0, "ann")
    assert (
        await client.get(f"/v1/games/{game}", headers={"If-None-Match": etag, **bearer(token)})
    ).status_code == 200
    assert (
        await client.get(f"/v1/games/{game}", headers={"If-None-Match": etag})
    ).status_code == 200, "the game moved on (a seat was taken): the old tag is stale"
