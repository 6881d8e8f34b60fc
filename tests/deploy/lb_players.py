"""Clients of the compose topology, all through nginx, as people on the internet would be:
each seat follows its own SSE stream (resuming with ``Last-Event-ID`` whenever the connection
breaks or goes quiet past its heartbeats) and sends its commands with an ``Idempotency-Key``,
retried while the topology answers 502/503/504 or not at all (a replica or Redis is down).

Bounded in time: every retry loop gives up at the player's deadline.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from support import Frame, SSEStats, bearer, command_body, sse_frames

RETRY = {502, 503, 504}
HEARTBEAT_SILENCE_S = 5.0
"""A stream quiet this long is taken for dead (the test's heartbeat is 1 s). Longer than
nginx's SSE read timeout in the test (3 s), so that it is nginx, not the client, that would
cut a stream whose heartbeats stopped."""


@dataclass
class Stream:
    """One viewer's stream of a game, across however many connections it takes."""

    client: httpx.AsyncClient
    game_id: str
    token: str | None
    deadline: float
    frames: list[Frame] = field(default_factory=list)
    arrived: dict[int, float] = field(default_factory=dict)
    """When each event id first arrived (monotonic)."""
    stats: SSEStats = field(default_factory=SSEStats)
    resumed_with: list[str] = field(default_factory=list)
    """The Last-Event-ID of each reconnection."""

    async def follow(self, on_frame: Callable[[Frame], Awaitable[None]] | None = None) -> None:
        """Until the game's last event (``SeedRevealed``)."""
        while True:
            headers = bearer(self.token) if self.token else {}
            if self.frames:
                headers["Last-Event-ID"] = str(self.frames[-1].id)
                self.resumed_with.append(headers["Last-Event-ID"])
            try:
                async for frame in sse_frames(
                    self.client,
                    f"/v1/games/{self.game_id}/stream",
                    headers=headers,
                    stats=self.stats,
                    read_timeout=HEARTBEAT_SILENCE_S,
                ):
                    assert frame.event != "resync", "the stream asked for a resync"
                    assert frame.id is not None
                    self.frames.append(frame)
                    self.arrived.setdefault(frame.id, time.monotonic())
                    if on_frame is not None:
                        await on_frame(frame)
                    if frame.event == "SeedRevealed":
                        return
            except httpx.TransportError:
                pass  # the replica behind this connection died, or went quiet
            except AssertionError as refused:
                if not str(refused).startswith("stream refused: 5"):
                    raise
            assert time.monotonic() < self.deadline, f"{self.game_id}: stream not finished"
            await asyncio.sleep(0.2)


async def request(
    client: httpx.AsyncClient, deadline: float, method: str, path: str, **kwargs: Any
) -> httpx.Response:
    """The first answer that is not a 502/503/504 or a transport error, until ``deadline``."""
    while True:
        try:
            response = await client.request(method, path, **kwargs)
            if response.status_code not in RETRY:
                return response
            failure = f"{response.status_code} {response.text[:200]}"
        except httpx.TransportError as exc:
            failure = repr(exc)
        assert time.monotonic() < deadline, f"{method} {path}: {failure}"
        await asyncio.sleep(0.2)


@dataclass
class Player:
    """A person at one seat, acting (random legal moves) whenever its view says so."""

    client: httpx.AsyncClient
    game_id: str
    seat: int
    token: str
    rng: random.Random
    deadline: float
    acknowledged: dict[int, str] = field(default_factory=dict)
    """Event version -> event type, of every event a command response acknowledged."""
    sent_at: dict[int, float] = field(default_factory=dict)
    """First version of each accepted command -> when the command was sent (monotonic)."""
    stream: Stream = field(init=False)

    def __post_init__(self) -> None:
        self.stream = Stream(self.client, self.game_id, self.token, self.deadline)

    async def play(self) -> None:
        await self.stream.follow(self._on_frame)

    async def _on_frame(self, frame: Frame) -> None:
        headers = bearer(self.token)
        response = await request(
            self.client, self.deadline, "GET", f"/v1/games/{self.game_id}", headers=headers
        )
        assert response.status_code == 200, response.text
        view = response.json()
        if view["phase"] == "ended" or view["to_act"] != self.seat:
            return
        version = view["version"]
        action = self.rng.choice(view["legal_actions"])
        sent = time.monotonic()
        response = await request(
            self.client,
            self.deadline,
            "POST",
            f"/v1/games/{self.game_id}/seats/{self.seat}/commands",
            json=command_body(action, expected_version=version),
            headers={**headers, "Idempotency-Key": f"{self.game_id}:{self.seat}:{version}"},
        )
        if response.status_code == 409 and response.json().get("code") == "version_conflict":
            return  # this view was stale: the newer frame on its way says what to do
        assert response.status_code == 200, response.text
        accepted = response.json()
        assert accepted["first_version"] == version + 1, accepted
        self.sent_at.setdefault(version + 1, sent)
        for envelope in accepted["events"]:
            self.acknowledged[envelope["version"]] = envelope["event"]["type"]
