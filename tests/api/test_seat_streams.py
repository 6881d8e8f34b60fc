"""A seat's stream when the seat changes hands: a leaver's stream goes on as a spectator's, an
away holder's ends once someone else takes the seat, and the newcomer's stream, read from the
start, treats the earlier occupant's leaving as history and shows the newcomer's own seat."""

from __future__ import annotations

import asyncio
import json

import httpx
from support import Frame, bearer, create_game, sse_frames, take_seat, view_of


async def _frames_until(
    client: httpx.AsyncClient, game: str, token: str, version: int
) -> list[Frame]:
    """The frames of ``token``'s stream from the start (with views) up to the view of
    ``version``, or until the stream ends."""
    frames: list[Frame] = []
    async for frame in sse_frames(
        client, f"/v1/games/{game}/stream", params={"token": token, "view": "true"}
    ):
        frames.append(frame)
        if frame.event == "view" and json.loads(frame.data)["version"] == version:
            break
    return frames


async def test_a_seat_that_changes_hands_streams_to_its_current_holder(
    client: httpx.AsyncClient,
) -> None:
    game, ann = await _two_people(client)
    left = await client.post(
        f"/v1/games/{game}/seats/0/commands", json={"type": "leave"}, headers=bearer(ann)
    )
    assert left.status_code == 200, left.text
    bob = await take_seat(client, game, 0, "bob")
    now = (await view_of(client, game))["version"]

    # ann's old token no longer opens the seat's stream: the seat is bob's.
    refused = await client.get(f"/v1/games/{game}/stream", params={"token": ann})
    assert refused.status_code == 401, refused.text

    frames = await _frames_until(client, game, bob, now)
    kinds = [f.event for f in frames]
    assert "PlayerLeft" in kinds and "PlayerReplaced" in kinds, kinds
    last = frames[-1]
    assert last.event == "view", "bob's stream ended at a seat change that came before him"
    view = json.loads(last.data)
    assert view["version"] == now and view["viewer"] == 0 and isinstance(view["hand"], list)
    dealt = [json.loads(f.data) for f in frames if f.event == "Dealt"]
    assert dealt and dealt[-1]["hands"][0] is not None, "bob was shown his seat as a spectator"


async def _live_frames(
    client: httpx.AsyncClient, game: str, token: str, frames: list[Frame]
) -> None:
    """Follow ``token``'s stream live from the game's present, appending to ``frames``."""
    after = (await view_of(client, game))["version"]
    async for frame in sse_frames(
        client, f"/v1/games/{game}/stream", params={"token": token, "after": after}
    ):
        frames.append(frame)


async def _two_people(client: httpx.AsyncClient) -> tuple[str, str]:
    """A game of ann (seat 0), carl (seat 1) and two bots, with no clock; its id and ann's token."""
    game = (await create_game(client, [None, None, "random", "random"], turn_seconds=None))[
        "game_id"
    ]
    ann = await take_seat(client, game, 0, "ann")
    await take_seat(client, game, 1, "carl")
    return game, ann


async def _bob_takes_over_after(
    client: httpx.AsyncClient, command: str
) -> tuple[asyncio.Task[None], list[Frame]]:
    """ann follows her seat's stream live, sends ``command``, then bob takes her seat: the
    stream's task (still running or ended) and the frames it got."""
    game, ann = await _two_people(client)
    frames: list[Frame] = []
    following = asyncio.create_task(_live_frames(client, game, ann, frames))
    await asyncio.sleep(0.3)  # the stream is open
    sent = await client.post(
        f"/v1/games/{game}/seats/0/commands", json={"type": command}, headers=bearer(ann)
    )
    assert sent.status_code == 200, sent.text
    await take_seat(client, game, 0, "bob")
    return following, frames


async def test_an_away_seat_taken_over_ends_its_holders_live_stream(
    client: httpx.AsyncClient,
) -> None:
    following, frames = await _bob_takes_over_after(client, "step_away")
    async with asyncio.timeout(10):
        await following  # the stream ends by itself: the seat is bob's now
    kinds = [f.event for f in frames]
    assert kinds[0] == "SeatAway" and kinds[-1] == "PlayerReplaced", kinds


async def test_the_leavers_live_stream_goes_on_as_a_spectators(
    client: httpx.AsyncClient,
) -> None:
    following, frames = await _bob_takes_over_after(client, "leave")
    await asyncio.sleep(0.5)
    assert not following.done(), "the leaver's stream ended"
    following.cancel()
    kinds = [f.event for f in frames]
    assert kinds[0] == "PlayerLeft" and "PlayerReplaced" in kinds, kinds
