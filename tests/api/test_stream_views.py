"""One stream plus one POST per decision: a client plays a whole game from the stream's view
snapshots (``?view=1``) and the views in command answers, never asking for the view."""

from __future__ import annotations

import json

import httpx
from support import bearer, command_body, create_game, sse_frames, take_seat


async def test_a_game_played_from_one_stream_and_one_post_per_decision(
    client: httpx.AsyncClient,
) -> None:
    game = (
        # To 10: kicks alone never end it before ann's first decision (to 3 a Jack may).
        await create_game(
            client, [None, "random", "random", "random"], target=10, turn_seconds=None
        )
    )["game_id"]
    token = await take_seat(client, game, 0, "ann")
    posts = 0
    versions: list[int] = []
    last_event = 0
    async for frame in sse_frames(
        client, f"/v1/games/{game}/stream", params={"token": token, "view": "true"}
    ):
        if frame.event != "view":
            assert frame.id is not None
            last_event = frame.id
            continue
        assert frame.id is None  # a snapshot never moves the resume point
        view = json.loads(frame.data)
        assert view["version"] == last_event  # exactly the events sent so far
        versions.append(view["version"])
        assert view["viewer"] == 0 and isinstance(view["hand"], list)
        if view["phase"] == "ended" and view["seed"]:
            break
        if view["to_act"] == 0 and view["legal_actions"]:
            answer = await client.post(
                f"/v1/games/{game}/seats/0/commands",
                json=command_body(view["legal_actions"][0], expected_version=view["version"]),
                headers=bearer(token),
            )
            posts += 1
            assert answer.status_code == 200, answer.text
            assert answer.json()["view"]["version"] == answer.json()["version"]
    assert versions == sorted(versions) and posts > 0
    final = (await client.get(f"/v1/games/{game}")).json()
    assert final["phase"] == "ended" and final["version"] >= versions[-1]


async def test_a_spectator_snapshot_holds_no_hand(client: httpx.AsyncClient) -> None:
    game = (await create_game(client, ["random"] * 4, target=2))["game_id"]
    path = f"/v1/games/{game}/stream"
    last_event = 0
    async for frame in sse_frames(client, path, params={"view": "1"}):
        if frame.event != "view":
            assert frame.id is not None
            last_event = frame.id
            continue
        view = json.loads(frame.data)
        assert view["hand"] is None and view["legal_actions"] == []
        # From 0 the first snapshot follows the first batch: never a game before its first
        # event (phase "new", no seed commitment).
        assert view["version"] == last_event > 0
        assert view["phase"] != "new" and view["seed_commitment"]
        break
    # A resumed stream first shows the game where the client has it.
    async for frame in sse_frames(client, path, params={"view": "1", "after": "3"}):
        assert frame.event == "view" and json.loads(frame.data)["version"] == 3
        break


async def test_view_each_follows_every_event_with_its_own_position(
    client: httpx.AsyncClient,
) -> None:
    """``view_each``: one view after each event, at that event's version (a paced client
    shows each moment), where ``view`` gives one per batch."""
    game = (await create_game(client, ["random"] * 4, target=2))["game_id"]
    path = f"/v1/games/{game}/stream"
    pairs: list[tuple[int, int]] = []
    event_id: int | None = None
    async for frame in sse_frames(client, path, params={"view_each": "true"}):
        if frame.event != "view":
            assert event_id is None, "two events without a view between them"
            event_id = frame.id
            continue
        view = json.loads(frame.data)
        assert event_id is not None, "a view without its event"
        pairs.append((event_id, view["version"]))
        event_id = None
        if view["phase"] == "ended" and view["seed"]:
            break
    assert all(event == version for event, version in pairs)
    assert [v for _, v in pairs] == list(range(1, len(pairs) + 1))
    batched = 0
    async for frame in sse_frames(client, path, params={"view": "true"}):
        batched += frame.event == "view"
        if frame.event == "SeedRevealed":
            break
    assert batched < len(pairs)  # the batch form has fewer views than events


async def test_when_a_view_stream_sends_its_views(client: httpx.AsyncClient) -> None:
    """What the spec says of ``view=true`` (issue 25): from version 0 no view comes first (no
    game yet to show), a view follows each batch, the catch-up's last included, and a stream
    resumed after a version starts with the game as of that version."""
    game = (await create_game(client, ["random"] * 4, target=2))["game_id"]
    final = (await client.get(f"/v1/games/{game}")).json()["version"]
    path = f"/v1/games/{game}/stream"
    kinds: list[str | None] = []
    last_event = 0
    async for frame in sse_frames(client, path, params={"view": "true"}):
        kinds.append(frame.event)
        if frame.event != "view":
            assert frame.id is not None
            last_event = frame.id
            continue
        assert json.loads(frame.data)["version"] == last_event
        if last_event == final:
            break
    assert kinds[0] == "GameCreated" and kinds[-1] == "view"
    resumed_at = final // 2
    async for frame in sse_frames(client, path, params={"view": "true", "after": resumed_at}):
        assert frame.event == "view" and json.loads(frame.data)["version"] == resumed_at
        break
