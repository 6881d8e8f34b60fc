"""The self-played games of the ``selfplay_v2`` fixture: which games, and how each is driven.

The fixture pins the rules' exact output: every game here, replayed by the engine of today,
must give the same events, byte for byte (msgspec JSON), as when the fixture was recorded.
That is what lets the engine be made faster without changing a rule by accident.

Game ``i`` is derived from the counter alone: its seed is ``sha256("selfplay-v2:i")``, its
rules and players are picked from the lists below by ``i``. Two drivers:

- ``bots``: ``domain.autoplay.play_game``, four bots (the benchmark's path);
- ``table``: the service's path at a clocked table, with people at some seats: every owed
  command comes from ``owed_command`` (deals, bots, the heuristic bot for a seat that is away,
  left or just timed out), and the people's side is played by a seeded PRNG that sometimes
  lets the clock run out, steps away, comes back, leaves or resigns.

Record (only when the rules are meant to change, which they are not):
``uv run python tests/domain/selfplay_games.py``.
"""

from __future__ import annotations

import gzip
import hashlib
import random
from collections.abc import Iterator
from pathlib import Path

import msgspec

from domain import (
    ComeBack,
    Command,
    Event,
    Leave,
    Resign,
    Rules,
    State,
    StepAway,
    TimeOut,
    execute,
    legal_actions,
    seat_actions,
)
from domain.autoplay import opening_commands, owed_command, play_game

FIXTURE = Path(__file__).parent / "fixtures" / "selfplay_v2.jsonl.gz"
GAMES = 400

RULES = (
    Rules(),
    Rules(tobago_kick=True),
    Rules(target=11, give_one_at_13="forbidden"),
    Rules(undertrump="forbidden"),
    Rules(
        target=21,
        tobago_kick=True,
        give_one_at_13="forbidden",
        undertrump="forbidden",
        turn_seconds=None,
    ),
    Rules(target=5, turn_seconds=10),
)
BOTS: tuple[tuple[str, str, str, str], ...] = (
    ("random", "random", "random", "random"),
    ("heuristic", "heuristic", "heuristic", "heuristic"),
    ("heuristic", "random", "heuristic", "random"),
    ("random", "random", "heuristic", "random"),
)
PEOPLE: tuple[tuple[str | None, str | None, str | None, str | None], ...] = (
    (None, "random", None, "heuristic"),
    (None, None, None, None),
    ("heuristic", None, "random", "random"),
)
T0 = 1_767_000_000_000
"""The instant the table games start (ms since the epoch)."""


class Spec(msgspec.Struct, frozen=True):
    """One game of the fixture: enough to play it again."""

    index: int
    seed: str
    driver: str
    rules: Rules
    seats: tuple[str | None, ...]
    """The bot kind of each seat; None for a person (``table`` only)."""


class Record(msgspec.Struct, frozen=True):
    spec: Spec
    events: msgspec.Raw
    """The log as ``msgspec.json.encode`` wrote it, kept byte for byte."""


def spec(index: int) -> Spec:
    seed = hashlib.sha256(f"selfplay-v2:{index}".encode()).hexdigest()
    rules = RULES[index % len(RULES)]
    if index % 4 == 3:
        people = PEOPLE[(index // 4) % len(PEOPLE)]
        return Spec(index, seed, "table", rules, people)
    return Spec(index, seed, "bots", rules, BOTS[(index // 4 + index) % len(BOTS)])


def play(game: Spec) -> list[Event]:
    """The log of ``game`` as the engine of today plays it."""
    if game.driver == "bots":
        bots = [kind or "random" for kind in game.seats]
        # Recorded when the bots' rng was seeded with the deck seed (which a bot could read
        # back): the fixture pins that rng, new self-play derives it one way (``bot_rng``).
        return play_game(game.seed, bots=bots, rules=game.rules, rng=random.Random(game.seed))[1]
    return _play_table(game)


def _play_table(game: Spec) -> list[Event]:
    bot_rng = random.Random(game.seed)
    people = random.Random(f"people:{game.seed}")
    names = [f"seat {seat}" for seat in range(4)]
    now = T0
    state = State()
    log: list[Event] = []
    for command in opening_commands(game.seed, game.rules, names, list(game.seats)):
        state, events = execute(state, command, now)
        log.extend(events)
    while state.seed is None:
        now += 700
        command = _come_back(state, people) or owed_command(state, game.seed, bot_rng)
        if command is None:
            command, now = _person_move(state, people, now)
        state, events = execute(state, command, now)
        log.extend(events)
        assert len(log) < 20_000, "the game does not end"
    return log


def _come_back(state: State, people: random.Random) -> Command | None:
    """Now and then a person who is away comes back."""
    for seat, player in enumerate(state.players):
        if player is not None and player.away and not player.left and people.random() < 0.2:
            return ComeBack(seat)
    return None


def _person_move(state: State, people: random.Random, now: int) -> tuple[Command, int]:
    """What the person to act does, and when: mostly a legal move, sometimes nothing until the
    clock runs out, sometimes a step away, rarely leaving or resigning."""
    seat = state.to_act
    assert seat is not None, f"nobody to act in phase {state.phase}"
    offered = seat_actions(state, seat)
    roll = people.random()
    deadline = state.deadline
    if roll < 0.08 and deadline is not None:
        return TimeOut(seat), deadline
    if roll < 0.10 and any(isinstance(a, StepAway) for a in offered):
        return StepAway(seat), now
    if roll < 0.102:
        return Leave(seat), now
    if roll < 0.1025 and any(isinstance(a, Resign) for a in offered):
        return Resign(seat), now
    return people.choice(legal_actions(state, seat)), now


def recorded() -> Iterator[Record]:
    """The games of the fixture file, in order."""
    decoder = msgspec.json.Decoder(Record)
    with gzip.open(FIXTURE, "rb") as lines:
        for line in lines:
            yield decoder.decode(line)


def encode(log: list[Event]) -> bytes:
    return msgspec.json.encode(log)


def record() -> None:
    """Write the fixture from the engine of today."""
    with gzip.GzipFile(FIXTURE, "wb", compresslevel=9, mtime=0) as out:
        for index in range(GAMES):
            game = spec(index)
            line = Record(game, msgspec.Raw(encode(play(game))))
            out.write(msgspec.json.encode(line) + b"\n")


if __name__ == "__main__":
    record()
