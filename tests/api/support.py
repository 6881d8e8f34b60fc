"""Helpers of the API tests: a real ``allfours serve`` process, an SSE reader, a driver that
plays a seat to the end of its game, and the leak checker.

Everything here talks to the server the way an outside client would (HTTP only); the domain
is used only to judge what came back (``verify``, ``fold``, ``redact``).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec

from domain import (
    CardPlayed,
    Dealt,
    Event,
    PackRun,
    Revealed,
    SeedRevealed,
    State,
    fold,
    redact,
    verify,
)

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = "application/problem+json"
SSE = "text/event-stream"

# ---------------------------------------------------------------------------------------------
# a real server process


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


SERVER_ENV = {
    "ALLFOURS_HOST": "127.0.0.1",
    "ALLFOURS_RATE_LIMIT": "0",
    "ALLFOURS_SSE_HEARTBEAT_S": "0.2",
    "ALLFOURS_ACCESS_LOG": "false",
    "ALLFOURS_LOG_LEVEL": "warning",
    "ALLFOURS_SHUTDOWN_GRACE_S": "2",
    "ALLFOURS_TAKEOVER_GRACE_S": "0",
}
"""What every test server runs with unless a test says otherwise: no rate limit, heartbeats
often enough that a silent stream is noticed within a read timeout, and an away seat that may
be taken over at once (the grace has tests of its own, on a server with the default)."""


@dataclass
class ServerProcess:
    """An ``allfours serve`` child process on a loopback port."""

    url: str
    proc: subprocess.Popen[bytes]
    log_path: Path

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "".join(self.log_path.read_text(errors="replace").splitlines(True)[-lines:])
        except OSError as exc:
            return f"(no log: {exc})"

    def check_alive(self) -> None:
        code = self.proc.poll()
        if code is not None:
            raise AssertionError(f"allfours serve exited with {code}:\n{self.log_tail()}")

    async def stop(self, grace_s: float = 15.0) -> int:
        """SIGTERM, then wait (killing it after ``grace_s``); the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return await asyncio.to_thread(self.proc.wait, grace_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(
                f"allfours serve ignored SIGTERM for {grace_s}s:\n{self.log_tail()}"
            ) from None


def allfours_command() -> list[str]:
    """The installed console script (what ``uv run allfours`` runs)."""
    script = Path(sys.executable).with_name("allfours")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "server.cli"]


def spawn_server(redis_url: str, workdir: Path, env: Mapping[str, str] | None) -> ServerProcess:
    """Start ``allfours serve`` on a free port against ``redis_url`` (not yet ready)."""
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log_path = workdir / f"server-{port}.log"
    child_env = {
        **os.environ,
        **SERVER_ENV,
        **(env or {}),
        "REDIS_URL": redis_url,
        "ALLFOURS_PORT": str(port),
    }
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [*allfours_command(), "serve", "--port", str(port)],
            env=child_env,
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return ServerProcess(f"http://127.0.0.1:{port}", proc, log_path)


async def start_server(
    redis_url: str, workdir: Path, env: Mapping[str, str] | None = None, ready_s: float = 20.0
) -> ServerProcess:
    """``allfours serve`` on a free port, once ``/readyz`` answers 200 (or fail with its log):
    ready, its bot workers up, as a load balancer would wait for (``/livez`` alone came before
    the bot worker, and a loaded machine's test then met a 503 from ``/readyz``)."""
    for attempt in range(3):
        server = spawn_server(redis_url, workdir, env)
        try:
            await _wait_until_ready(server, ready_s)
            return server
        except AssertionError:
            if server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait()
            # The port may have been taken between the probe and the bind: try another one.
            if attempt == 2 or "address already in use" not in server.log_tail().lower():
                raise
    raise AssertionError("unreachable")


async def _wait_until_ready(server: ServerProcess, ready_s: float) -> None:
    """Poll ``/readyz``: a child process gives no other signal that it is ready."""
    deadline = time.monotonic() + ready_s
    async with httpx.AsyncClient(base_url=server.url, timeout=1.0) as client:
        while True:
            server.check_alive()
            with contextlib.suppress(httpx.TransportError):
                if (await client.get("/readyz")).status_code == 200:
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"server not ready after {ready_s}s:\n{server.log_tail()}")
            await asyncio.sleep(0.05)


# ---------------------------------------------------------------------------------------------
# responses


