"""A Python client generated from ``openapi/openapi.json`` alone plays a whole game against a
real ``allfours serve``: a person (this client) and three bots, no clock.

The client is generated at test time by ``openapi-python-client`` (a maintained generator from
PyPI), into a temporary directory, and must generate without a warning about the spec. It
makes every call through the generated code, except the event stream: the generator has no
Server-Sent Events support, so the stream is read with the generated client's own httpx client.
The play loop is the one the README describes: act while the view says it is your turn (each
command's answer carries the new view), otherwise wait on the stream for something newer.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest
from client_support import SPEC
from support import ServerProcess, sse_frames

from domain import Event, verify

GENERATOR = Path(sys.executable).with_name("openapi-python-client")
PACKAGE = "allfours_generated_client"
SEAT = 0


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated package, imported (generation takes a few seconds)."""
    where = tmp_path_factory.mktemp("python-client")
    config = where / "config.yaml"
    config.write_text("post_hooks: []\n")  # no formatter run: the code is only imported
    result = subprocess.run(
        [
            *(str(GENERATOR), "generate", "--path", str(SPEC), "--meta", "none"),
            *("--output-path", str(where / PACKAGE), "--config", str(config)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "warning" not in output.lower(), f"the generator warns about the spec:\n{output}"
    sys.path.insert(0, str(where))
    try:
        return importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(where))


def submodule(package: ModuleType, name: str) -> Any:
    return importlib.import_module(f"{package.__name__}.{name}")


async def test_a_generated_client_plays_a_whole_game(
    generated: ModuleType, server: ServerProcess
) -> None:
    api = submodule(generated, "api.games")
    models = submodule(generated, "models")
    for operation in ("create_game", "take_seat", "get_game", "send_command", "get_replay"):
        submodule(api, operation)
    anonymous = generated.Client(base_url=server.url, raise_on_unexpected_status=True)

    body = models.CreateGame.from_dict(
        {"bots": [None, "heuristic", "heuristic", "heuristic"], "rules": {"turn_seconds": None}}
    )
    created = await api.create_game.asyncio(client=anonymous, body=body)
    assert isinstance(created, models.GameRef), created
    granted = await api.take_seat.asyncio(
        created.game_id, SEAT, client=anonymous, body=models.TakeSeat(name="generated")
    )
    assert isinstance(granted, models.SeatGranted), granted
    seat = generated.AuthenticatedClient(
        base_url=server.url, token=granted.token, raise_on_unexpected_status=True
    )

    stream = Stream()
    following = asyncio.create_task(stream.follow(seat.get_async_httpx_client(), created.game_id))
    commands = await play(api, models, seat, created.game_id, stream)
    await asyncio.wait_for(following, 30)
    frames = stream.frames

    replay = await api.get_replay.asyncio(created.game_id, client=anonymous)
    assert isinstance(replay, models.Replay), replay
    assert [f[0] for f in frames] == list(range(1, len(replay.events) + 1)), "a gap or a repeat"
    assert [f[1] for f in frames] == [e.event.type_ for e in replay.events]
    events = [msgspec.convert(e.to_dict()["event"], Event) for e in replay.events]
    assert verify(events).ok, verify(events).problems
    played = sum(1 for e in replay.events if e.event.type_ == "CardPlayed")
    assert commands >= played // 4 and played >= 24, (commands, played)


class Stream:
    """The seat's stream, followed in the background: what arrived, and a way to wait."""

    def __init__(self) -> None:
        self.frames: list[tuple[int, str, dict[str, Any]]] = []
        self._arrived = asyncio.Condition()

    async def follow(self, http: Any, game_id: str) -> None:
        """Read the stream to the game's last event (``support.sse_frames`` parses it with
        httpx: the generated client's own, which sends the seat's token)."""
        async for frame in sse_frames(http, f"/v1/games/{game_id}/stream"):
            assert frame.id is not None and frame.event is not None, frame
            async with self._arrived:
                self.frames.append((frame.id, frame.event, json.loads(frame.data)))
                self._arrived.notify_all()
            if frame.event == "SeedRevealed":
                return

    async def past(self, version: int) -> None:
        """Wait until an event after ``version`` has come on the stream."""
        async with self._arrived:
            await asyncio.wait_for(
                self._arrived.wait_for(lambda: bool(self.frames) and self.frames[-1][0] > version),
                30,
            )


async def play(api: Any, models: Any, seat: Any, game_id: str, stream: Stream) -> int:
    """Play the seat to the end of the game: act on the view while it says it is this seat's
    turn (a command's answer carries the next view); otherwise wait on the stream for a new
    event and read the view again. The number of commands sent."""
    view = await api.get_game.asyncio(game_id, client=seat)
    assert isinstance(view, models.View), view
    commands = 0
    bodies = {
        "stand": models.StandCommand,
        "beg": models.BegCommand,
        "give_one": models.GiveOneCommand,
        "run_pack": models.RunPackCommand,
        "play": models.PlayCommand,
    }
    while view.phase != models.ViewPhase.ENDED:
        if view.to_act != SEAT:
            await stream.past(view.version)
            view = await api.get_game.asyncio(game_id, client=seat)
            assert isinstance(view, models.View), view
            continue
        assert view.legal_actions, view
        action = view.legal_actions[0].to_dict()  # any legal move will do
        body = bodies[action["type"]].from_dict(action)
        answer = await api.send_command.asyncio(
            game_id, SEAT, client=seat, body=body, idempotency_key=f"{game_id}-{view.version}"
        )
        assert isinstance(answer, models.CommandAccepted), answer
        assert answer.view.version == answer.version and answer.view.viewer == SEAT
        commands += 1
        view = answer.view
    return commands
