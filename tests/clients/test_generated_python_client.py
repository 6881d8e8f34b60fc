"""A Python client generated from ``openapi/openapi.json`` alone plays a whole game against a
real ``allfours serve``: a person (this client) and three bots, no clock.

The client is generated at test time by ``openapi-python-client`` (a maintained generator from
PyPI), into a temporary directory, and must generate without a warning about the spec. It
makes every call through the generated code, except the event stream: the generator has no
Server-Sent Events support, so the stream is read with the generated client's own httpx client.
The play loop is the one the README describes, one stream and one POST per decision: act while
the view says it is your turn (each command's answer carries the new view), otherwise wait for
the stream's next view snapshot (``view=true``).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest
from client_support import LOOSER, SPEC
from support import ServerProcess, sse_frames

from domain import Event, verify

GENERATOR = Path(sys.executable).with_name("openapi-python-client")
PACKAGE = "allfours_generated_client"
SEAT = 0


def generate(spec: Path, where: Path) -> Path:
    """Generate the client of ``spec`` as ``where/PACKAGE``; ``where``, to import it from."""
    config = where / "config.yaml"
    config.write_text("post_hooks: []\n")  # no formatter run: the code is only imported
    result = subprocess.run(
        [
            *(str(GENERATOR), "generate", "--path", str(spec), "--meta", "none"),
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
    return where


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated package, imported (generation takes a few seconds)."""
    where = generate(SPEC, tmp_path_factory.mktemp("python-client"))
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
    for operation in ("create_game", "take_seat", "send_command", "get_replay"):
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

    stream = Stream(models)
    following = asyncio.create_task(stream.follow(seat.get_async_httpx_client(), created.game_id))
    commands = await play(api, models, seat, created.game_id, stream)
    await asyncio.wait_for(following, 30)
    frames = stream.frames

    replay = await api.get_replay.asyncio(created.game_id, client=anonymous)
    assert isinstance(replay, models.Replay), replay
    assert [f[0] for f in frames] == list(range(1, len(replay.events) + 1)), "a gap or a repeat"
    assert [f[1] for f in frames] == [e.event.type_ for e in replay.events]
    trumps = [f[2].suit for f in frames if f[1] == "TrumpSet"]
    assert trumps and all(isinstance(suit, models.Suit) for suit in trumps)
    events = [msgspec.convert(e.to_dict()["event"], Event) for e in replay.events]
    assert verify(events).ok, verify(events).problems
    played = sum(1 for e in replay.events if e.event.type_ == "CardPlayed")
    assert commands >= played // 4 and played >= 24, (commands, played)
    assert stream.views[-1].phase == models.ViewPhase.ENDED


class Stream:
    """The seat's stream with view snapshots (``view=true``), followed in the background: the
    events that arrived, the views, and a way to wait for a newer view."""

    def __init__(self, models: Any) -> None:
        self.models = models
        self.frames: list[tuple[int, str, Any]] = []
        self.views: list[Any] = []
        self._arrived = asyncio.Condition()

    async def follow(self, http: Any, game_id: str) -> None:
        """Read the stream to the game's last event and the view after it
        (``support.sse_frames`` parses the SSE framing with httpx: the generated client's own,
        which sends the seat's token). Each message's data is read with the generated class
        its ``event:`` names (an event's, or ``View``): the generator has no SSE support (its
        streamEvents would read the endless body as one text)."""
        path = f"/v1/games/{game_id}/stream"
        async for frame in sse_frames(http, path, params={"view": "true"}):
            async with self._arrived:
                data = json.loads(frame.data)
                if frame.event == "view":
                    assert frame.id is None, frame
                    self.views.append(self.models.View.from_dict(data))
                else:
                    assert frame.id is not None, frame
                    event = getattr(self.models, frame.event).from_dict(data)
                    assert event.type_ == frame.event, frame
                    self.frames.append((frame.id, frame.event, event))
                self._arrived.notify_all()
            if self._ended():
                return

    def _ended(self) -> bool:
        """The seed came (the last event) and then the view after it."""
        revealed = bool(self.frames) and self.frames[-1][1] == "SeedRevealed"
        return revealed and bool(self.views) and self.views[-1].phase == self.models.ViewPhase.ENDED

    async def view_after(self, version: int) -> Any:
        """The newest view the stream sent past ``version``, once there is one."""
        async with self._arrived:
            await asyncio.wait_for(
                self._arrived.wait_for(
                    lambda: bool(self.views) and self.views[-1].version > version
                ),
                30,
            )
            return self.views[-1]


async def play(api: Any, models: Any, seat: Any, game_id: str, stream: Stream) -> int:
    """Play the seat to the end of the game from one stream and one POST per decision: act on
    the view while it says it is this seat's turn (a command's answer carries the next view),
    otherwise wait for the stream's next view. The number of commands sent."""
    rng = random.Random(game_id)
    view = await stream.view_after(-1)  # from 0: the view after the first batch
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
            view = await stream.view_after(view.version)
            continue
        assert view.legal_actions, view
        action = rng.choice(view.legal_actions).to_dict()  # sent back as it is
        body = bodies[action["type"]].from_dict(action)
        answer = await api.send_command.asyncio(
            game_id, SEAT, client=seat, body=body, idempotency_key=f"{game_id}-{view.version}"
        )
        assert isinstance(answer, models.CommandAccepted), answer
        assert answer.view.version == answer.version and answer.view.viewer == SEAT
        commands += 1
        view = answer.view
    return commands