def problem_of(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """Assert ``response`` is an RFC 9457 problem with ``status`` and ``code``; return it."""
    assert response.status_code == status, (status, response.status_code, response.text)
    assert response.headers["content-type"].startswith(PROBLEM), response.headers
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["code"] == code, body
    assert body["type"] == f"urn:allfours:problem:{code}", body
    assert isinstance(body["title"], str) and body["title"], body
    return body


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def command_body(action: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    """A legal action of a view (``{"type": "play", "seat": 0, "card": "AS"}``) as a command."""
    body = {k: v for k, v in action.items() if k != "seat"}
    body.update(extra)
    return body


async def create_game(
    client: httpx.AsyncClient, bots: Sequence[str | None], **rules: Any
) -> dict[str, Any]:
    response = await client.post("/v1/games", json={"bots": list(bots), "rules": rules})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def take_seat(client: httpx.AsyncClient, game_id: str, seat: int, name: str) -> str:
    response = await client.post(f"/v1/games/{game_id}/seats/{seat}", json={"name": name})
    assert response.status_code == 201, response.text
    grant = response.json()
    assert grant["game_id"] == game_id and grant["seat"] == seat
    token: str = grant["token"]
    return token


async def seat_command(
    client: httpx.AsyncClient, game_id: str, seat: int, kind: str, token: str
) -> dict[str, Any]:
    """A seat command that takes no card (``leave``, ``step_away``...), which must be taken."""
    response = await client.post(
        f"/v1/games/{game_id}/seats/{seat}/commands", json={"type": kind}, headers=bearer(token)
    )
    assert response.status_code == 200, response.text
    accepted: dict[str, Any] = response.json()
    return accepted


async def all_events(
    client: httpx.AsyncClient, game_id: str, token: str | None = None, page: int = 50
) -> list[dict[str, Any]]:
    """The whole event log as ``token``'s seat (or a spectator) sees it, page by page."""
    envelopes: list[dict[str, Any]] = []
    after = 0
    while True:
        response = await client.get(
            f"/v1/games/{game_id}/events",
            params={"after": after, "limit": page},
            headers=bearer(token) if token else {},
        )
        assert response.status_code == 200, response.text
        body = response.json()
        envelopes.extend(body["events"])
        if not body["events"]:
            assert body["next_after"] == after and body["version"] <= after
            return envelopes
        assert body["next_after"] == body["events"][-1]["version"] <= body["version"]
        after = body["next_after"]


async def replay_of(client: httpx.AsyncClient, game_id: str) -> tuple[dict[str, Any], list[Event]]:
    """The published replay of a finished game, checked for shape; its decoded events."""
    response = await client.get(f"/v1/games/{game_id}/replay")
    assert response.status_code == 200, response.text
    replay = response.json()
    assert replay["format"] == "allfours-replay" and replay["format_version"] == 1
    assert replay["game_id"] == game_id
    versions = [e["version"] for e in replay["events"]]
    assert versions == list(range(1, len(versions) + 1))
    events = [msgspec.convert(e["event"], Event) for e in replay["events"]]
    return replay, events


def check_finished_log(events: Sequence[Event]) -> State:
    """A finished game's full log: fair deals, lawful moves, and its fold is the end."""
    verification = verify(events)
    assert verification.ok, verification.problems
    referee_module().Referee().see_all(events)
    state = fold(events)
    assert state.phase == "ended" and state.version == len(events)
    assert isinstance(events[-1], SeedRevealed) and state.seed == events[-1].seed
    return state


_referee: Any = None


def referee_module() -> Any:
    """The domain tests' independent referee (``tests/domain/referee.py``), loaded by path:
    it re-checks a whole log against RULES.md without sharing code with ``domain``."""
    global _referee
    if _referee is None:
        path = ROOT / "tests" / "domain" / "referee.py"
        spec = importlib.util.spec_from_file_location("allfours_api_referee", path)
        assert spec is not None and spec.loader is not None, path
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _referee = module
    return _referee


# ---------------------------------------------------------------------------------------------
# server-sent events


@dataclass(frozen=True)
class Frame:
    """One SSE message."""

    id: int | None
    event: str | None
    data: str


@dataclass
class SSEStats:
    heartbeats: int = 0
    connections: int = 0


async def sse_frames(
    client: httpx.AsyncClient,
    path: str,
    *,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    stats: SSEStats | None = None,
    read_timeout: float = 5.0,
) -> AsyncIterator[Frame]:
    """The messages of one SSE connection, as they come. Comments (heartbeats) are counted
    in ``stats``; a silence longer than ``read_timeout`` fails (heartbeats are far shorter)."""
    timeout = httpx.Timeout(5.0, read=read_timeout)
    async with client.stream(
        "GET", path, headers=dict(headers or {}), params=params, timeout=timeout
    ) as response:
        if response.status_code != 200:
            await response.aread()
            raise AssertionError(f"stream refused: {response.status_code} {response.text}")
        assert response.headers["content-type"].startswith(SSE), response.headers
        if stats is not None:
            stats.connections += 1
        fields: dict[str, str] = {}
        data: list[str] = []
        async for line in response.aiter_lines():
            if line == "":
                if data:
                    ident = fields.get("id")
                    yield Frame(
                        int(ident) if ident is not None else None,
                        fields.get("event"),
                        "\n".join(data),
                    )
                fields, data = {}, []
                continue
            if line.startswith(":"):
                if stats is not None and "heartbeat" in line:
                    stats.heartbeats += 1
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data.append(value)
            else:
                fields[name] = value


# ---------------------------------------------------------------------------------------------
# what each viewer may see

CARD_STRING = re.compile(r'"([2-9TJQKA][CDHS])"')
"""A card code as a JSON string: every card the API sends is one."""
STOCK_SHOWN = re.compile(r'"stock"\s*:\s*\[')


@dataclass(frozen=True)
class Observation:
    viewer: int | None
    version: int
    text: str
    where: str


@dataclass
class LeakChecker:
    """Records everything sent to seats and spectators during a game, to be judged at the end
    against the full log: a viewer may see its own cards of the current deal and every card
    played or turned up so far, nothing else; no stock ever; no seed before the last event."""

    observations: list[Observation] = field(default_factory=list)

    def record(self, viewer: int | None, version: int, text: str, where: str) -> None:
        self.observations.append(Observation(viewer, version, text, where))

    def record_view(self, viewer: int | None, body: dict[str, Any], text: str) -> None:
        self.record(viewer, body["version"], text, "view")

    def record_envelopes(self, viewer: int | None, text: str, where: str) -> None:
        """A body holding event envelopes: each envelope at its own version (a body may hold
        the cards of a deal that was abandoned since), the rest of it at the last one."""
        body = json.loads(text)
        envelopes = body.pop("events")
        for envelope in envelopes:
            self.record(viewer, envelope["version"], json.dumps(envelope), where)
        if envelopes:
            self.record(viewer, envelopes[-1]["version"], json.dumps(body), where)

    def violations(self, full_log: Sequence[Event]) -> list[str]:
        knowledge = Knowledge(full_log)
        last = len(full_log)
        seed = full_log[-1].seed if isinstance(full_log[-1], SeedRevealed) else None
        found: list[str] = []
        for seen in self.observations:
            who = "spectator" if seen.viewer is None else f"seat {seen.viewer}"
            where = f"{who}, {seen.where} at version {seen.version}"
            if not 1 <= seen.version <= last:
                found.append(f"{where}: no such version")
                continue
            allowed = knowledge.allowed(seen.viewer, seen.version)
            leaked = sorted(set(CARD_STRING.findall(seen.text)) - allowed)
            if leaked:
                found.append(f"{where}: cards {leaked} it may not see")
            if STOCK_SHOWN.search(seen.text):
                found.append(f"{where}: the stock")
            if seed and seen.version < last and seed in seen.text:
                found.append(f"{where}: the seed before the end")
        return found


class Knowledge:
    """From the full log: for each version, each seat's cards of the deal in progress, and the
    cards made public so far (turned up or played)."""

    def __init__(self, full_log: Sequence[Event]) -> None:
        own: list[frozenset[str]] = [frozenset()] * 4
        public: frozenset[str] = frozenset()
        self._own: list[list[frozenset[str]]] = [list(own)]
        self._public: list[frozenset[str]] = [public]
        for event in full_log:
            if isinstance(event, Dealt):
                own = [frozenset(hand or ()) for hand in event.hands]
            elif isinstance(event, PackRun):
                own = [own[s] | frozenset(event.hands[s] or ()) for s in range(4)]
            elif isinstance(event, Revealed | CardPlayed):
                public = public | {event.card}
            self._own.append(list(own))
            self._public.append(public)

    def allowed(self, viewer: int | None, version: int) -> frozenset[str]:
        public = self._public[version]
        return public if viewer is None else public | self._own[version][viewer]


def redacted_json(event: Event, viewer: int | None) -> Any:
    """``event`` as ``viewer`` may see it, as parsed JSON."""
    return json.loads(msgspec.json.encode(redact(event, viewer)))


# ---------------------------------------------------------------------------------------------
# playing over HTTP


@dataclass
class Poller:
    """Polls one viewer's view with ``If-None-Match``, checking the ETag protocol."""

    client: httpx.AsyncClient
    game_id: str
    viewer: int | None
    token: str | None
    leaks: LeakChecker
    etag: str | None = None
    view: dict[str, Any] | None = None
    versions: list[int] = field(default_factory=list)
    not_modified: int = 0

    async def poll(self, at_least: int) -> dict[str, Any]:
        """The current view, known to be at ``at_least`` or later (an SSE frame said so)."""
        headers = bearer(self.token) if self.token else {}
        if self.etag is not None:
            headers["If-None-Match"] = self.etag
        response = await self.client.get(f"/v1/games/{self.game_id}", headers=headers)
        etag = response.headers.get("etag")
        if response.status_code == 304:
            assert self.view is not None and etag == self.etag, (etag, self.etag)
            assert response.content == b""
            assert self.view["version"] >= at_least, "304 for a view older than an event seen"
            self.not_modified += 1
            return self.view
        assert response.status_code == 200, response.text
        view: dict[str, Any] = response.json()
        assert view["viewer"] == self.viewer
        assert etag == f'W/"{view["version"]}-{"s" if self.viewer is None else self.viewer}"'
        assert etag != self.etag, "a 200 with the ETag that was sent as If-None-Match"
        assert view["version"] >= at_least, (view["version"], at_least)
        if self.versions:
            assert view["version"] > self.versions[-1], "the view went back in time"
        self.versions.append(view["version"])
        self.leaks.record_view(self.viewer, view, response.text)
        if self.viewer is None:
            assert view["hand"] is None and view["legal_actions"] == []
        self.etag, self.view = etag, view
        return view


@dataclass
class Follower:
    """Follows one viewer's SSE stream to the game's last event, optionally dropping the
    connection after some frames and resuming (``Last-Event-ID`` or ``?after=``)."""

    client: httpx.AsyncClient
    game_id: str
    viewer: int | None
    token: str | None
    leaks: LeakChecker
    disconnect_after: Sequence[int] = ()
    """Drop the connection after this many frames in total (each number once)."""
    resume_with: str = "last-event-id"
    """``last-event-id`` or ``after``: how a dropped stream is resumed."""
    token_in_query: bool = False
    frames: list[Frame] = field(default_factory=list)
    stats: SSEStats = field(default_factory=SSEStats)

    async def follow(self, on_frame: Callable[[Frame], Any] | None = None) -> list[Frame]:
        drops = sorted(self.disconnect_after)
        while True:
            headers: dict[str, str] = {}
            params: dict[str, Any] = {}
            if self.token is not None:
                if self.token_in_query:
                    params["token"] = self.token
                else:
                    headers.update(bearer(self.token))
            last = self.frames[-1].id if self.frames else None
            if last is not None:
                if self.resume_with == "after":
                    params["after"] = last
                else:
                    headers["Last-Event-ID"] = str(last)
            dropped = False
            async for frame in sse_frames(
                self.client,
                f"/v1/games/{self.game_id}/stream",
                headers=headers,
                params=params,
                stats=self.stats,
            ):
                assert frame.event != "resync", "the stream asked for a resync"
                assert frame.id is not None, frame
                self.frames.append(frame)
                self.leaks.record(self.viewer, frame.id, frame.data, "stream")
                assert frame.event == json.loads(frame.data)["type"], frame
                if on_frame is not None:
                    result = on_frame(frame)
                    if asyncio.iscoroutine(result):
                        await result
                if frame.event == "SeedRevealed":
                    return self.frames
                if drops and len(self.frames) >= drops[0]:
                    drops.pop(0)
                    dropped = True
                    break  # leaving the `async with` closes the connection
            assert dropped, "the stream ended before the game did"


@dataclass
class SeatPlayer:
    """A person at one seat: follows its own stream and, whenever its view says it is to act,
    picks one of the view's ``legal_actions`` and sends it."""

    client: httpx.AsyncClient
    game_id: str
    seat: int
    token: str
    leaks: LeakChecker
    rng: random.Random
    follower: Follower
    poller: Poller
    commands: int = 0
    sent: Counter[str] = field(default_factory=Counter)
    """Accepted commands by type."""

    @classmethod
    def make(
        cls,
        client: httpx.AsyncClient,
        game_id: str,
        seat: int,
        token: str,
        leaks: LeakChecker,
        rng: random.Random,
        **follow: Any,
    ) -> SeatPlayer:
        return cls(
            client,
            game_id,
            seat,
            token,
            leaks,
            rng,
            Follower(client, game_id, seat, token, leaks, **follow),
            Poller(client, game_id, seat, token, leaks),
        )

    async def play(self) -> list[Frame]:
        return await self.follower.follow(self._on_frame)

    async def _on_frame(self, frame: Frame) -> None:
        assert frame.id is not None
        view = await self.poller.poll(frame.id)
        if view["to_act"] != self.seat or view["phase"] == "ended":
            assert view["legal_actions"] == []
            return
        assert view["legal_actions"], view
        action = self.rng.choice(view["legal_actions"])
        extra: dict[str, Any] = {}
        headers = bearer(self.token)
        if self.rng.random() < 0.5:
            extra["expected_version"] = view["version"]
        if self.rng.random() < 0.5:
            headers["Idempotency-Key"] = f"{self.game_id}-{self.seat}-{view['version']}"
        response = await self.client.post(
            f"/v1/games/{self.game_id}/seats/{self.seat}/commands",
            json=command_body(action, **extra),
            headers=headers,
        )
        assert response.status_code == 200, response.text
        accepted = response.json()
        assert not accepted["duplicate"]
        assert accepted["first_version"] == view["version"] + 1
        versions = [e["version"] for e in accepted["events"]]
        assert versions == list(range(accepted["first_version"], accepted["version"] + 1))
        self.leaks.record_envelopes(self.seat, response.text, "command response")
        self.commands += 1
        self.sent[action["type"]] += 1
        # The view polled so far is now stale: forget it so this seat never acts on it again.
        self.poller.etag = self.poller.view = None


def moves_in(full_log: Sequence[Event], seat: int | None = None) -> Counter[str]:
    """The player commands a log shows (all seats', or one seat's), by command type. Running
    the pack can deal more than once: one ``run_pack`` per run, however many ``PackRun``."""
    names = {"Stood": "stand", "Begged": "beg", "GaveOne": "give_one", "CardPlayed": "play"}
    moves: Counter[str] = Counter()
    previous: Event | None = None
    for event in full_log:
        mine = seat is None or getattr(event, "seat", None) == seat
        name = type(event).__name__
        if mine and name in names:
            moves[names[name]] += 1
        elif mine and isinstance(event, PackRun) and not isinstance(previous, PackRun | Revealed):
            moves["run_pack"] += 1
        previous = event
    return moves


async def view_of(
    client: httpx.AsyncClient, game_id: str, token: str | None = None
) -> dict[str, Any]:
    response = await client.get(f"/v1/games/{game_id}", headers=bearer(token) if token else {})
    assert response.status_code == 200, response.text
    view: dict[str, Any] = response.json()
    return view


async def drive(
    client: httpx.AsyncClient,
    game_id: str,
    tokens: Mapping[int, str],
    until: Callable[[dict[str, Any]], bool],
    rng: random.Random,
    max_commands: int = 2_000,
) -> dict[str, Any] | None:
    """Play the people's seats (``tokens``; bots play by themselves) with random legal moves
    until ``until(view)`` holds for the view of the seat to act: that view, or None if the
    game ended first."""
    for _ in range(max_commands):
        to_act = (await view_of(client, game_id))["to_act"]
        if to_act is None:
            return None  # the game is over: with bots, nothing else leaves nobody to act
        assert to_act in tokens, f"the game waits on seat {to_act}, which no one here plays"
        view = await view_of(client, game_id, tokens[to_act])
        if until(view):
            return view
        action = rng.choice(view["legal_actions"])
        response = await client.post(
            f"/v1/games/{game_id}/seats/{to_act}/commands",
            json=command_body(action),
            headers=bearer(tokens[to_act]),
        )
        assert response.status_code == 200, response.text
    raise AssertionError(f"no such moment within {max_commands} commands")
