"""Clients of a fleet of instances, as a load balancer's clients would behave: each request
goes to a preferred instance, and to the next one when that instance is gone (a transport
error, or a 503 while it shuts down). Commands carry an ``Idempotency-Key``, so a command
retried on another instance after its first instance died is applied once.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from support import Frame, ServerProcess, bearer, command_body, sse_frames, start_server


@dataclass
class Fleet:
    servers: Sequence[ServerProcess]
    clients: list[httpx.AsyncClient] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.clients = [httpx.AsyncClient(base_url=s.url, timeout=10.0) for s in self.servers]

    def alive(self, index: int) -> bool:
        return self.servers[index].proc.poll() is None

    def order(self, preferred: int) -> list[int]:
        """Live instances, the preferred one first."""
        n = len(self.servers)
        ranked = [(preferred + k) % n for k in range(n)]
        return [i for i in ranked if self.alive(i)]

    def check_alive(self) -> None:
        for server in self.servers:
            server.check_alive()

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()

    async def request(
        self, preferred: int, method: str, path: str, **kwargs: Any
    ) -> tuple[int, httpx.Response]:
        """(instance that answered, its response), failing over to the next live instance."""
        failures: list[str] = []
        for _ in range(20):
            for index in self.order(preferred):
                try:
                    response = await self.clients[index].request(method, path, **kwargs)
                except httpx.TransportError as exc:
                    failures.append(f"{index}: {exc!r}")
                    continue
                if response.status_code == 503:
                    failures.append(f"{index}: 503 {response.text}")
                    continue
                return index, response
            await asyncio.sleep(0.05)
        raise AssertionError(f"no instance answered {method} {path}: {failures[-5:]}")


@dataclass
class Follower:
    """Follows a game's SSE stream on a preferred instance, resuming on another one with
    ``Last-Event-ID`` when its connection breaks, until the game's last event."""

    fleet: Fleet
    preferred: int
    game_id: str
    token: str | None = None
    changed: asyncio.Event | None = None
    frames: list[Frame] = field(default_factory=list)
    connections: list[int] = field(default_factory=list)
    """The instance of each connection, in order."""

    async def follow(self) -> list[Frame]:
        while True:
            live = self.fleet.order(self.preferred)
            assert live, "no instance left"
            index = live[0]
            headers = bearer(self.token) if self.token else {}
            if self.frames:
                headers["Last-Event-ID"] = str(self.frames[-1].id)
            self.connections.append(index)
            try:
                async for frame in sse_frames(
                    self.fleet.clients[index],
                    f"/v1/games/{self.game_id}/stream",
                    headers=headers,
                    read_timeout=5.0,
                ):
                    assert frame.event != "resync", "the stream asked for a resync"
                    self.frames.append(frame)
                    if self.changed is not None:
                        self.changed.set()
                    if frame.event == "SeedRevealed":
                        return self.frames
            except httpx.TransportError:
                continue  # the instance died: the next live one takes over
            except AssertionError:
                if self.fleet.alive(index):
                    raise
                continue  # refused while dying


@dataclass
class Seat:
    """A person at one seat: commands through a preferred instance (failing over), moved by its
    own stream followed on another instance."""

    fleet: Fleet
    game_id: str
    seat: int
    token: str
    commands_to: int
    stream_from: int
    rng: random.Random
    answered_by: Counter[int] = field(default_factory=Counter)
    """Accepted commands by the instance that answered them."""
    duplicates: int = 0

    async def play(self) -> Follower:
        changed = asyncio.Event()
        changed.set()
        follower = Follower(self.fleet, self.stream_from, self.game_id, self.token, changed)
        following = asyncio.create_task(follower.follow())
        try:
            while not following.done():
                waiter = asyncio.create_task(changed.wait())
                await asyncio.wait({following, waiter}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                changed.clear()
                if not following.done():
                    await self._act_if_due(changed)
            await following  # raises what the follower raised
        finally:
            following.cancel()
        return follower

    async def _act_if_due(self, changed: asyncio.Event) -> None:
        headers = bearer(self.token)
        _, response = await self.fleet.request(
            self.commands_to, "GET", f"/v1/games/{self.game_id}", headers=headers
        )
        assert response.status_code == 200, response.text
        view = response.json()
        if view["phase"] == "ended" or view["to_act"] != self.seat:
            return
        action = self.rng.choice(view["legal_actions"])
        index, response = await self.fleet.request(
            self.commands_to,
            "POST",
            f"/v1/games/{self.game_id}/seats/{self.seat}/commands",
            json=command_body(action, expected_version=view["version"]),
            headers={**headers, "Idempotency-Key": f"{self.game_id}:{self.seat}:{view['version']}"},
        )
        assert response.status_code == 200, response.text
        accepted = response.json()
        assert accepted["first_version"] == view["version"] + 1, accepted
        self.answered_by[index] += 1
        self.duplicates += accepted["duplicate"]
        changed.set()  # look again: this seat may be the next to act too


async def start_fleet(
    redis_url: str, workdir: Path, size: int, env: Mapping[str, str] | None = None
) -> Fleet:
    servers = await asyncio.gather(
        *(start_server(redis_url, workdir / f"instance-{i}", env) for i in range(size)),
        return_exceptions=True,
    )
    started = [s for s in servers if isinstance(s, ServerProcess)]
    failed = [s for s in servers if not isinstance(s, ServerProcess)]
    if failed:
        for server in started:
            await server.stop()
        raise failed[0]
    return Fleet(started)


async def stop_fleet(fleet: Fleet) -> None:
    """Stop the instances still running (SIGTERM); each must exit cleanly."""
    await fleet.aclose()
    codes = await asyncio.gather(
        *(server.stop() for server in fleet.servers if server.proc.poll() is None)
    )
    assert all(code == 0 for code in codes), [s.log_tail() for s in fleet.servers]