TYPED_USE = f'''
"""Uses the generated client the way a typed client would: mypy --strict accepts it only
while every response field is required and every card and suit is its one enum."""

from typing import Any

from {PACKAGE}.models.card import Card
from {PACKAGE}.models.card_played import CardPlayed
from {PACKAGE}.models.dealt import Dealt
from {PACKAGE}.models.pack_run import PackRun
from {PACKAGE}.models.play import Play
from {PACKAGE}.models.play_command import PlayCommand
from {PACKAGE}.models.revealed import Revealed
from {PACKAGE}.models.suit import Suit
from {PACKAGE}.models.trick_won import TrickWon
from {PACKAGE}.models.trump_set import TrumpSet
from {PACKAGE}.models.view import View


def target(view: View) -> int:
    return view.rules.target


def hand(view: View) -> list[Card]:
    return view.hand or []


def trump(view: View) -> Suit | None:
    return view.trump


def dealer(view: View) -> int:
    return view.dealer + view.version


def play_back(action: Play) -> PlayCommand:
    """A legal action's card is a command's: one Card type."""
    return PlayCommand(card=action.card, type_="play")


def cards_shown(event: str, data: dict[str, Any]) -> list[Card]:
    """The cards a stream message shows (its ``event:`` and its data), read with the
    generated class of that event."""
    if event == "CardPlayed":
        return [CardPlayed.from_dict(data).card]
    if event == "Revealed":
        return [Revealed.from_dict(data).card]
    if event == "TrickWon":
        return TrickWon.from_dict(data).cards
    if event == "Dealt":
        return [card for cards in Dealt.from_dict(data).hands for card in cards or []]
    if event == "PackRun":
        return [card for cards in PackRun.from_dict(data).hands for card in cards or []]
    return []


def trump_set(event: str, data: dict[str, Any]) -> Suit | None:
    return TrumpSet.from_dict(data).suit if event == "TrumpSet" else None
'''


def strict_mypy(where: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """mypy --strict over ``TYPED_USE`` with the generated package found in ``where``."""
    use = tmp_path / "typed_use.py"
    use.write_text(TYPED_USE)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(use)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"MYPYPATH": str(where), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
    )


def test_the_generated_models_type_check_strictly(generated: ModuleType, tmp_path: Path) -> None:
    """mypy --strict over code using the generated models: a response field the spec left
    optional (``Unset``) or a card it left a plain string (no ``Card``) fails it (below)."""
    result = strict_mypy(Path(generated.__file__).parent.parent, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


PYTHON_LOOSER = {name: LOOSER[name] for name in list(LOOSER)[:2]}
"""The looser specs a Python client's types show (with no discriminator, its parser still
tells events apart by their ``type`` constants, and isinstance narrows)."""


@pytest.mark.parametrize("loosen", PYTHON_LOOSER.values(), ids=list(PYTHON_LOOSER))
def test_the_typed_use_fails_on_a_looser_spec(
    tmp_path: Path, loosen: Callable[[dict[str, Any]], None]
) -> None:
    spec = json.loads(SPEC.read_text())
    loosen(spec)
    looser = tmp_path / "openapi.json"
    looser.write_text(json.dumps(spec))
    where = generate(looser, tmp_path)
    result = strict_mypy(where, tmp_path)
    assert result.returncode != 0, "mypy accepted the typed use of a looser spec"


async def test_a_generated_client_tells_a_304_from_an_error(
    generated: ModuleType, server: ServerProcess
) -> None:
    """A poller sends the view's ETag back in If-None-Match: while the game has not moved the
    generated client answers status 304 with no parsed body (``parsed`` is None), and an error
    is a parsed ``Problem`` with its code; nothing is raised for either."""
    api = submodule(generated, "api.games")
    models = submodule(generated, "models")
    submodule(api, "get_game")
    client = generated.Client(base_url=server.url, raise_on_unexpected_status=True)
    body = models.CreateGame.from_dict({"bots": [None, "random", "random", "random"]})
    created = await api.create_game.asyncio(client=client, body=body)
    first = await api.get_game.asyncio_detailed(created.game_id, client=client)
    assert first.status_code == 200 and isinstance(first.parsed, models.View)
    etag = first.headers["ETag"]
    again = await api.get_game.asyncio_detailed(created.game_id, client=client, if_none_match=etag)
    assert again.status_code == 304 and again.parsed is None
    assert again.headers["ETag"] == etag
    missing = await api.get_game.asyncio_detailed("0" * 16, client=client)
    assert missing.status_code == 404 and isinstance(missing.parsed, models.Problem)
    assert missing.parsed.code == models.ProblemCode.NOT_FOUND
